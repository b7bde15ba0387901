"""Which of several choices a catalogue shows the person means: a product's variants, keyed by item id, each
described by its options ({"size": "10", "material": "synthetic", "waterproof": "yes"}). A write whose value is
one of them (the new item of an exchange) takes the one the person's words single out, never the task's own.

A person says a variant by its option values in their own words: "waterproof" for waterproof: yes, "not
waterproof" or "non-waterproof" for no, "1000 ml" for 1000ml, "2 liters" for 2L, "10-inch" for 10-inch, "size L"
or "large" for L. What they said of the item they have (its options, in the same words) does not pick a new one:
a variant is meant when something they said sets it apart from that item, and among those the one holding more
of what they said, said closer together ("size 10, synthetic, waterproof"); an option they never spoke to stays
as the item they have. The answer to the question "Which one would you like" narrows first.

Pure functions over the tools' JSON outputs and the person's words; the gated agent asks and picks
(`tauplay.sim.gated`), the scripted user answers from its instruction (`tauplay.sim.scripted_user`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tauplay.core.grounding import leaves

QUESTION = "Which one would you like"
_SHOWN = 6  # the variants a question lists at most (each by the options that tell them apart)
_GAP = 40  # words between two messages: what is said in one joins what is said in another only loosely

_UNITS = {"l": "l", "liter": "l", "liters": "l", "litre": "l", "litres": "l", "ml": "ml", "milliliter": "ml",
          "milliliters": "ml", "inch": "inch", "inches": "inch", "in": "inch", "ft": "ft", "feet": "ft",
          "foot": "ft", "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour", "h": "hour", "lb": "lb",
          "lbs": "lb", "pound": "lb", "pounds": "lb", "cup": "cup", "cups": "cup", "gb": "gb", "tb": "tb",
          "mp": "mp", "megapixel": "mp", "megapixels": "mp", "mah": "mah", "w": "w", "watt": "w", "watts": "w",
          "degree": "degree", "degrees": "degree", "mm": "mm", "bar": "bar", "x": "x", "k": "k", "p": "p",
          "piece": "piece", "pieces": "piece", "ml.": "ml"}
_WORDS = {"gray": "grey", "wifi": "wi fi", "colour": "color"}
_NEG = frozenset({"not", "non", "no", "without"})
_YES = frozenset({"yes", "true"})
_NOS = frozenset({"no", "none", "false", "not resistant"})
_SIZES = {"xs": "extra small", "s": "small", "m": "medium", "l": "large", "xl": "extra large",
          "xxl": "extra extra large"}
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+")
_NAME = re.compile(r"[A-Z][a-z]+")
_NAME_BEFORE = re.compile(r"(?<![.!?]\s)\b[A-Z][a-z]+ $")


@dataclass(frozen=True)
class _Words:
    """A text as comparable words, each with where it stands in the text."""

    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    text: str


def _words(text: str) -> _Words:
    plain = re.sub(r"'s\b|'", "", text)
    plain = re.sub(r"\S+@\S+", lambda m: " " * len(m.group()), plain)  # an e-mail says no option ("anya.brown88")
    low = plain.lower()
    tokens: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in _TOKEN.finditer(low):
        word = m.group()
        if _NAME.fullmatch(plain[m.start():m.end()]) and _NAME_BEFORE.search(plain[:m.start()]):
            word = "_"  # the second word of a name ("Anya Brown") is no colour
        if tokens and tokens[-1][0].isdigit() and word in _UNITS:
            word = _UNITS[word]  # a unit after a number: "2 liters" and "2L" alike
        for part in _WORDS.get(word, word).split():
            tokens.append(part)
            spans.append(m.span())
    return _Words(tuple(tokens), tuple(spans), plain)


def _forms(key: str, value: str) -> list[tuple[tuple[str, ...], bool]]:
    """The runs of words that say this option, each with whether it needs no negation before it ("waterproof"
    says waterproof: yes only when no "not" comes before)."""
    name = _words(key).tokens
    names = [name] + ([(*name[:-1], "resistant")] if name and name[-1] == "resistance" else [])
    low = value.strip().lower()
    if low in _YES:
        return [(n, True) for n in names] + [(("with", *n), False) for n in names]
    if low in _NOS:
        said = [((neg, *n), False) for n in names for neg in sorted(_NEG)]
        return said + ([(_words(value).tokens, False)] if " " in low else [])  # "not resistant"; never a bare "no"
    own = _words(value).tokens
    if low in _SIZES:
        return [(("size", low), False), (tuple(_SIZES[low].split()), False)]
    return [(own, True)] if own else []


def _at(run: tuple[str, ...], words: _Words, plain: bool) -> list[int]:
    """Where the run of words stands in the text (a bare number not followed by a unit: "size 10", not "10-inch";
    a plain form not after a negation)."""
    n, toks = len(run), words.tokens
    out = []
    for i in range(len(toks) - n + 1):
        if toks[i:i + n] != run:
            continue
        if plain and i > 0 and toks[i - 1] in _NEG:
            continue
        if n == 1 and run[0][0].isdigit() and i + 1 < len(toks) and toks[i + 1] in _UNITS.values():
            continue
        out.append(i)
    return out


def _said(options: Mapping[str, Any], words: _Words) -> dict[str, list[tuple[int, int]]]:
    """option key -> where its value is said (start, end in words)."""
    found: dict[str, list[tuple[int, int]]] = {}
    for key, value in options.items():
        for run, plain in _forms(key, str(value)):
            for i in _at(run, words, plain):
                found.setdefault(key, []).append((i, i + len(run)))
    return found


def _span(found: Mapping[str, list[tuple[int, int]]]) -> int:
    """The fewest words in a row holding one saying of every option found."""
    best: int | None = None
    for start in sorted({b for spots in found.values() for b, _ in spots}):
        ends = [min((e for b, e in spots if b >= start), default=None) for spots in found.values()]
        if all(e is not None for e in ends):
            length = max(e for e in ends if e is not None) - start
            best = length if best is None else min(best, length)
    return best if best is not None else 1 << 20


def _joined(texts: Sequence[str]) -> _Words:
    gap = " " + " ".join(["zz"] * _GAP) + " "
    return _words(gap.join(texts))


def _options(record: Any) -> dict[str, Any]:
    options = record.get("options") if isinstance(record, dict) else None
    return options if isinstance(options, dict) else {}


def _sentences(texts: Sequence[str]) -> list[str]:
    return [s for t in texts for s in re.split(r"(?<=[.!?;])\s+", t) if s.strip()]


def best(choices: Mapping[str, Any], texts: Sequence[str], have: Mapping[str, Any] | None = None,
         answers: Sequence[str] = (), theirs: Sequence[Mapping[str, Any]] = (), keep: bool = True) -> list[str]:
    """The ids among `choices` (id -> a variant with its `options`) that fit what the person said best (empty when
    nothing they said sets any apart from the item they `have`, its options):
    - those the words of their last answer to the question fit (every option it says; none fits: none), and of
      the earlier answers, those that keep some;
    - then, in the sentence that speaks of the item they have most (the latest of equals) among those that set a
      variant apart from it (an option said with another value than theirs), the ones holding the most of what
      it says, said closest together (a sentence that speaks more of another item of theirs of the same product,
      `theirs` by its options, is about that item's change: "exchange my 60% RGB keyboard for ...", unless it
      answers the question);
    - then the ones holding more of everything they said; then (`keep`) those keeping more of the options of the
      item they have that they did not speak to ("the 8-inch version" of a 6-inch Wi-Fi one is 8-inch Wi-Fi)."""
    ids = list(choices)
    for n, answer in enumerate(reversed(answers)):
        heard = {i: set(_said(_options(choices[i]), _words(answer))) for i in ids}
        spoken = set().union(*heard.values()) if heard else set()
        narrowed = [i for i in ids if all(k in heard[i] for k in spoken)]
        if spoken and (narrowed or n == 0):  # all the last answer says (none on offer fits: none), then the others'
            ids = narrowed
    mine = {str(k): str(v) for k, v in (have or {}).items()}
    chosen: tuple[int, int, list[str]] | None = None
    told = _sentences(texts)
    for n, sentence in enumerate([*told, *_sentences(answers)]):
        found = _credited(choices, ids, _words(sentence), mine)
        apart = [i for i in ids if any(str(_options(choices[i]).get(k)) != mine.get(k) for k in found[i])]
        if not apart:
            continue
        top = max(len(found[i]) for i in apart)
        ranked = [i for i in apart if len(found[i]) == top]
        near = min(_span(found[i]) for i in ranked)
        ranked = [i for i in ranked if _span(found[i]) == near]
        about = len(_said(mine, _words(sentence)))  # how much of the item they have this sentence speaks of
        if n < len(told) and any(len(_said(other, _words(sentence))) > about for other in theirs):
            continue
        if chosen is None or (about, n) >= chosen[:2]:
            chosen = (about, n, ranked)
    if chosen is None:
        return []
    ranked = chosen[2]
    everything = _joined([*texts, *answers])
    rules = [lambda i, f: len(f), lambda i, f: sum(1 for k, v in _options(choices[i]).items()
                                                   if k not in f and mine.get(k) == str(v))]
    for score in rules if keep else rules[:1]:
        if len(ranked) < 2:
            break
        said = _credited(choices, ranked, everything, mine)
        scores = {i: score(i, said[i]) for i in ranked}
        ranked = [i for i in ranked if scores[i] == max(scores.values())]
    return ranked


def _credited(choices: Mapping[str, Any], ids: Sequence[str], words: _Words,
              mine: Mapping[str, str]) -> dict[str, dict[str, list[tuple[int, int]]]]:
    """`_said` of each variant, without an option said with the value of the item they have where another value
    of it is said too ("from plain to graphic": plain is the one they have, not one they want)."""
    found = {i: _said(_options(choices[i]), words) for i in ids}
    other = {k for i in ids for k in found[i] if str(_options(choices[i]).get(k)) != mine.get(k)}
    return {i: {k: v for k, v in f.items() if not (k in other and str(_options(choices[i]).get(k)) == mine.get(k))}
            for i, f in found.items()}


def _said_by_key(choices: Mapping[str, Any], words: _Words) -> dict[str, set[str]]:
    return {i: set(_said(_options(c), words)) for i, c in choices.items()}


def _keys_spoken(heard: Mapping[str, set[str]]) -> set[str]:
    return set().union(*heard.values()) if heard else set()


def variants(outputs: Sequence[str], value: str) -> dict[str, Any]:
    """The records a tool output keys by id beside `value`, each with its options (a product's variants:
    id -> {options, available, price}), when there are two or more and `value` is one of them (else {}); the
    newest output first."""
    def find(data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            if value in data and len(data) >= 2 and all(_options(v) for v in data.values()):
                return data
            for v in data.values():
                if found := find(v):
                    return found
        elif isinstance(data, list):
            for v in data:
                if found := find(v):
                    return found
        return {}
    for output in reversed(outputs):
        try:
            data = json.loads(output)
        except (json.JSONDecodeError, TypeError):
            continue
        if found := find(data):
            return found
    return {}


def _option_words(key: str, value: Any) -> str:
    low = str(value).strip().lower()
    name = key.replace("_", " ")
    if low in _YES:
        return name
    if low in _NOS:
        return f"no {name}" if low == "none" else f"not {name}" if low == "no" else str(value)
    if low.replace(".", "").isdigit() or len(low) <= 2 or (low[:1].isdigit() and low.endswith("x")):
        return f"{name} {value}"
    return str(value)


def question(choices: Mapping[str, Any], shown: Sequence[str], have: Any = None) -> str:
    """"Which one would you like instead of yours (size 11, leather, waterproof): 1615379700 (size 10, synthetic),
    4582956489 (size 9, leather) or ...?": each by the options that tell the ones listed apart (all of them when
    there is one), at most `_SHOWN`; the item they have (`have`, a variant) by all its options."""
    listed = sorted(list(shown)[:_SHOWN], key=lambda i: [str(v) for v in _options(choices[i]).values()])
    keys = [k for k in dict.fromkeys(k for i in listed for k in _options(choices[i]))
            if len({str(_options(choices[i]).get(k)) for i in listed}) > 1] or \
        list(dict.fromkeys(k for i in listed for k in _options(choices[i])))
    named = [f"{i} ({', '.join(_option_words(k, _options(choices[i])[k]) for k in keys if k in _options(choices[i]))})"
             for i in listed]
    more = len(shown) - len(listed)
    listed_text = f"{', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else named[0]
    tail = f" (or {more} more: tell me what you would like)" if more > 0 else ""
    mine = _options(have)
    instead = f" instead of yours ({', '.join(_option_words(k, v) for k, v in mine.items())})" if mine else ""
    return f"{QUESTION}{instead}: {listed_text}{tail}?"


def asked(text: str, choices: Mapping[str, Any]) -> list[str]:
    """The ids of `choices` a question of ours lists (none when `text` is no such question)."""
    if QUESTION not in text:
        return []
    return [i for i in choices if i in text.split(":", 1)[-1]]


def replaced(text: str, choices: Mapping[str, Any]) -> dict[str, Any]:
    """The options of the item a question of ours says the person has ("instead of yours (...)"), else {}."""
    m = re.search(r"instead of yours \(([^)]*)\)", text)
    if m is None:
        return {}
    for record in choices.values():
        mine = _options(record)
        if mine and ", ".join(_option_words(k, v) for k, v in mine.items()) == m.group(1):
            return mine
    return {}


def in_words(choices: Mapping[str, Any], wanted: str, text: str) -> str:
    """The words of `text` (an instruction) that say the options of the variant `wanted` ("size 10, synthetic,
    waterproof"), in the order said, each once; "" when it says none."""
    words = _words(text)
    found = _said(_options(choices[wanted]), words)
    if not found:
        return ""
    # the saying of each option nearest the others (the shortest stretch holding one of each)
    starts = sorted({b for spots in found.values() for b, _ in spots})
    best_window: tuple[int, list[tuple[int, int]]] | None = None
    for start in starts:
        picks = [min((s for s in spots if s[0] >= start), default=None) for spots in found.values()]
        if all(p is not None for p in picks):
            chosen = [p for p in picks if p is not None]
            length = max(e for _, e in chosen) - start
            if best_window is None or length < best_window[0]:
                best_window = (length, chosen)
    chosen = best_window[1] if best_window else [spots[0] for spots in found.values()]
    phrases = []
    for b, e in sorted(chosen):
        # with the option's name said just before it ("zoom 3x", "size 10")
        key = next(k for k, spots in found.items() if (b, e) in spots)
        name = _words(key).tokens
        if name and b >= len(name) and words.tokens[b - len(name):b] == name:
            b -= len(name)
        phrases.append(words.text[words.spans[b][0]:words.spans[e - 1][1]])
    return ", ".join(dict.fromkeys(phrases))


@dataclass(frozen=True)
class Unsettled:
    """A write's value that is one of several choices the person has not singled out: what to ask about."""

    choices: dict[str, Any]  # id -> the variant (those they may choose: available, not the item they have)
    shown: list[str]  # the ones to list, best fitting first
    have: Any  # the item they have, swapped out (its variant), when the write names one
    gone: str = ""  # the one they described, by its options, when it is not available


def _set(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _set(v, rest, new) if k == step else v for k, v in value.items()}
    if isinstance(value, list):
        return [_set(v, rest, new) if i == step else v for i, v in enumerate(value)]
    return value


def settle(arguments: dict[str, Any], outputs: Sequence[str], texts: Sequence[str], answers: Sequence[str],
           said: Any) -> tuple[dict[str, Any], Unsettled | None]:
    """The write's `arguments` with each value that is one of a catalogue's choices (a new item among a product's
    variants) as the person's words pick it (`best`), and the first one they do not single out (else None).
    A value they said (`said(value)`: its id) stands; so does one a record of theirs shows (the item swapped
    out), and one no catalogue shows with others."""
    found = [leaf for leaf in leaves(arguments) if isinstance(leaf.value, str)]
    values = {leaf.value for leaf in found}
    out = arguments
    for leaf in found:
        value = leaf.value
        table = variants(outputs, value)
        if len(table) < 2 or said(value):
            continue
        new = "new" in leaf.name.split("_")
        if not new and any(f'"{value}"' in o and not variants([o], value) for o in outputs):
            continue  # a record of theirs shows it: the item they have
        # the item swapped out: the value at the same place of another list of the write, of the same product
        have = next((o.value for o in found if o is not leaf and o.path[1:] == leaf.path[1:] and o.value in table
                     and o.path[:1] != leaf.path[:1]), None)
        if have == value:
            continue  # the same item again
        pool = {k: v for k, v in table.items() if k == value or k not in values}
        open_ = {k: v for k, v in pool.items() if not isinstance(v, dict) or v.get("available", True) is not False}
        named = [k for k in open_ if k != value and said(k)]
        if named:
            out = _set(out, leaf.path, named[-1])
            continue
        # their other items of this product (their records show them), by their options
        theirs = [_options(v) for k, v in table.items() if k != have
                  and any(f'"{k}"' in o and not variants([o], k) for o in outputs)]
        mine = _options(table.get(have)) if have else None
        ranked = best(open_, texts, mine, answers, theirs)
        # the one they describe is not on offer (sold out): said so, never another one taken in its place
        # (once they answered the question, by what they answered)
        every = best({k: v for k, v in pool.items() if k != have}, [] if answers else texts, mine, answers, theirs,
                     keep=False)
        if len(every) == 1 and every[0] not in open_:
            gone = ", ".join(_option_words(k, v) for k, v in _options(table[every[0]]).items())
            return out, Unsettled(open_, list(open_), table.get(have) if have else None, gone)
        if len(ranked) == 1:
            out = _set(out, leaf.path, ranked[0])
            continue
        return out, Unsettled(open_, ranked or list(open_), table.get(have) if have else None)
    return out, None


def described(choices: Mapping[str, Any], wanted: str, text: str, have: Mapping[str, Any] | None = None) -> str:
    """The words of `text` (an instruction) that say the options of the variant `wanted`, from the sentence that
    says most of what sets it apart from the item they `have`, then most of its options, then most of the item
    they have: "size 10, synthetic, waterproof"; "" when none does."""
    mine = {str(k): str(v) for k, v in (have or {}).items()}
    found: tuple[int, int, int, str] | None = None
    for sentence in _sentences([text]):
        said = _credited(choices, list(choices), _words(sentence), mine)[wanted]
        new = sum(1 for k in said if str(_options(choices[wanted]).get(k)) != mine.get(k))
        rank = (new, len(said), len(_said(mine, _words(sentence))))
        if said and (found is None or rank > found[:3]):
            found = (*rank, sentence)
    return in_words(choices, wanted, found[3]) if found else ""
