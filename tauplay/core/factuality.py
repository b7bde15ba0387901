"""The abstract verifier: is what the agent told the user supported by what it could know?

The policies say the agent gives only facts that come from the user or from the tools. This check reads the
agent's messages for checkable statements -- prices and other amounts, ids, dates, clock times, numbers --
and looks each up in the evidence: the outputs of the session's tool calls (what the database said), the
user's instruction and the policy. An amount is also supported when it is the sum of two amounts that the
session's writes returned (a total of two bookings), or the sum of every write's total (a trip of several
bookings); anything else the agent worked out should come from the
calculator tool, whose output is evidence too. (Sums over every searched price would support almost any
amount.) A statement found nowhere is reported as unsupported. Report only: the reward
does not change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tauplay.core.environment import Environment
    from tauplay.core.tasks import Task

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = "|".join(m for m in MONTHS) + "|" + "|".join(m[:3] for m in MONTHS if len(m) > 3) + "|sept"
_MONEY = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?|(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?"
                    r"\s*(?:dollars|usd)\b", re.IGNORECASE)
_ISO = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b"
                        rf"|\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::\d\d)?(?![\d:])")
_ID = re.compile(r"(?<![\w-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9][\w-]{3,}(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.,$-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w-]|[.,]\d)")
_EVIDENCE_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?")
_MONEY_KEY = re.compile(r"price|amount|total|rate|fee|balance|refund|cost|credit|rooms|extras|protection|paid",
                        re.IGNORECASE)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")
_WORD = re.compile(r"[\w-]+")
_MAYBE_ISO = re.compile(r"\d-\d")  # what _ISO and _TIME need at the least: a cheap search before the real one
_MAYBE_TIME = re.compile(r"\d:\d")
_MONTH_STEMS = tuple(m[:3] for m in MONTHS)
SMALL = 10  # bare whole numbers up to this are counts the agent may say freely ("2 travellers"): not checked


def _cents(whole: str, frac: str | None = None) -> int:
    return int(whole.replace(",", "")) * 100 + (int((frac or "0").ljust(2, "0")[:2]) if frac else 0)


def _month_index(word: str) -> int:
    low = word.lower().rstrip(".")
    return next(i for i, m in enumerate(MONTHS, start=1) if m.startswith(low[:3]))


@dataclass(frozen=True)
class Statement:
    kind: str  # money | id | date | time | number
    text: str  # as the agent wrote it
    value: str  # normalised: cents, lower-case id, YYYY-MM-DD or --MM-DD, HH:MM
    message: int  # index among the agent's messages
    supported: bool

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "value": self.value, "message": self.message}


@dataclass(frozen=True)
class StatementReport:
    statements: tuple[Statement, ...] = ()

    @property
    def unsupported(self) -> list[Statement]:
        return [s for s in self.statements if not s.supported]

    @property
    def ok(self) -> bool:
        return not self.unsupported

    def to_json(self) -> dict[str, Any]:
        return {"checked": len(self.statements), "unsupported": [s.to_json() for s in self.unsupported]}


class Evidence:
    """What the agent could know, indexed for look-ups. Each kind of fact is gathered from the texts only when a
    statement asks for it (most sessions state no time, many no date), and each text's facts of a kind are
    found once per process (`_facts`): indexing every tool output and the policy was most of a session's
    evaluation, the largest per-turn cost left in a batch."""

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._written: list[str] = []  # outputs of writes: their amounts may be added up
        self._found: dict[str, set[Any]] = {}

    def add_text(self, text: str, written: bool = False) -> None:
        """Take one text into account; `written`: the output of a write."""
        self._texts.append(text)
        if written:
            self._written.append(text)
        self._found.clear()

    def _kind(self, kind: str) -> set[Any]:
        found = self._found.get(kind)
        if found is None:
            texts = self._written if kind == "amounts" else self._texts
            found = set().union(*(_facts(kind, t) if len(t) <= _CACHED_TEXT else _find(kind, t) for t in texts))
            self._found[kind] = found
        return found

    @property
    def numbers(self) -> set[int]:  # every number, in cents
        return self._kind("numbers")

    @property
    def amounts(self) -> set[int]:  # numbers under money-like keys of write outputs, in cents
        return self._kind("amounts")

    @property
    def tokens(self) -> set[str]:  # lower-case words and ids
        return self._kind("tokens")

    @property
    def dates(self) -> set[str]:  # YYYY-MM-DD, or --MM-DD for a month and day
        return self._kind("dates")

    @property
    def times(self) -> set[str]:  # HH:MM
        return self._kind("times")

    def supports_amount(self, cents: int) -> bool:
        if cents in self.numbers:
            return True
        amounts = sorted(self.amounts)
        return any(cents - a in self.amounts for a in amounts if a <= cents) or cents == self.grand_total

    @property
    def grand_total(self) -> int | None:
        """The sum of every write's largest amount (its total): what a trip of several bookings comes to."""
        if len(self._written) < 3:  # two are covered by the sum of two amounts
            return None
        tops = [max(found) for t in self._written if (found := _facts("amounts", t) if len(t) <= _CACHED_TEXT
                                                       else _find("amounts", t))]
        return sum(tops) if tops else None


