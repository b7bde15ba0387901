"""Building one room from its id: a seeded dependency graph of steps whose longest chain is the difficulty.

A room id names everything the builder needs: 's7-d05-001' is seed 7, difficulty 5, the first room of that
tier ('-a1' and up when earlier attempts gave a room the set already held). The same id always gives the
same room, so the database of a seed holds its rooms and a room of any other seed is built when entered.

The builder works backwards from the answer. Asked for a value at depth L (the longest chain of steps
that ends with the step revealing it), it picks a producer (examine an object, look an entry up in a
document, compute, convert, decode, ...), builds one input at exactly depth L-1 (the spine) and the others
at depth L-1 or less, then works the value out forwards with the same functions the tools run (for a coded
word it picks the word, builds the key, and writes the text the key decodes). Objects at depth 0 are in
sight from the start; deeper ones are hidden in a container, behind a lock, or made by mending two pieces.
Every value in a room is distinct, so a value names the step that revealed it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from fractions import Fraction
from typing import Any

from tauplay.core.db import canonical

from . import puzzles
from .puzzles import PuzzleError, norm
from .vocabulary import (
    CONTAINERS,
    DECOYS,
    DOCUMENTS,
    ITEMS,
    LOCKS,
    PIECE_SIDES,
    PIECES,
    TITLES,
    WORDS,
)

TIERS = (5, 10, 15, 20, 25)
ROOMS_PER_TIER = 54
MIN_DEPTH, MAX_DEPTH = 2, 40  # a room needs a finding and its submission; beyond 40 nobody plays it
NEST = 1  # reveals in a row that add no hop (a box in a box in a box) before a lock must add one
MAX_NUMBER = 999_999
ROOM_ID = re.compile(r"^s(\d{1,9})-d(\d{2})-(\d{3,6})(?:-a(\d{1,3}))?$")

Record = dict[str, Any]


class RoomIdError(ValueError):
    """Not the id of a room (the message says what one looks like)."""


def room_id(seed: int, depth: int, index: int, attempt: int = 0) -> str:
    rid = f"s{seed}-d{depth:02d}-{index:03d}"
    return rid if attempt == 0 else f"{rid}-a{attempt}"


def parse_room_id(text: str) -> tuple[int, int, int, int]:
    """(seed, depth, index, attempt) of a room id."""
    m = ROOM_ID.match(text.strip())
    if not m:
        raise RoomIdError(f"'{text}' is not a room id (room ids look like 's7-d05-001': seed, difficulty, number)")
    seed, depth, index, attempt = int(m[1]), int(m[2]), int(m[3]), int(m[4] or 0)
    if not MIN_DEPTH <= depth <= MAX_DEPTH or index < 1:
        raise RoomIdError(f"'{text}': difficulty must be {MIN_DEPTH} to {MAX_DEPTH} and the number at least 1")
    return seed, depth, index, attempt


def match_key(tool: str, args: dict[str, Any]) -> str:
    """The canonical form of a call: two calls that take the same step have the same key. The tools and
    the builder both use it, so a gold call is recognised exactly as a player's call would be."""
    def obj(name: str) -> str:
        return str(args.get(name, "")).strip().lower()

    if tool in ("search", "examine"):
        return f"{tool}|{obj('object_id')}"
    if tool == "open_lock":
        return f"open_lock|{obj('lock_id')}"
    if tool == "combine":
        return "combine|" + "|".join(sorted((obj("first_id"), obj("second_id"))))
    if tool == "lookup":
        return f"lookup|{obj('document_id')}|{norm(args.get('entry', ''))}"
    if tool == "compute":
        a, b = norm(args.get("a", "")), norm(args.get("b", ""))
        op = str(args.get("operation"))
        if op in ("add", "multiply"):
            a, b = sorted((a, b))
        return f"compute|{op}|{a}|{b}"
    if tool == "decode":
        method = str(args.get("method"))
        key = norm(args.get("key") or "") if method in puzzles.KEYED_METHODS else ""
        return f"decode|{method}|{norm(args.get('text', ''))}|{key}"
    if tool == "letter_sum":
        return f"letter_sum|{norm(args.get('word', ''))}"
    if tool == "convert_units":
        return f"convert_units|{norm(args.get('value', ''))}|{args.get('from_unit')}|{args.get('to_unit')}"
    if tool == "add_days":
        return f"add_days|{norm(args.get('date', ''))}|{norm(args.get('days', ''))}"
    if tool == "date_part":
        return f"date_part|{norm(args.get('date', ''))}|{args.get('part')}"
    return tool


