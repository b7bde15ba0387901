"""The scripted user's check of a write's values against its goal: a proposal in words, or a call already made.

The same tool is not enough: for each argument the goal's action holds, the values a proposal *shows* are read
from its text the way a person reads it (the id itself, or what a tool output showed it to be: an item's name,
a card's last four digits, "gift card"; an option of the tool's own list such as a cabin), and compared with the
goal's: a list as a set (an extra item, a missing one), a single value as the one wanted. A value the text does
not show is not guessed (the caller keeps its own rule for it). What is wrong is said in the user's words: the
names a tool showed, never an id the instruction does not state ("No, only the T-Shirt; I want to keep the
Cycling Helmet.").

Pure functions over the texts; the tool outputs come from the conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tauplay.core.grounding import normalize, spellings, words
from tauplay.core.tools import ToolSpec
from tauplay.sim.action_words import is_money

_LAST_FOUR = ("last_four", "last4", "last_4")
_KIND = ("source", "type", "kind")
_PAYMENT_KINDS = ("credit_card", "debit_card", "gift_card", "paypal", "certificate", "bank_account")


@dataclass
class Candidate:
    """A value an argument may take, with the ways a person names it (normalized) and how the user says it."""

    value: str
    forms: set[str] = field(default_factory=set)
    label: str = ""


def _entity(key: str) -> tuple[set[str], str]:
    """The output fields that hold values of the kind `key` names (`new_item_ids` -> item_id, new_item_id) and
    its entity (`payment_method`); ({key}, "") for a key that names no id."""
    parts = key.removesuffix("s").split("_")
    if parts[-1] != "id" or len(parts) < 2:
        return {key}, ""
    return {"_".join(parts), "_".join(parts[-2:])}, "_".join(parts[:-1])


def _parsed(output: str) -> Any:
    try:
        return json.loads(output)
    except (json.JSONDecodeError, TypeError):
        return None


def _records(value: Any, fields: set[str], entity: str, around: str = "") -> Iterator[tuple[str, dict[str, Any], str]]:
    """(id, its record, the name around it) for every value of the kind in a tool output: a field of that kind
    ("item_id": ...), a mapping under the entity's plural keyed by id ("payment_methods": {id: {...}}), or a
    list of ids under it ("orders": [...])."""
    if isinstance(value, dict):
        own = value.get("name")
        here = own if isinstance(own, str) else around
        for k, v in value.items():
            if k in fields and isinstance(v, str):
                yield v, value, around
            plural = bool(entity) and k.rstrip("s").startswith(entity)
            if plural and isinstance(v, dict):
                for sub_key, sub in v.items():
                    if isinstance(sub, dict):
                        yield sub_key, sub, here
            if plural and isinstance(v, list):
                for sub in v:
                    if isinstance(sub, str):
                        yield sub, {}, ""
            if isinstance(v, dict | list):
                yield from _records(v, fields, entity, here)
    elif isinstance(value, list):
        for v in value:
            yield from _records(v, fields, entity, around)


def _plain(kind: str) -> str:
    return kind.replace("_", " ")


def _describe(candidate: Candidate, record: dict[str, Any], around: str) -> None:
    """Adds the ways a person names this record (its name; a card's last four; a payment method's kind)."""
    kind = next((str(record[k]) for k in _KIND if isinstance(record.get(k), str)), "")
    last = next((str(record[k]) for k in _LAST_FOUR if record.get(k) is not None), "")
    if last:
        candidate.forms |= {normalize(f"ending {last}"), normalize(f"ending in {last}"), normalize(last)}
        candidate.label = candidate.label or f"the {_plain(kind) or 'card'} ending {last}"
    if kind and (last or any(k in record for k in ("balance", "brand")) or "_" in candidate.value):
        candidate.forms.add(normalize(_plain(kind)))
        candidate.label = candidate.label or f"the {_plain(kind)}"
        return
    name = record.get("name") if isinstance(record.get("name"), str) else around
    if name:
        candidate.forms.add(normalize(name))
        candidate.label = candidate.label or f"the {name}"


def candidates(key: str, gold: Sequence[str], outputs: Sequence[str], spec: ToolSpec | None) -> list[Candidate]:
    """The values argument `key` may take that a person could name: the goal's own, those the tool outputs show
    of the same kind, and the options of the tool's own list for it (a cabin)."""
    fields, entity = _entity(key)
    found: dict[str, Candidate] = {}

    def add(value: str) -> Candidate:
        if value not in found:
            found[value] = Candidate(value, {normalize(value)} - {""})
        return found[value]

    for value in gold:
        add(value)
    prop = ((spec.parameters.get("properties") or {}).get(key) or {}) if spec is not None else {}
    enum = prop.get("enum") or (prop.get("items") or {}).get("enum") or []
    if enum and not {str(v).lower() for v in enum} <= {"yes", "no", "true", "false"}:
        for option in enum:
            c = add(str(option))
            c.forms |= set(spellings(str(option)))
            c.label = c.label or _plain(str(option))
    if entity:
        for output in outputs:
            for value, record, around in _records(_parsed(output), fields, entity):
                _describe(add(value), record, around)
    if "payment" in entity:
        # A payment method is also named by its kind alone ("to your credit card"), which its id begins with;
        # a kind none of them is, said, is a method the goal does not use.
        for kind in _PAYMENT_KINDS:
            form = _plain(kind)
            for c in found.values():
                if c.value.startswith(kind + "_"):
                    c.forms.add(form)
                    c.label = c.label or f"the {form}"
            if not any(form in c.forms for c in found.values()):
                found[f"<{kind}>"] = Candidate(f"<{kind}>", {form}, f"the {form}")
    return list(found.values())


