"""Which of the person's records they mean (issue 25): a profile lists several reservations or orders, and the
agent may act on one only when the person named it (its id) or said something that record shows and the others
do not (a destination, a date, an item's name, a status). Otherwise it asks, naming each record by what the tools
showed ("Which reservation do you mean: R3F9DO (JFK to SEA on 2024-05-20) or ...?").

Pure functions over the tools' JSON outputs and the person's words; the gated agent makes the reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tauplay.core.grounding import contains, normalize

# A record's fields that say nothing a person would use to tell it from another (its owner, money, counts).
_QUIET_KEYS = frozenset({"user_id", "payment_method_id", "price", "amount", "total", "created_at", "id",
                         "product_id", "item_id", "transaction_type"})
_MIN_WORD = 4


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def listed_with(outputs: Sequence[str], listing: str, value: str) -> list[str]:
    """The ids a tool output lists under `listing` ("reservations", "orders") beside `value`: the person's records
    of that kind, when there are two or more and `value` is one of them (else [])."""
    for output in outputs:
        data = _json(output)
        if not isinstance(data, dict):
            continue
        ids = data.get(listing)
        if isinstance(ids, list) and len(ids) >= 2 and all(isinstance(i, str) for i in ids) and value in ids:
            return list(dict.fromkeys(ids))
    return []


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str) and key not in _QUIET_KEYS:
        yield key, value


def _without_ends(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ends(v) for k, v in value.items() if k not in ("origin", "destination")}
    if isinstance(value, list):
        return [_without_ends(v) for v in value]
    return value


def _plural(word: str) -> tuple[str, ...]:
    return (word, word + "s", word + "es", word[:-1] + "ies" if word.endswith("y") else word)


def features_said(record: Any, said: str) -> set[str]:
    """What of this record (a parsed JSON object) the person's words (`said`: normalized, padded) name: a value
    as a whole ("SEA", "May 20" for 2024-05-20, "pending"), or a word of a named thing ("kettle" for "Electric
    Kettle")."""
    found: set[str] = set()
    if isinstance(record, dict) and isinstance(record.get("origin"), str) and isinstance(record.get("destination"), str):
        # a trip says where it goes at its top; its legs' ends (a round trip's way back, a stop) are not where to
        record = {k: v if k in ("origin", "destination") else _without_ends(v) for k, v in record.items()}
    for key, value in _strings(record):
        if not normalize(value):
            continue
        # "to SFO" is a trip's destination, "from SFO" its origin (a record with SFO the other way is not meant)
        to, since = f" to {normalize(value)} " in said, f" from {normalize(value)} " in said
        if (key == "origin" and to and not since) or (key == "destination" and since and not to):
            continue
        if len(normalize(value)) >= 3 and contains(said, value, padded=True):
            found.add(normalize(value))
            continue
        for word in normalize(value).split():
            if len(word) >= _MIN_WORD and word.isalpha() and any(f" {w} " in said for w in _plural(word)):
                found.add(word)
    return found


def singled_out(value: str, records: Mapping[str, Any], texts: Sequence[str]) -> bool:
    """The person's words point to `value` among `records` (id -> parsed record, every candidate read): it shows
    something they said that no other record shows ("the kettle"), or more of what they said than any other
    does. A word every record fits, or several fit alike ("my pending order" of three pending), picks none."""
    if value not in records or len(records) < 2:
        return False
    said = f" {' '.join(normalize(t) for t in texts)} "
    found = {rid: features_said(rec, said) for rid, rec in records.items()}
    others = [f for rid, f in found.items() if rid != value]
    if found[value] - set().union(*others):
        return True
    common = set.intersection(*found.values())
    mine = len(found[value] - common)
    return mine > 0 and all(len(f - common) < mine for f in others)


def summary(record: Any) -> str:
    """A record in a few words, from its own fields: the route and first date of a trip ("JFK to SEA on
    2024-05-20"), an order's status and the names of its items ("pending: Electric Kettle, Smart Watch")."""
    if not isinstance(record, dict):
        return ""
    parts: list[str] = []
    trip = []
    origin, destination = record.get("origin"), record.get("destination")
    if isinstance(origin, str) and isinstance(destination, str):
        trip.append(f"{origin} to {destination}")
    dates = [d for k, d in _strings(record.get("flights") or [], "") if k == "date"]
    if dates:
        trip.append(f"on {dates[0]}")
    if trip:
        parts.append(" ".join(trip))
    status = record.get("status")
    items = record.get("items")
    names = [str(i["name"]) for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)] \
        if isinstance(items, list) else []
    if names:
        shown = ", ".join(dict.fromkeys(names))
        parts.append(f"{status}: {shown}" if isinstance(status, str) else shown)
    elif isinstance(status, str):
        parts.append(status)
    return "; ".join(parts)


def which_question(entity: str, candidates: Sequence[str], records: Mapping[str, Any]) -> str:
    """"Which reservation do you mean: R3F9DO (JFK to SEA on 2024-05-20) or K7QBZD (...)?": each record named by
    its id and what a read of it showed."""
    named = []
    for rid in candidates:
        about = summary(records.get(rid))
        named.append(f"{rid} ({about})" if about else rid)
    listed = f"{', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else named[0]
    return f"Which {entity} do you mean: {listed}?"