def call_key(tool: str, args: dict[str, Any]) -> str:
    """What makes two calls the same for fault alignment: the step they take (match_key), and for the
    entrance, a lock and the panel also the room, code or answer they give, compared as the room does."""
    if tool == "enter_room":
        return f"enter_room|{str(args.get('room_id', '')).strip().lower()}"
    if tool == "open_lock":
        return f"{match_key(tool, args)}|{norm(args.get('code', ''))}"
    if tool == "submit_answer":
        return f"submit_answer|{norm(args.get('answer', ''))}"
    if tool in ("look_around", "calculate", "think"):
        return f"{tool}|{canonical(args)}"
    return match_key(tool, args)


# -- the builder's own records ---------------------------------------------------------------------------

def hop_depth(needs: list[tuple[int, str]]) -> int:
    """A step's depth in value-propagation hops, from its needs' (depth, kind): it grows by one over a need
    whose value it consumes (a finding, a code, the answer) and not over one that only revealed an object it
    uses (search, open_lock, combine: kind 'object'); a step that needs nothing is at depth 1."""
    return max([1, *(d + (kind != "object") for d, kind in needs)])


class Infeasible(Exception):
    """This way of making a value or object does not work here (bounds, a value already used)."""


@dataclass
class _Obj:
    id: str
    name: str
    kind: str
    description: str
    found: bool
    revealed_by: int | None = None  # node index
    code: str | None = None
    takes: str | None = None
    entries: dict[str, str] = field(default_factory=dict)
    entry_kind: str = ""  # documents: what their entries are (word, number) and what they give
    gives_kind: str = ""


@dataclass
class _Node:
    tool: str
    arguments: dict[str, Any]
    needs: list[int]
    depth: int
    kind: str
    value: str | None
    label: str
    hint: str
    hint_after: int | None
    reveals: list[str] = field(default_factory=list)


WHAT = {"number": "number", "word": "word", "date": "date", "text": "writing"}
PART_WORDS = {"year": "year", "month": "month (as a number)", "day": "day of the month",
              "day_of_year": "day of the year (1 January is 1)", "weekday": "weekday"}
CONVERSIONS = (("km", "m"), ("m", "cm"), ("cm", "mm"), ("miles", "yards"), ("yards", "feet"), ("feet", "inches"),
               ("weeks", "days"), ("days", "hours"), ("hours", "minutes"), ("minutes", "seconds"),
               ("kilograms", "grams"), ("pounds", "ounces"), ("stone", "pounds"), ("gallons", "quarts"),
               ("quarts", "pints"), ("litres", "millilitres"), ("celsius", "fahrenheit"))
