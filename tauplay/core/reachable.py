"""What reads could bring into view: the outputs of every read an agent can make from what is in view, read
after read (a user id said gives the user's details, whose reservation ids give each reservation's...).

The audit's `ungrounded_value` asks whether a gold value is in view before the write that needs it; published
gold actions often skip the look-ups a competent agent makes, so those are tried here, on the state the write
meets, never recorded. Candidates for a parameter: values under a key of its name in outputs (`order_id`), the
members of a list or object named after it (`orders` for order_id), the top-level keys of an object output (an
airport code list), bare one-word outputs (a found user id), the id-like tokens the user wrote, and the dates
the user wrote (in ISO form). Bounded: depth and calls per view.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from tauplay.core.db import State
from tauplay.core.domain import Domain
from tauplay.core.grounding import Evidence
from tauplay.core.schema import coerce, validate
from tauplay.core.tools import ToolSpec

MAX_DEPTH = 4
MAX_CALLS = 600
_PER_PARAM = 30
_PER_TOOL = 150
_NAMES = 8
_TOKEN = re.compile(r"[#\w][\w.@#+-]*\w")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WRITTEN_DATE = re.compile(r"\b(" + "|".join(_MONTHS) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s*(\d{4}))?",
                           re.IGNORECASE)
_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
_NOT_NAMES = frozenset("you your i i'm my me we our the a an and but or if then this that these those it he she they "
                       "his her their for to of in on at by with from as is are was be do not no yes".split())


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


def _stems(param: str) -> set[str]:
    base = param[:-3] if param.endswith("_id") else param[:-4] if param.endswith("_ids") else param
    return {param, base, base + "s", base + "es", param + "s"}


def _index(value: Any) -> dict[str, list[Any]]:
    """key -> scalars under it, `key/` -> keys of objects under it, `/` -> the top-level keys and scalar values."""
    found: dict[str, list[Any]] = {}
    if isinstance(value, dict):
        found["/"] = list(value) + [v for v in value.values() if isinstance(v, str | int) and not isinstance(v, bool)]

    def walk(v: Any, key: str | None) -> None:
        if isinstance(v, dict):
            for k, item in v.items():
                if key is not None and isinstance(item, dict):
                    found.setdefault(key + "/", []).append(k)
                walk(item, k)
        elif isinstance(v, list):
            for item in v:
                walk(item, key)
        elif key is not None and isinstance(v, str | int) and not isinstance(v, bool):
            found.setdefault(key, []).append(v)

    walk(value, None)
    return found


def _id_like(token: str) -> bool:
    return len(token) >= 3 and (any(c.isdigit() for c in token) or "@" in token or "_" in token or token.isupper())


def user_dates(texts: Sequence[str], year: str) -> list[str]:
    """The dates a user wrote ("May 20", "2024-05-20"), in ISO form (a date without a year: `year`)."""
    out: list[str] = []
    for text in texts:
        out += _ISO.findall(text)
        for month, day, y in _WRITTEN_DATE.findall(text):
            try:
                out.append(date(int(y or year), _MONTHS.index(month[:3].lower()) + 1, int(day)).isoformat())
            except ValueError:
                continue
    return list(dict.fromkeys(out))


class Explorer:
    """The reads possible from a view, on one state, and what they show."""

    def __init__(self, domain: Domain, state: State, user_texts: Sequence[str], year: str = "2024") -> None:
        self.domain = domain
        self.state = state
        self.tokens = [t for text in user_texts for t in _TOKEN.findall(text) if _id_like(t)]
        self.dates = user_dates(user_texts, year)
        # Names a user gives ("Yusuf Rossi"): the capitalized words they wrote, for a parameter of a name.
        self.names = list(dict.fromkeys(w for text in user_texts for w in _NAME.findall(text)
                                        if w.lower() not in _NOT_NAMES))
        self.calls = 0
        self._tried: set[str] = set()

    def _run(self, spec: ToolSpec, args: dict[str, Any]) -> str | None:
        key = spec.name + json.dumps(args, sort_keys=True, default=str)
        if key in self._tried or self.calls >= min(MAX_CALLS, self.domain.audit_lookups):
            return None
        self._tried.add(key)
        if validate(args, spec.parameters):
            return None
        self.calls += 1
        try:
            from tauplay.core.environment import render_output

            return render_output(spec.func(self.state, **coerce(args, spec.parameters)))
        except Exception:  # a look-up that fails (an unknown id) brings nothing into view
            return None

    def _candidates(self, spec: ToolSpec, outputs: Sequence[str], view: Evidence) -> list[dict[str, Any]]:
        indexes = [_index(_json(o)) for o in outputs]
        bare = [o.strip().strip('"') for o in outputs if _json(o) is None or isinstance(_json(o), str)]
        bare = [b for b in bare if len(b.split()) == 1 and _id_like(b)]
        options: list[list[Any]] = []
        for name in spec.required:
            values: list[Any] = []
            for index in indexes:
                for stem in _stems(name):
                    values += index.get(stem, [])
                    if stem != name:
                        values += index.get(stem + "/", [])
            values += bare + self.tokens
            if len(spec.required) == 1:  # an object's keys (airport codes, product types) feed a one-field look-up
                for index in indexes:
                    values += index.get("/", [])[:120]
            if "date" in name:
                values += self.dates
            if "name" in name:
                values += self.names[:_NAMES]
            options.append([v for v in dict.fromkeys(values) if view.grounded(v)][:_PER_PARAM])
        combos: list[dict[str, Any]] = [{}]
        for name, values in zip(spec.required, options, strict=True):
            combos = [{**c, name: v} for c in combos for v in values][:_PER_TOOL]
        return combos

    def outputs(self, view: Evidence, outputs: Sequence[str], wanted: Any = None) -> list[str]:
        """Outputs of reads reachable from `view` (whose tool outputs are `outputs`), level by level; stops
        early once `wanted` is in view."""
        shown: list[str] = []
        reads = [t for t in self.domain.read_tools if not t.utility and not t.terminal]
        for _ in range(MAX_DEPTH):
            level: list[str] = []
            planned = [(spec, self._candidates(spec, [*outputs, *shown], view) if spec.required else [{}])
                       for spec in reads]
            for spec, candidates in sorted(planned, key=lambda p: len(p[1])):  # the cheapest look-ups first
                for args in candidates:
                    out = self._run(spec, args)
                    if out is not None:
                        level.append(out)
            if not level:
                break
            shown += level
            view = view.plus(*level)
            if wanted is not None and view.grounded(wanted):
                break
        return shown
