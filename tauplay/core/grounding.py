"""Which argument values are grounded: said by the user or returned by a tool earlier in the session.

A competent agent may only use a value it has seen. "Seen" is matched the way a person reads: case,
spacing and punctuation do not matter (`one_way` is "one-way", `#W123` is "W123"), a date may be written
another way ("May 28, 2024" is 2024-05-28), a count may be a word ("three bags"), a plain-word value may be
said in its everyday form ("psychiatrists" is the specialty "Psychiatry"), and an amount may be worked out from
amounts in view (two fares and a per-passenger fee add up to the total), as may a sum for the calculator made of
numbers in view, or a check-out a stay's nights after a check-in. Pure functions over text; the session layer
collects the texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"))}
_NUMBER_WORDS.update({"single": 1, "both": 2, "couple": 2, "pair": 2})
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
# Free prose an agent writes itself (a hand-over summary, a note): not a value that has to be seen first.
COMPOSED_PARAMS = frozenset({"summary", "note", "notes", "message", "comment", "comments", "description"})


@lru_cache(maxsize=4096)  # the same outputs are read again at every move
def normalize(text: str) -> str:
    """Lower case, punctuation and separators as single spaces; dots and @ kept inside a token
    (emails, decimals), thousands separators dropped."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    text = re.sub(r"[^a-z0-9@.]+", " ", text)
    text = re.sub(r"(?<![a-z0-9])\.|\.(?![a-z0-9])", " ", text)
    return " ".join(text.split())


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def spellings(value: str) -> list[str]:
    """The ways a person may write `value` (normalized): the value itself and, for an ISO date, the
    usual written forms."""
    out = [normalize(value)]
    m = _ISO_DATE.match(value.strip())
    if m:
        y, mo, d = (int(g) for g in m.groups())
        try:
            date(y, mo, d)
        except ValueError:
            return out
        month = _MONTHS[mo - 1]
        for day in (str(d), _ordinal(d)):
            out += [f"{month} {day} {y}", f"{day} {month} {y}", f"{month[:3]} {day} {y}", f"{day} {month[:3]} {y}"]
        out += [f"{mo:02d} {d:02d} {y}", f"{mo} {d} {y}"]
        # Said without its year ("from January 15 to January 17"): the year is the one of the dates in view.
        for day in (str(d), _ordinal(d)):
            out += [f"{month} {day}", f"{day} {month}", f"{day} of {month}"]
        out = [normalize(o) for o in out]
    out += everyday_forms(value)
    return list(dict.fromkeys(out))


_PLAIN_WORDS = re.compile(r"[A-Za-z][A-Za-z' -]*")


def everyday_forms(value: str) -> list[str]:
    """How a person says a named value of a kind in everyday words (normalized): the plural or singular of its
    last word ("Action Cameras"), the person for a field ("psychiatrists" for "Psychiatry", "pediatrician" for
    "Pediatrics", "psychiatry" for "Psychiatrist"). Only for a value that is plain words (an enum value, a
    specialty, a product kind): never for an id, a code, a number or a date, which are said as they are."""
    if not _PLAIN_WORDS.fullmatch(value.strip()):
        return []
    *head, last = normalize(value).split() or [""]
    if len(last) < 4:
        return []
    consonant_y = last.endswith("y") and last[-2] not in "aeiou"
    if consonant_y:
        forms = [last[:-1] + "ies", last[:-1] + "ist", last[:-1] + "ists"]  # therapy -> therapists
    elif last.endswith(("s", "x", "ch", "sh")):
        forms = [last + "es"]
    else:
        forms = [last + "s"]
    if len(last) >= 5 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        forms.append(last[:-1])  # "cameras" -> "camera"
    if last.endswith("istry"):
        forms += [last[:-2], last[:-2] + "s"]  # dentistry -> dentists
    if last.endswith("ics"):
        forms += [last[:-1] + "ian", last[:-1] + "ians"]  # pediatrics -> pediatricians
    if last.endswith(("ist", "ists")):
        forms.append(last[:last.rindex("ist")] + "y")  # psychiatrists -> psychiatry
    return [" ".join([*head, f]) for f in forms]


def contains(text_normalized: str, value: str, *, padded: bool = False) -> bool:
    """`value` (any spelling) appears in the normalized text as whole tokens (`padded`: the text already
    starts and ends with a space)."""
    hay = text_normalized if padded else f" {text_normalized} "
    return any(s and f" {s} " in hay for s in _spellings(value))


@lru_cache(maxsize=8192)
def _spellings(value: str) -> tuple[str, ...]:
    return tuple(spellings(value))


@lru_cache(maxsize=4096)
def numbers_in(text: str) -> frozenset[float]:
    """Every number written in `text`, as digits or as a small number word."""
    plain = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    found = {float(m.group()) for m in _NUMBER.finditer(plain)}
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _NUMBER_WORDS:
            found.add(float(_NUMBER_WORDS[word]))
    return frozenset(found)