def shown(text: str, pool: Sequence[Candidate], gold: set[str], other: str = "that one") -> tuple[set[str], list[str]]:
    """(values of the goal the text shows, labels of the other values it shows). A form several candidates share
    ("T-Shirt" of two sizes, "credit card" of two cards) shows the goal's when one of them is the goal's; the
    longest form is read first (so "basic economy" is not also "economy")."""
    hay = f" {normalize(text)} "
    forms = sorted({f for c in pool for f in c.forms if f}, key=len, reverse=True)
    right: set[str] = set()
    wrong: list[str] = []
    wrong_values: set[str] = set()
    for form in forms:
        if f" {form} " not in hay:
            continue
        hay = hay.replace(f" {form} ", " \x00 ")
        group = [c for c in pool if form in c.forms]
        hit = {c.value for c in group} & gold
        if hit:
            right |= hit
            continue
        if any(c.value in wrong_values for c in group):
            continue
        wrong_values |= {c.value for c in group}
        wrong.append(f"the {form}" if len(group) > 1 else group[0].label or other)
    return right, wrong


@dataclass(frozen=True)
class Mismatch:
    """One argument of a goal's action that the write shows otherwise: the goal's values as the user says them,
    and the others the write holds."""

    key: str
    wanted: list[str]  # labels of the goal's values the write leaves out (a list) or the one wanted (single)
    extra: list[str]  # labels of values the write holds that the goal does not
    single: bool
    unnamed: bool = False  # the goal's value has no words the user would say


def _label(c: Candidate | None, value: str, knows: Callable[[str], bool], key: str) -> tuple[str, bool]:
    if c is not None and c.label:
        return c.label, False
    if knows(value):
        _, entity = _entity(key)
        return (f"{words(entity)} {value}" if entity and not key.endswith("ids") else value), False
    return f"that {words(key).removesuffix(' id').removesuffix(' ids')}", True


