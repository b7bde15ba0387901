"""The room builder behind rooms.build_room (rooms.py says how it works)."""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from typing import Any

from . import puzzles
from .parts import (
    CONVERSIONS,
    FIRST_DATE,
    LAST_DATE,
    MAX_NUMBER,
    METHODS,
    NEST,
    PART_WORDS,
    WHAT,
    Infeasible,
    _label_letters,
    _Node,
    _Obj,
    _slug,
    find_object,
    hop_depth,
    new_object,
)
from .puzzles import norm
from .vocabulary import (
    PIECE_SIDES,
    PIECES,
    WORDS,
)


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
        return find_object(self.objects, oid)

    def _new_object(self, kind: str, found: bool, name: str | None = None, oid: str | None = None) -> str:
        return new_object(self.objects, self.rng, kind, found, name, oid)

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