_SAID_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s*(?:dollars|usd)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def amounts_said(text: str) -> frozenset[float]:
    """The amounts of money a person wrote ("$250", "250 dollars")."""
    return frozenset(float((m.group(1) or m.group(2)).replace(",", "")) for m in _SAID_AMOUNT.finditer(text))


def derivable(n: float, pool: set[float], *, max_factor: int = 5) -> bool:
    """`n` is k times a sum of at most three numbers in view (a fare for k passengers, two legs plus a
    fee), or the difference of two: what an agent works out with a calculator, not a number it invents."""
    values = sorted(v for v in pool if v > 0)
    have = set(values)

    def near(x: float) -> bool:
        return any(abs(x - v) < 0.005 for v in have) if not float(x).is_integer() else x in have

    for k in range(1, max_factor + 1):
        t = n / k
        if t <= 0 or (k > 1 and abs(t * k - n) > 0.005):
            continue
        if near(t):
            return True
        for i, a in enumerate(values):
            if a >= t:
                break
            if near(round(t - a, 2)):
                return True
            if len(values) <= 80:
                for b in values[i:]:
                    if a + b >= t:
                        break
                    if near(round(t - a - b, 2)):
                        return True
    return any(near(round(a - n, 2)) for a in values if a > n > 0)


@dataclass
class Evidence:
    """What is in view at one point of a session: the user's words and the tools' outputs."""

    user: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # texts the agent may draw numbers from (its policy)
    # The numbers of a tool output an amount may be worked out from (None: all of them). An agent passes the
    # amounts only (prices, balances), so that a total is never "worked out" from a birth date, a zip code and
    # the day of a flight: with every number in view, almost any amount is some small sum of them.
    amounts_of: Callable[[str], frozenset[float]] | None = None

    def __post_init__(self) -> None:
        self._user = " ".join(normalize(t) for t in self.user)
        self._tools = " ".join(normalize(t) for t in self.tools)
        self._user_numbers: set[float] = set().union(*(numbers_in(t) for t in self.user))
        self._tool_numbers: set[float] = set().union(*(numbers_in(t) for t in self.tools))
        self._known_numbers: set[float] = set().union(*(numbers_in(t) for t in self.known))
        self._tool_amounts: set[float] | None = None if self.amounts_of is None else \
            set().union(*(self.amounts_of(t) for t in self.tools))

    def plus(self, *outputs: str) -> Evidence:
        """This view with more tool outputs (cheap: what is already read is not read again)."""
        more = Evidence.__new__(Evidence)
        more.user, more.tools, more.known = self.user, [*self.tools, *outputs], self.known
        more.amounts_of = self.amounts_of
        more._user, more._user_numbers, more._known_numbers = self._user, self._user_numbers, self._known_numbers
        more._tools = " ".join([self._tools, *(normalize(o) for o in outputs)])
        more._tool_numbers = self._tool_numbers.union(*(numbers_in(o) for o in outputs))
        more._tool_amounts = None if self._tool_amounts is None or self.amounts_of is None else \
            self._tool_amounts.union(*(self.amounts_of(o) for o in outputs))
        return more

    def said_by_user(self, value: Any) -> bool:
        hay = f" {self._user} "
        return all(_scalar_seen(v, hay, self._user_numbers, None) for v in scalars(value))

    def grounded(self, value: Any, *, amount: bool = False) -> bool:
        """Every scalar inside `value` was said by the user, returned by a tool, or (a number) follows from
        numbers in view; an `amount` of money, when the view has `amounts_of`, only from amounts in view."""
        if "_hay" not in self.__dict__:  # built once per view: tool outputs can be long
            self._hay = f" {self._user} {self._tools} "
            self._numbers = self._user_numbers | self._tool_numbers
            self._pool = self._numbers | self._known_numbers
            # amounts only: the tools' money, and the "$50" a person or the policy writes
            self._amounts = None if self._tool_amounts is None else \
                self._tool_amounts.union(*(amounts_said(t) for t in [*self.user, *self.known]))
        pool = self._amounts if amount and self._amounts is not None else self._pool
        return all(_scalar_seen(v, self._hay, self._numbers, pool, self._pool) or self._stay_end(v)
                   for v in scalars(value))

    def _stay_end(self, value: Any) -> bool:
        """`value` is a date a stay's length in view ("4 nights", a package's `"nights": 4`) after a date in view:
        a check-out worked out from the check-in, as a person counts nights on a calendar."""
        if not isinstance(value, str) or not _ISO_DATE.match(value.strip()):
            return False
        if "_nights" not in self.__dict__:
            self._nights = set().union(*(stay_lengths(t) for t in [*self.user, *self.tools]))
        try:
            end = date.fromisoformat(value.strip())
        except ValueError:
            return False
        return any(_scalar_seen((end - timedelta(days=n)).isoformat(), self._hay, self._numbers, None)
                   for n in self._nights)


