"""Building one room from its id: a seeded dependency graph of steps whose longest chain is the difficulty.

The builder works backwards from the answer. Asked for a value at depth L (the longest chain of steps
that ends with the step revealing it), it picks a producer (examine an object, look an entry up in a
document, compute, convert, decode, ...), builds one input at exactly depth L-1 (the spine) and the others
at depth L-1 or less, then works the value out forwards with the same functions the tools run (for a coded
word it picks the word, builds the key, and writes the text the key decodes). Objects at depth 0 are in
sight from the start; deeper ones are hidden in a container, behind a lock, or made by mending two pieces.
Every value in a room is distinct, so a value names the step that revealed it. The builder is builder.py.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from tauplay.core.db import canonical

from . import puzzles
from .builder import Builder
from .parts import Infeasible, _label_letters, _Node
from .parts import hop_depth as hop_depth  # re-exported: solve.py, tests
from .puzzles import PuzzleError, norm
from .vocabulary import TITLES

TIERS = (5, 10, 15, 20, 25)
ROOMS_PER_TIER = 54
MIN_DEPTH, MAX_DEPTH = 2, 40  # a room needs a finding and its submission; beyond 40 nobody plays it
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
    if tool in _KEY_FIELDS:
        return "|".join([tool, *(str(args.get(f)) if f in _AS_GIVEN else norm(args.get(f, "")) for f in _KEY_FIELDS[tool])])
    return tool


# The arguments whose values make a call of these tools a step (compared as the room compares values, but for
# the names of units and date parts, taken as given).
_KEY_FIELDS = {"letter_sum": ("word",), "convert_units": ("value", "from_unit", "to_unit"), "add_days": ("date", "days"),
               "date_part": ("date", "part")}
_AS_GIVEN = frozenset({"from_unit", "to_unit", "part"})


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