METHODS = (("caesar", 3.0), ("vigenere", 2.0), ("atbash", 1.5), ("reverse", 1.0), ("a1z26", 1.5), ("morse", 1.5))
FIRST_DATE, LAST_DATE = date(1850, 1, 1), date(2030, 12, 31)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _label_letters(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return letters


class Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nodes: list[_Node] = []
        self.objects: list[_Obj] = []
        self.values: list[str] = []  # every value in the room, as compared (norm)
        self.used: set[str] = set()
        self.letters = 0

    # -- transactions: a producer that turns out infeasible leaves nothing behind --------------------------
    def checkpoint(self) -> tuple[int, int, int, int]:
        return len(self.nodes), len(self.objects), len(self.values), self.letters

    def rollback(self, cp: tuple[int, int, int, int]) -> None:
        n, o, v, letters = cp
        del self.nodes[n:], self.objects[o:], self.values[v:]
        self.used = set(self.values)
        self.letters = letters

    def _try(self, options: list[tuple[str, float]], make: Any, what: str) -> Any:
        names, weights = [n for n, _ in options], [w for _, w in options]
        while names:
            i = self.rng.choices(range(len(names)), weights=weights)[0]
            name = names.pop(i)
            weights.pop(i)
            cp = self.checkpoint()
            try:
                return make(name)
            except Infeasible:
                self.rollback(cp)
        raise Infeasible(f"no way to make {what}")

    # -- values ----------------------------------------------------------------------------------------
    def _claim(self, value: str) -> str:
        key = norm(value)
        if key in self.used:
            raise Infeasible(f"value {value} is taken")
        self.used.add(key)
        self.values.append(key)
        return value

    def _fresh(self, kind: str, small: bool = False) -> str:
        for _ in range(200):
            if kind == "number":
                value = str(self.rng.randint(2, 400 if small else 999))
            elif kind == "word":
                value = self.rng.choice(WORDS)
            elif kind == "date":
                span = (LAST_DATE - FIRST_DATE).days
                value = (FIRST_DATE + timedelta(days=self.rng.randint(0, span))).isoformat()
            else:
                raise ValueError(kind)
            if norm(value) not in self.used:
                return self._claim(value)
        raise Infeasible(f"no fresh {kind} left")

    def _label(self) -> str:
        label = f"value {_label_letters(self.letters)}"
        self.letters += 1
        return label

    def _side(self, top: int, zero: bool = False) -> int:
        """The depth of an input that is not the spine: short chains are more common."""
        if zero and self.rng.random() < 0.8:
            return 0
        r = 1
        while r < top and self.rng.random() < 0.15:
            r += 1
        return min(r, top)

    def _node(self, tool: str, arguments: dict[str, Any], values: list[int], objects: list[str], spine: Any,
              kind: str, value: str | None, label: str, hint: str, reveals: list[str] | None = None) -> int:
        needs: list[int] = []
        for i in values:
            if i not in needs:
                needs.append(i)
        for oid in objects:
            by = self.obj(oid).revealed_by
            if by is not None and by not in needs:
                needs.append(by)
        depth = hop_depth([(self.nodes[i].depth, self.nodes[i].kind) for i in needs])
        after = spine if isinstance(spine, int) else self.obj(spine).revealed_by
        self.nodes.append(_Node(tool, arguments, needs, depth, kind, value, label, hint, after, list(reveals or [])))
        index = len(self.nodes) - 1
        for oid in reveals or []:
            self.obj(oid).revealed_by = index
        return index

    def make_value(self, kind: str, depth: int, *, assign: str | None = None, small: bool = False) -> int:
        if depth < 1:
            raise Infeasible("a value needs a step")
        if assign is not None:
            options = [("examine", 3.0)] + ([("lookup", 2.0)] if depth >= 2 else [])
        elif kind == "number":
            options = [("examine", 2.0)]
            if depth >= 2:
                options += [("lookup", 2.0), ("letter_sum", 1.5), ("date_part", 1.5)]
                if not small:
                    options += [("compute", 4.0), ("convert", 2.5)]
        elif kind == "word":
            options = [("examine", 2.0)] + ([("lookup", 2.0), ("decode", 5.0), ("date_part", 0.7)] if depth >= 2 else [])
        elif kind == "date":
            options = [("examine", 2.0)] + ([("lookup", 1.5), ("add_days", 4.0)] if depth >= 2 else [])
        else:
            raise ValueError(f"a {kind} is always written by its consumer")
        node = self._try(options, lambda name: getattr(self, f"_v_{name}")(kind, depth, assign, small),
                         f"a {kind} at depth {depth}")
        assert self.nodes[node].depth == depth, (kind, depth, self.nodes[node].depth)
        return node

    def value_of(self, node: int) -> str:
        value = self.nodes[node].value
        assert value is not None
        return value

    def _v_examine(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        # Examining consumes no value: the item's own depth is the step's (a first step counts 1).
        item = self.make_object("item", depth if depth >= 2 else self.rng.choice((0, 1)))
        value = self._claim(assign) if assign is not None else self._fresh(kind, small)
        name = self.obj(item).name
        return self._node("examine", {"object_id": item}, [], [item], item, kind, value,
                          f"the {WHAT[kind]} on the {name}", f"Something is written on the {name}.")

    def _v_lookup(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        entry_kind = self.rng.choice(("word", "number"))
        if self.rng.random() < 0.6:
            entry = self.make_value(entry_kind, depth - 1)
            doc = self.make_object("document", self._side(depth - 1, zero=True))
            spine: Any = entry
        else:
            doc = self.make_object("document", depth)
            entry = self.make_value(entry_kind, self._side(depth - 1))
            spine = doc
        value = self._claim(assign) if assign is not None else self._fresh(kind, small)
        d = self.obj(doc)
        d.entries[norm(self.value_of(entry))] = value
        d.entry_kind, d.gives_kind = entry_kind, kind
        label, entry_label = self._label(), self.nodes[entry].label
        return self._node("lookup", {"document_id": doc, "entry": self.value_of(entry)}, [entry], [doc], spine,
                          kind, value, label, f"Look {entry_label} up in the {d.name}: what it gives is {label}.")

    def _v_compute(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        a = self.make_value("number", depth - 1)
        b = self.make_value("number", self._side(depth - 1))
        va, vb = int(self.value_of(a)), int(self.value_of(b))
        (x, vx), (y, vy) = sorted(((a, va), (b, vb)), key=lambda p: -p[1])  # x holds the larger value
        ops = [("add", 3.0), ("subtract", 3.0), ("multiply", 2.0), ("modulo", 1.5), ("divide", 1.0)]

        def make(op: str) -> int:
            if op == "multiply" and (vx < 2 or vy < 2 or vx * vy > MAX_NUMBER):
                raise Infeasible("too big")
            if op in ("divide", "modulo") and vy < 2:
                raise Infeasible("divisor too small")
            if op == "divide" and vx % vy:
                raise Infeasible("not exact")
            if op == "modulo" and vx % vy == 0:
                raise Infeasible("no remainder")
            first, second = (a, b) if op in ("add", "multiply") else (x, y)
            result = puzzles.compute(op, float(self.value_of(first)), float(self.value_of(second)))
            if not 1 <= result <= MAX_NUMBER:
                raise Infeasible("out of bounds")
            value = self._claim(puzzles.number_text(result))
            label = self._label()
            la, lb = self.nodes[first].label, self.nodes[second].label
            hint = (f"{label} is the remainder when {la} is divided by {lb}." if op == "modulo"
                    else f"{label} is {la} {puzzles.OPERATION_WORDS[op]} {lb}.")
            return self._node("compute", {"operation": op, "a": int(self.value_of(first)),
                                          "b": int(self.value_of(second))},
                              [first, second], [], a, "number", value, label, hint)

        return int(self._try(ops, make, "an operation"))

    def _v_convert(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        source = self.make_value("number", depth - 1)
        v = Fraction(self.value_of(source))
        pairs = [p for pair in CONVERSIONS for p in (pair, pair[::-1])]
        self.rng.shuffle(pairs)
        for from_unit, to_unit in pairs:
            result = puzzles.convert_exact(v, from_unit, to_unit)
            if result.denominator != 1 or not 1 <= result <= MAX_NUMBER or norm(str(result)) in self.used:
                continue
            value = self._claim(str(result.numerator))
            label = self._label()
            return self._node("convert_units", {"value": int(v), "from_unit": from_unit, "to_unit": to_unit},
                              [source], [], source, "number", value, label,
                              f"{label} is {self.nodes[source].label}, read as {from_unit}, in {to_unit}.")
        raise Infeasible("no exact conversion")

    def _v_letter_sum(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        word = self.make_value("word", depth - 1)
        value = self._claim(str(puzzles.letter_sum(self.value_of(word))))
        label = self._label()
        return self._node("letter_sum", {"word": self.value_of(word)}, [word], [], word, "number", value, label,
                          f"{label} is the letter sum of {self.nodes[word].label} (A=1, B=2 ... Z=26).")

    def _v_date_part(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        day = self.make_value("date", depth - 1)
        parts = ["weekday"] if kind == "word" else ["month", "day", "day_of_year"] + ([] if small else ["year"])
        self.rng.shuffle(parts)
        for part in parts:
            result = puzzles.date_part(self.value_of(day), part)
            if norm(result) in self.used:
                continue
            value = self._claim(str(result))
            label = self._label()
            return self._node("date_part", {"date": self.value_of(day), "part": part}, [day], [], day, kind, value,
                              label, f"{label} is the {PART_WORDS[part]} of {self.nodes[day].label}.")
        raise Infeasible("every part of that date is taken")

    def _v_add_days(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        if self.rng.random() < 0.7:
            day = self.make_value("date", depth - 1)
            count = self.make_value("number", self._side(depth - 1), small=True)
            spine = day
        else:
            count = self.make_value("number", depth - 1, small=True)
            day = self.make_value("date", self._side(depth - 1))
            spine = count
        result = puzzles.add_days(self.value_of(day), int(self.value_of(count)))
        if not "1800" <= result[:4] <= "2100":
            raise Infeasible("date out of range")
        value = self._claim(result)
        label = self._label()
        return self._node("add_days", {"date": self.value_of(day), "days": int(self.value_of(count))}, [day, count],
                          [], spine, "date", value, label,
                          f"{label} is the date that falls {self.nodes[count].label} days after "
                          f"{self.nodes[day].label}.")

    def _v_decode(self, kind: str, depth: int, assign: str | None, small: bool) -> int:
        def make(method: str) -> int:
            plain = self._fresh("word")
            key: int | None = None
            if method in puzzles.KEYED_METHODS:
                key_kind = "number" if method == "caesar" else "word"
                key_first = self.rng.random() < 0.5
                key = self.make_value(key_kind, depth - 1 if key_first else self._side(depth - 1))
                key_value = self.value_of(key)
                if method == "caesar" and int(key_value) % 26 == 0:
                    raise Infeasible("a shift of a whole alphabet")
                coded = puzzles.encode(plain, method, key_value)
                text = self.make_value("text", self._side(depth - 1) if key_first else depth - 1, assign=coded)
                spine = key if key_first else text
            else:
                coded = puzzles.encode(plain, method)
                text = self.make_value("text", depth - 1, assign=coded)
                spine = text
            given = self.value_of(key) if key is not None else None
            assert puzzles.decode(coded, method, given) == plain
            label, text_label = self._label(), self.nodes[text].label
            key_label = self.nodes[key].label if key is not None else ""
            if method == "caesar":
                hint = f"{label}: move every letter of {text_label} back by {key_label} (method caesar)."
            elif method == "vigenere":
                hint = f"{label}: decode {text_label} with the vigenere method, key {key_label}."
            else:
                hint = f"{label}: decode {text_label} with the {method} method."
            arguments: dict[str, Any] = {"text": coded, "method": method}
            if given is not None:
                arguments["key"] = given
            return self._node("decode", arguments, [text] + ([key] if key is not None else []), [], spine, "word",
                              plain, label, hint)

        return int(self._try(list(METHODS), make, "a coded word"))

    # -- objects ---------------------------------------------------------------------------------------
    def obj(self, oid: str) -> _Obj:
        for o in self.objects:
            if o.id == oid:
                return o
        raise KeyError(oid)

    def _new_object(self, kind: str, found: bool, name: str | None = None, oid: str | None = None) -> str:
        names = {o.name for o in self.objects}
        if name is None:
            pool = {"container": CONTAINERS, "item": ITEMS, "lock": LOCKS, "document": DOCUMENTS,
                    "decoy": DECOYS}[kind]
            free = [p for p in pool if p[0] not in names]
            if not free:
                raise Infeasible(f"no {kind} names left")
            name, description = self.rng.choice(free)
        else:
            if name in names:
                raise Infeasible(f"{name} exists")
            description = {"piece": "It is torn from something bigger.",
                           "item": "Mended from two pieces.", "document": "Mended from two pieces."}.get(kind, "")
        ids = {o.id for o in self.objects}
        base = oid or _slug(name)
        oid, n = base, 2
        while oid in ids:
            oid, n = f"{base}_{n}", n + 1
        self.objects.append(_Obj(oid, name, kind, description, found))
        return oid

    def make_object(self, kind: str, depth: int, name: str | None = None, oid: str | None = None,
                    nest: int = 0) -> str:
        """An object whose revealing step is at `depth` (0: in sight from the start). A search or a mend adds
        no hop, so an object deeper than 1 comes from a lock at its depth at most NEST reveals further in."""
        if depth == 0:
            return self._new_object(kind, True, name, oid)
        flat = depth == 1 or nest < NEST  # a reveal of something at the same depth is still allowed
        options = [("search", 4.0)] if flat else []
        if depth >= 2:
            options.append(("unlock", 3.0))
        if kind in ("item", "document") and name is None and flat:
            options.append(("combine", 2.0))
        return str(self._try(options, lambda how: getattr(self, f"_o_{how}")(kind, depth, name, oid, nest),
                             f"a {kind} at depth {depth}"))

    def _o_search(self, kind: str, depth: int, name: str | None, oid: str | None, nest: int) -> str:
        box = self.make_object("container", 0 if depth == 1 else depth, nest=nest + 1)
        new = self._new_object(kind, False, name, oid)
        reveals = [new]
        if self.rng.random() < 0.2:
            reveals.append(self._new_object("decoy", False))
        box_name = self.obj(box).name
        self._node("search", {"object_id": box}, [], [box], box, "object", None, f"search the {box_name}",
                   f"Something is hidden in the {box_name}.", reveals)
        return new

    def _o_unlock(self, kind: str, depth: int, name: str | None, oid: str | None, nest: int) -> str:
        code_kind = self.rng.choice(("number", "word"))
        if self.rng.random() < 0.7 or nest >= NEST:
            code = self.make_value(code_kind, depth - 1)
            lock = self.make_object("lock", self._side(depth - 1, zero=True))
            spine: Any = code
        else:
            lock = self.make_object("lock", depth, nest=nest + 1)
            code = self.make_value(code_kind, self._side(depth - 1))
            spine = lock
        box = self.obj(lock)
        box.code, box.takes = self.value_of(code), code_kind
        new = self._new_object(kind, False, name, oid)
        self._node("open_lock", {"lock_id": lock, "code": self.value_of(code)}, [code], [lock], spine, "object",
                   None, f"open the {box.name}", f"The {box.name} opens with {self.nodes[code].label}.", [new])
        return new

    def _o_combine(self, kind: str, depth: int, name: str | None, oid: str | None, nest: int) -> str:
        names = {o.name for o in self.objects}
        bases = [p for p in PIECES if f"mended {p}" not in names]
        if not bases:
            raise Infeasible("no pieces left")
        base = self.rng.choice(bases)
        sides = self.rng.choice(PIECE_SIDES)
        ids = [f"{_slug(base)}_{side.split()[0]}" for side in sides]
        first = self.make_object("piece", 0 if depth == 1 else depth, f"{sides[0]} of a torn {base}", ids[0],
                                 nest=nest + 1)
        second = self.make_object("piece", self._side(depth - 1, zero=True), f"{sides[1]} of a torn {base}", ids[1])
        new = self._new_object(kind, False, f"mended {base}", f"mended_{_slug(base)}")
        a, b = self.obj(first).name, self.obj(second).name
        self._node("combine", {"first_id": first, "second_id": second}, [], [first, second], first, "object", None,
                   f"mend the {base}", f"The {a} and the {b} fit together.", [new])
        return new

    # -- the room --------------------------------------------------------------------------------------
    def submit(self, answer: int) -> int:
        label = self.nodes[answer].label
        return self._node("submit_answer", {"answer": self.value_of(answer)}, [answer], [], answer, "answer", None,
                          "the answer", f"{label[0].upper() + label[1:]} is what the exit panel asks for.")

    def decoys(self) -> None:
        for _ in range(self.rng.randint(1, 3)):
            try:
                self._new_object("decoy", True)
            except Infeasible:
                break
        for doc in self.objects:
            if doc.kind != "document":
                continue
            for _ in range(self.rng.randint(3, 6)):
                cp = self.checkpoint()
                try:  # claimed like any value, so no two entries or values collide; then released
                    gives = "word" if doc.gives_kind in ("text", "") else doc.gives_kind
                    key, given = self._fresh(doc.entry_kind or "word"), self._fresh(gives)
                except Infeasible:
                    self.rollback(cp)
                    break
                doc.entries.setdefault(norm(key), given)
        # Decoy entries stay claimed: no later value of this room may equal one.


@dataclass(frozen=True)
class BuiltRoom:
    room: Record
    objects: dict[str, Record]  # keyed '<room>/<object id>'
    steps: dict[str, Record]  # keyed '<room>/<step id>', in gold order

    @property
    def room_id(self) -> str:
        return str(self.room["room_id"])

    def tables(self) -> dict[str, dict[str, Record]]:
        return {"rooms": {self.room_id: self.room}, "objects": dict(self.objects), "steps": dict(self.steps)}

    def fingerprint(self) -> str:
        """What makes two rooms the same puzzle: the calls of their steps and what each reveals."""
        return canonical([[s["tool"], s["arguments"], s["value"]] for s in self.steps.values()])


def gold_order(nodes: list[_Node], last: int) -> list[int]:
    """Every node the last one needs, each after what it needs (depth-first, inputs in order)."""
    order: list[int] = []
    seen: set[int] = set()

    def visit(i: int) -> None:
        if i in seen:
            return
        seen.add(i)
        for j in nodes[i].needs:
            visit(j)
        order.append(i)

    visit(last)
    return order


_VALUE_LABEL = re.compile(r"\b([Vv]alue) ([A-Z]+)\b")


def _letters_in_order(nodes: list[_Node], order: list[int]) -> None:
    """Name the values A, B, C ... in the order a player meets them (the builder named them as it went)."""
    letters: dict[str, str] = {}
    for i in order:
        m = _VALUE_LABEL.fullmatch(nodes[i].label)
        if m:
            letters[m[2]] = _label_letters(len(letters))

    def rename(m: re.Match[str]) -> str:
        return f"{m[1]} {letters.get(m[2], m[2])}"

    for n in nodes:
        n.label = _VALUE_LABEL.sub(rename, n.label)
        n.hint = _VALUE_LABEL.sub(rename, n.hint)


def build_room(seed: int, depth: int, index: int, attempt: int = 0) -> BuiltRoom:
    """The room with this id. Deterministic: string-seeded random generator, tuples only, no clock."""
    rid = room_id(seed, depth, index, attempt)
    if not MIN_DEPTH <= depth <= MAX_DEPTH:
        raise RoomIdError(f"difficulty must be {MIN_DEPTH} to {MAX_DEPTH}, got {depth}")
    for retry in range(50):  # a dead end anywhere restarts the room from its own next stream
        rng = random.Random(f"tauplay-escape:{seed}:{depth}:{index}:{attempt}:{retry}")
        b = Builder(rng)
        answer_kind = rng.choice(("number", "word"))
        try:
            answer = b.make_value(answer_kind, depth - 1)
            last = b.submit(answer)
            b.decoys()
        except Infeasible:
            continue
        break
    else:  # pragma: no cover - never seen: every depth has a producer that always works
        raise RuntimeError(f"room {rid} could not be built")
    if b.nodes[last].depth != depth:
        raise AssertionError(f"room {rid}: depth {b.nodes[last].depth}, not {depth}")
    order = gold_order(b.nodes, last)
    step_ids = {node: f"S{i + 1:02d}" for i, node in enumerate(order)}
    _letters_in_order(b.nodes, order)
    title, flavour = TITLES[rng.randrange(len(TITLES))]
    scene = (f"You are shut in {title}. {flavour} A panel by the door asks for a single {answer_kind}; "
             "give it the right one and the door opens. It takes one try only.")
    room: Record = {"room_id": rid, "title": title[0].upper() + title[1:], "scene": scene, "difficulty": depth,
                    "answer_kind": answer_kind, "seed": seed, "index": index, "attempt": attempt}
    objects: dict[str, Record] = {}
    for o in b.objects:
        description = o.description
        if o.kind == "document":
            description = f"{description} Entries are looked up one at a time.".strip()
        objects[f"{rid}/{o.id}"] = {"id": f"{rid}/{o.id}", "room_id": rid, "object_id": o.id, "name": o.name, "kind": o.kind,
                                    "description": description, "found": o.found, "code": o.code,
                                    "takes": o.takes, "entries": dict(sorted(o.entries.items()))}
    steps: dict[str, Record] = {}
    for node in order:
        n = b.nodes[node]
        sid = step_ids[node]
        steps[f"{rid}/{sid}"] = {
            "id": f"{rid}/{sid}", "room_id": rid, "step_id": sid, "tool": n.tool, "arguments": n.arguments,
            "match": match_key(n.tool, n.arguments), "needs": [step_ids[j] for j in n.needs], "depth": n.depth,
            "kind": n.kind, "value": n.value, "label": n.label, "hint": n.hint[:1].upper() + n.hint[1:],
            "hint_after": step_ids[n.hint_after] if n.hint_after is not None else None,
            "reveals": list(n.reveals), "done": False}
    return BuiltRoom(room, objects, steps)


def build_room_by_id(text: str) -> BuiltRoom:
    return build_room(*parse_room_id(text))


def check_room(built: BuiltRoom) -> None:
    """The puzzle is consistent with the functions the tools run; AssertionError names what is not."""
    for key, step in built.steps.items():
        if step["tool"] in ("compute", "convert_units", "letter_sum", "date_part", "add_days", "decode"):
            args = step["arguments"]
            try:
                result = _device(step["tool"], args)
            except PuzzleError as e:
                raise AssertionError(f"{key}: {e}") from None
            assert norm(result) == norm(step["value"]), (key, result, step["value"])


def _device(tool: str, args: dict[str, Any]) -> Any:
    if tool == "compute":
        return puzzles.compute(args["operation"], args["a"], args["b"])
    if tool == "convert_units":
        return puzzles.convert(args["value"], args["from_unit"], args["to_unit"])
    if tool == "letter_sum":
        return puzzles.letter_sum(args["word"])
    if tool == "date_part":
        return puzzles.date_part(args["date"], args["part"])
    if tool == "add_days":
        return puzzles.add_days(args["date"], args["days"])
    return puzzles.decode(args["text"], args["method"], args.get("key"))