_MONTH_WORD = "|".join([*_MONTHS, *(m[:3] for m in _MONTHS), "sept"])  # "May", "Jun", "Sept." (not "market")
_DAY_MONTH = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+(" + _MONTH_WORD + r")\b\.?(?:,?\s+(\d{4})\b)?",
                        re.IGNORECASE)
_MONTH_DAY = re.compile(r"\b(" + _MONTH_WORD + r")\b\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?",
                        re.IGNORECASE)
_ISO_IN_TEXT = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _month(word: str) -> int:
    """1-12 for a month's name or its abbreviation ("May", "sept")."""
    return [m[:3] for m in _MONTHS].index(word.lower()[:3]) + 1


def dates_said(texts: Iterable[str], years: Iterable[int]) -> list[str]:
    """The dates a person wrote, as ISO dates, in the order written: "2024-05-20", "May 20th", "20 May 2024". A
    date said without its year takes each of `years` (the years of the dates in view); none when there are none."""
    years = sorted(set(years))
    out: list[str] = []
    for text in texts:
        found: list[tuple[int, int | None, int, int]] = []  # (position, year, month, day)
        for m in _ISO_IN_TEXT.finditer(text):
            found.append((m.start(), int(m.group(1)), int(m.group(2)), int(m.group(3))))
        for m in _MONTH_DAY.finditer(text):
            found.append((m.start(), int(m.group(3)) if m.group(3) else None, _month(m.group(1)), int(m.group(2))))
        for m in _DAY_MONTH.finditer(text):
            found.append((m.start(), int(m.group(3)) if m.group(3) else None, _month(m.group(2)), int(m.group(1))))
        for _, year, month, day in sorted(found):
            for y in ([year] if year is not None else years):
                try:
                    out.append(date(y, month, day).isoformat())
                except ValueError:
                    continue
    return list(dict.fromkeys(out))


_NIGHTS = re.compile(r"\b(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")[\s-]+nights?\b|\"nights\"\s*:\s*(\d{1,2})\b",
                     re.IGNORECASE)


@lru_cache(maxsize=4096)
def stay_lengths(text: str) -> frozenset[int]:
    """The numbers of nights a text names: "4 nights", "four-night", a JSON `"nights": 4` (a stay of 1 to 60)."""
    out = set()
    for m in _NIGHTS.finditer(text):
        said = (m.group(1) or m.group(2)).lower()
        n = int(said) if said.isdigit() else _NUMBER_WORDS[said]
        if 1 <= n <= 60:
            out.add(n)
    return frozenset(out)


def _scalar_seen(v: Any, hay: str, numbers: set[float], pool: set[float] | None,
                 every: set[float] | None = None) -> bool:
    if v is None or isinstance(v, bool):
        return True
    if isinstance(v, int | float):
        if v == 0 or float(v) in numbers:
            return True
        return pool is not None and derivable(float(v), pool)
    s = str(v)
    if not normalize(s):
        return True
    if contains(hay, s, padded=True):
        return True
    # An amount written as text ("68", an expected output) is worked out like a number (74 paid - 6 fee).
    if _NUMERIC.fullmatch(s.strip()):
        return _scalar_seen(float(s), hay, numbers, pool, every)
    # A sum put to a calculator ("30 * 0.11 + 60 * 0.35"): what an agent writes itself from the numbers in view,
    # so every number in it must be in view as it is (not worked out: the sum is the working out).
    if _ARITHMETIC.fullmatch(s) and _OPERATOR.search(s):
        seen = every if every is not None else numbers | (pool or set())
        return all(float(n) in seen for n in re.findall(r"\d+(?:\.\d+)?", s))
    return False


_NUMERIC = re.compile(r"-?\d{1,15}(\.\d{1,6})?")
_ARITHMETIC = re.compile(r"[\d.\s()+\-*/]{3,200}")
_OPERATOR = re.compile(r"\d\s*[+*/]\s*[(\d]|\d\s+-\s+[(\d]|\)\s*[-+*/]")


def scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from scalars(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from scalars(v)
    else:
        yield value


@dataclass(frozen=True)
class Leaf:
    """One scalar inside a call's arguments: `path` as keys and indexes, `name` the nearest key."""

    path: tuple[str | int, ...]
    name: str
    value: Any


def leaves(arguments: dict[str, Any]) -> list[Leaf]:
    out: list[Leaf] = []

    def walk(value: Any, path: tuple[str | int, ...], name: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, (*path, k), k)
        elif isinstance(value, list | tuple):
            for i, v in enumerate(value):
                walk(v, (*path, i), name)
        else:
            out.append(Leaf(path, name, value))

    for k, v in arguments.items():
        walk(v, (k,), k)
    return out


def needs_grounding(leaf: Leaf) -> bool:
    """Prose the agent writes itself does not need to be seen first; every other value does."""
    top = str(leaf.path[0]) if leaf.path else leaf.name
    return top not in COMPOSED_PARAMS and leaf.name not in COMPOSED_PARAMS


def ungrounded(arguments: dict[str, Any], evidence: Evidence,
               money: Callable[[str], bool] | None = None) -> list[Leaf]:
    """The leaves of a call's arguments nobody has said or shown yet, in argument order (`money`: which names
    hold an amount, worked out from amounts only)."""
    return [leaf for leaf in leaves(arguments) if needs_grounding(leaf)
            and not evidence.grounded(leaf.value, amount=bool(money and money(leaf.name)))]


def words(name: str) -> str:
    """A parameter or tool name as words: `payment_method_id` -> "payment method id"."""
    return " ".join(name.replace("_", " ").split())


def mentioned(text: str, values: Iterable[Any]) -> list[Any]:
    """The values (strings) that appear in `text`, matched as `contains` does."""
    hay = normalize(text)
    return [v for v in values if isinstance(v, str) and normalize(v) and contains(hay, v)]


def _stem(word: str) -> str:
    return word[:max(4, len(word) - 2)] if len(word) > 4 else word


def loosely_stated(text: str, phrase: str, *, least: int = 2, gap: int = 3) -> bool:
    """`phrase`'s words said in `text` in order, each in any inflection (the start of its stem begins a word said:
    "needed" in "I no longer need them", "flight" in "flights"), with at most `gap` other words between two of
    them ("move every flight" says "move flight"): how a person recognises words they used, said their own way.
    A phrase of fewer than `least` words is not matched loosely (a single word is matched as it is elsewhere)."""
    stems = [_stem(w) for w in normalize(phrase).split()]
    if not stems or len(stems) < least:
        return False
    said = normalize(text).split()
    for start, word in enumerate(said):
        if not word.startswith(stems[0]):
            continue
        at = start
        for stem in stems[1:]:
            at = next((i for i in range(at + 1, min(len(said), at + gap + 2)) if said[i].startswith(stem)), -1)
            if at < 0:
                break
        else:
            return True
    return False


def values_heard(texts: Iterable[str], value_words: dict[str, tuple[str, ...]]) -> list[str]:
    """The values whose everyday phrases (`Domain.value_words`) someone's words state, loosely as
    `loosely_stated` reads them ("I don't need it anymore" states "don't need": the value "no longer needed")."""
    texts = list(texts)
    return [value for value, phrases in value_words.items()
            if any(loosely_stated(t, p, least=1) for t in texts for p in phrases)]


_SAME_REQUEST = {"book": ("ticket", "tickets", "booking"), "certificate": ("compensation", "compensate", "voucher")}


def names_write(texts: Iterable[str], tool: str, tool_names: Iterable[str], *, loose: bool = False,
                everyday: Iterable[str] = ()) -> bool:
    """Someone's words ask for `tool`: the tool's name as a phrase ("modify pending order items"), a word of
    it that fewer than three of the domain's tools share ("certificate", "cancel"), said in any inflection, or
    one of the domain's `everyday` phrases for it ("upgrade", "change flight")."""
    texts = list(texts)
    if any(loosely_stated(t, p, least=1) for t in texts for p in everyday):
        return True
    def base(word: str) -> str:  # "flights" and "flight" are one word here
        return word[:-1] if word.endswith("s") and len(word) > 4 else word

    names = list(tool_names)
    common = {w for w in {base(w) for t in names for w in normalize(words(t)).split()}
              if sum(w in {base(x) for x in normalize(words(t)).split()} for t in names) >= 3}
    phrase = f" {normalize(words(tool))} "
    said = [f" {normalize(t)} " for t in texts]
    if any(phrase in s for s in said):
        return True
    own = [base(w) for w in normalize(words(tool)).split() if len(w) > 3 and base(w) not in common]
    heard = {w for s in said for w in s.split() if len(w) >= 4}
    # A person's everyday word for the same request ("a ticket" is a booking, "compensation" a certificate).
    if any(w in heard or base(w) in heard for n in own for w in _SAME_REQUEST.get(n, ())):
        return True
    # The same word in another inflection: "cancel" / "cancelled", "certificate" / "certificates".
    if any(w.startswith(n[:max(4, len(n) - 2)]) for w in heard for n in own):
        return True
    # A short form of the word ("bag" for "baggages"), when the caller has dropped everyday words first.
    return loose and any(n.startswith(w) for s in said for w in s.split() if len(w) >= 3 for n in own)