def _money_amounts(value: Any, money: bool, into: set[int]) -> set[int]:
    if isinstance(value, dict):
        for k, v in value.items():
            _money_amounts(v, money or bool(_MONEY_KEY.search(str(k))), into)
    elif isinstance(value, list):
        for v in value:
            _money_amounts(v, money, into)
    elif isinstance(value, int | float) and not isinstance(value, bool) and money:
        into.add(round(float(value) * 100))
    return into


def _month_day(m: re.Match[str]) -> str | None:
    """YYYY-MM-DD when the year is given, else --MM-DD (month and day only)."""
    month_word, day_text, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(4),
                                                                                          m.group(6))
    try:
        month, day = _month_index(month_word), int(day_text)
        date(int(year) if year else 2000, month, day)
    except (StopIteration, ValueError):
        return None
    return f"{year}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


def evidence_of(texts: Iterable[str], written: Iterable[str] = ()) -> Evidence:
    evidence = Evidence()
    for text in texts:
        evidence.add_text(text)
    for text in written:
        evidence.add_text(text, written=True)
    return evidence


_CACHED_TEXT = 64 * 1024  # longer texts are searched each time: the cache holds its texts (2048 x 64 KiB at most)


@lru_cache(maxsize=2048)
def _facts(kind: str, text: str) -> frozenset[Any]:
    """One text's facts of one kind, found once per process: the policy, and the tool outputs every trial of a
    task (and often other tasks) sees again."""
    return _find(kind, text)


def _find(kind: str, text: str) -> frozenset[Any]:
    """One text's facts of one kind; cheap tests first skip the patterns a text cannot match."""
    if kind == "numbers":
        flat = _THOUSANDS.sub("", text) if "," in text else text
        return frozenset(round(float(m) * 100) for m in set(_EVIDENCE_NUMBER.findall(flat)))
    if kind == "tokens":
        return frozenset(_WORD.findall(text.lower()))  # lower-casing first gives the same words, in one call
    if kind == "times":
        if not _MAYBE_TIME.search(text):
            return frozenset()
        return frozenset(f"{int(h):02d}:{mi}" for h, mi in _TIME.findall(text))
    if kind == "amounts":
        try:
            return frozenset(_money_amounts(json.loads(text), False, set()))
        except (json.JSONDecodeError, ValueError):
            return frozenset()
    dates: set[str] = set()
    if _MAYBE_ISO.search(text):
        dates.update(f"{y}-{mo}-{d}" for y, mo, d in _ISO.findall(text))
    if any(m in text.lower() for m in _MONTH_STEMS):
        for m in _MONTH_DAY.finditer(text):
            iso = _month_day(m)
            if iso:
                dates.add(iso)
    return frozenset(dates)


def statements_in(text: str, message: int, evidence: Evidence) -> list[Statement]:
    """The checkable statements of one agent message, each judged against the evidence."""
    out: list[Statement] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return all(span[1] <= a or span[0] >= b for a, b in taken)

    def add(kind: str, m: re.Match[str], value: str, supported: bool) -> None:
        taken.append(m.span())
        out.append(Statement(kind, m.group(0).strip(), value, message, supported))

    for m in _MONEY.finditer(text):
        cents = _cents(m.group(1), m.group(2)) if m.group(1) else _cents(m.group(3), m.group(4))
        add("money", m, str(cents), evidence.supports_amount(cents))
    for m in _ISO.finditer(text):
        if free(m.span()):
            iso = m.group(0)
            add("date", m, iso, iso in evidence.dates)
    for m in _MONTH_DAY.finditer(text):
        said = _month_day(m)
        if said and free(m.span()):
            ok = said in evidence.dates if not said.startswith("--") else any(d.endswith(said[1:])
                                                                               for d in evidence.dates)
            add("date", m, said, ok)
    for m in _TIME.finditer(text):
        if free(m.span()):
            hhmm = f"{int(m.group(1)):02d}:{m.group(2)}"
            add("time", m, hhmm, hhmm in evidence.times)
    for m in _ID.finditer(text):
        if free(m.span()):
            add("id", m, m.group(0).lower(), m.group(0).lower() in evidence.tokens)
    for m in _NUMBER.finditer(text):
        if not free(m.span()):
            continue
        cents = _cents(m.group(1), m.group(2))
        if m.group(2) is None and cents <= SMALL * 100:
            continue
        add("number", m, str(cents), evidence.supports_amount(cents))
    return out


def check_statements(agent_messages: Sequence[str], evidence: Evidence) -> StatementReport:
    found: list[Statement] = []
    for i, text in enumerate(agent_messages):
        found.extend(statements_in(text, i, evidence))
    return StatementReport(tuple(found))


def session_evidence(env: Environment, task: Task) -> Evidence:
    """What the agent of a session could know: every tool output, the user's instruction, the policy."""
    tools = env.domain.tool_map
    texts = [r.output for r in env.history]
    texts.append(task.instruction)
    try:
        texts.append(env.domain.policy)
    except OSError:
        pass
    written = [r.output for r in env.history if not r.error and r.call.name in tools and tools[r.call.name].is_write]
    return evidence_of(texts, written)