def _gold_values(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


class Reader(Protocol):
    """What a write shows of one argument: `read(key, pool, gold)` -> (the goal's values it shows, labels of the
    others); `amounts(key)` the sums of money it shows for `key` (an empty list: none, so nothing to compare)."""

    def __call__(self, key: str, pool: list[Candidate], gold: set[str]) -> tuple[set[str], list[str]]: ...

    def amounts(self, key: str) -> list[float]: ...


@dataclass(frozen=True)
class _Read:
    read: Callable[[str, list[Candidate], set[str]], tuple[set[str], list[str]]]
    money: Callable[[str], list[float]]

    def __call__(self, key: str, pool: list[Candidate], gold: set[str]) -> tuple[set[str], list[str]]:
        return self.read(key, pool, gold)

    def amounts(self, key: str) -> list[float]:
        return self.money(key)


_DOLLARS = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")


def dollars(text: str) -> list[float]:
    """The sums a text states with a dollar sign ("$1,248.50" -> 1248.5)."""
    return [float(m.group(1).replace(",", "") + (m.group(2) or "")) for m in _DOLLARS.finditer(text)]


def other_label(key: str) -> str:
    """How the user names a value of `key` it has no words for: "that item", "that payment method"."""
    return f"that {words(key).removesuffix(' ids').removesuffix(' id').removesuffix('s')}"


def from_text(text: str) -> Reader:
    """What a proposal in words shows of an argument (`shown`), and the dollar sums it states."""
    return _Read(lambda key, pool, gold: shown(text, pool, gold, other_label(key)),
                 lambda key: dollars(text) if is_money(key) else [])


def from_call(arguments: dict[str, Any]) -> Reader:
    """What a call made holds of an argument: every value it carries, named as a tool output showed it."""
    def read(key: str, pool: list[Candidate], gold: set[str]) -> tuple[set[str], list[str]]:
        values = _gold_values(arguments.get(key)) or []
        wanted = {normalize(g): g for g in gold}
        by_value = {normalize(c.value): c for c in pool}
        right = {wanted[normalize(v)] for v in values if normalize(v) in wanted}
        wrong = [(by_value[normalize(v)].label if normalize(v) in by_value else "") or other_label(key)
                 for v in values if normalize(v) not in wanted]
        return right, list(dict.fromkeys(wrong))

    def money(key: str) -> list[float]:
        value = arguments.get(key)
        return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []
    return _Read(read, money)


def compare(kwargs: dict[str, Any], read: Reader, outputs: Sequence[str], spec: ToolSpec | None,
            knows: Callable[[str], bool]) -> tuple[list[Mismatch], set[str]]:
    """(the arguments of a goal's action (`kwargs`) a write shows otherwise, the goal's values it shows);
    `read(key, pool, gold)` is what the write shows of one argument. An argument it shows nothing of is left
    alone, as is a free value (a date, an amount, a name: not read from prose)."""
    out: list[Mismatch] = []
    seen: set[str] = set()
    every = {k: set(_gold_values(v) or []) for k, v in kwargs.items()}
    for key, value in kwargs.items():
        if (wrong_sum := _wrong_amount(key, value, read, knows)) is not None:
            out.append(wrong_sum)
            continue
        gold = _gold_values(value)
        if not gold:
            continue
        _, entity = _entity(key)
        prop = ((spec.parameters.get("properties") or {}).get(key) or {}) if spec is not None else {}
        if not entity and not prop.get("enum"):
            continue
        pool = candidates(key, gold, outputs, spec)
        by_value = {c.value: c for c in pool}
        # A list's values may sit beside another argument's of the same kind (items and the new items of an
        # exchange): those are not extra.
        others = {v for k, vs in every.items() if k != key for v in vs} if isinstance(value, list) else set()
        right, wrong = read(key, pool, set(gold) | others)
        right &= set(gold)
        seen |= right
        if isinstance(value, str):
            if gold[0] in right or not wrong:
                continue
            label, unnamed = _label(by_value.get(gold[0]), gold[0], knows, key)
            out.append(Mismatch(key, [label], wrong[:1], True, unnamed))
            continue
        missing = [g for g in gold if g not in right] if (right or wrong) else []
        if not missing and not wrong:
            continue
        labels = [_label(by_value.get(g), g, knows, key) for g in missing]
        out.append(Mismatch(key, [lb for lb, _ in labels], wrong, False, any(u for _, u in labels)))
    return out, seen


def _wrong_amount(key: str, value: Any, read: Reader, knows: Callable[[Any], bool]) -> Mismatch | None:
    """A sum of money the user's instruction states ("pay all of it ($51.62)") that the write shows otherwise: it
    states sums for this argument and none is the one wanted ("a payment of $12.00"). A sum the instruction does
    not state is the agent's to work out, and not judged here."""
    if not is_money(key) or not isinstance(value, int | float) or isinstance(value, bool) or not knows(value):
        return None
    stated = read.amounts(key)
    if not stated or any(abs(x - value) < 0.005 for x in stated):
        return None
    return Mismatch(key, [f"${value:,.2f}"], [f"${stated[0]:,.2f}"], True)


def correction(m: Mismatch, tool: str, gold_labels: list[str]) -> str:
    """A mismatch in the user's words: "No, not economy: I want business.", "No, only the T-Shirt; I want to keep
    the Cycling Helmet.", "No, the Cycling Helmet too, please.", "No, not the Cycling Helmet: I mean the T-Shirt."."""
    if m.single:
        if m.unnamed:
            what = words(m.key).removesuffix(" id")
            return (f"No, that is not the right {what}." if m.extra[0].startswith("that ")
                    else f"No, not {m.extra[0]}: that is not the right {what}.")
        return f"No, not {m.extra[0]}: I want {m.wanted[0]}."
    extra = " and ".join(m.extra)
    missing = " and ".join(m.wanted)
    if m.extra and not m.wanted:
        only = " and ".join(gold_labels) if gold_labels else "what I asked for"
        if tool.split("_", 1)[0] in ("return", "exchange", "cancel"):  # the rest stays with the user
            return f"No, only {only}; I want to keep {extra}."
        return f"No, only {only}, not {extra}."
    if m.wanted and not m.extra:
        return f"No, {missing} too, please."
    return f"No, not {extra}: I mean {missing}."


def list_labels(key: str, gold: list[str], outputs: Sequence[str], spec: ToolSpec | None,
                knows: Callable[[str], bool]) -> list[str]:
    by_value = {c.value: c for c in candidates(key, gold, outputs, spec)}
    return [_label(by_value.get(g), g, knows, key)[0] for g in gold]


def same_call(gold: dict[str, Any], made: dict[str, Any]) -> bool:
    """A call made holds the goal's arguments: the same keys, lists of values as sets, values as a person
    reads them (`#W1` is "W1", `one_way` is "one way")."""
    if set(gold) != set(made):
        return False

    def norm(v: Any) -> Any:
        if isinstance(v, str):
            return normalize(v)
        if isinstance(v, list):
            items = [norm(x) for x in v]
            return frozenset(items) if all(isinstance(x, str) for x in items) else json.dumps(v, sort_keys=True)
        if isinstance(v, dict):
            return json.dumps(v, sort_keys=True)
        return v

    return all(norm(gold[k]) == norm(made[k]) for k in gold)
