"""Escape-room tools: 3 read (look around, calculate, think) and 13 write.

Every tool works in the room the session entered. The devices (compute, decode, letter_sum, convert_units,
add_days, date_part, lookup) are real functions, but they only take values you have found in this room: a
value seen on an object, read in a document or made by a device from findings. A call that fits a step of
the room's puzzle reveals that step's result (a write: the step is marked done, objects come into sight);
a call that fits none still answers but reveals nothing; a refused call changes nothing. What a tool shows
never includes a value, code or clue that has not been revealed yet.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError, tool

from . import puzzles
from .puzzles import DatePart, Method, Operation, PuzzleError, Unit, norm
from .rooms import RoomIdError, build_room_by_id, match_key

Record = dict[str, Any]
NOT_FOUND = ("is not among your findings in this room (devices take only values you have found: seen on an "
             "object, read in a document or made by a device; calculate is a scratch pad, not a finding)")


# -- where the session is -------------------------------------------------------------------------------

def current_room(db: State) -> str:
    visit = db.get("visits", "current")
    if visit is None:
        raise ToolError("you are not in a room yet: enter the room the narrator named first (enter_room)")
    return str(visit["room_id"])


def room_steps(db: State, room: str) -> list[Record]:
    return sorted(db.find("steps", "room_id", room), key=lambda s: s["step_id"])


def room_objects(db: State, room: str) -> list[Record]:
    return sorted(db.find("objects", "room_id", room), key=lambda o: o["object_id"])


def findings(db: State, room: str) -> dict[str, Record]:
    """Every value found so far in the room, as compared, with the step that revealed it."""
    return {norm(s["value"]): s for s in room_steps(db, room) if s["done"] and s["value"] is not None}


def _in_sight(db: State, room: str, object_id: str) -> Record:
    oid = str(object_id).strip().lower()
    thing = db.get("objects", f"{room}/{oid}")
    if thing is None or not thing["found"]:
        raise ToolError(f"there is no '{object_id}' in sight (look_around lists what you can see)")
    return thing


def _found(db: State, room: str, value: Any, what: str) -> Record:
    step = findings(db, room).get(norm(value))
    if step is None:
        raise ToolError(f"{what} {value!r} {NOT_FOUND}")
    return step


def _step_for(db: State, room: str, tool_name: str, args: dict[str, Any]) -> Record | None:
    key = match_key(tool_name, args)
    return next((s for s in room_steps(db, room) if s["match"] == key), None)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _clues_after(db: State, room: str, step_id: str | None) -> list[str]:
    return [_sentence(s["hint"]) for s in room_steps(db, room) if s["hint_after"] == step_id]


def _take(db: State, room: str, step: Record) -> list[str]:
    """Mark a step done and bring what it reveals into sight; returns the lines that tell the player."""
    db.edit("steps", f"{room}/{step['step_id']}")["done"] = True
    lines = []
    for oid in step["reveals"]:
        thing = db.edit("objects", f"{room}/{oid}")
        thing["found"] = True
        lines.append(f"You find: {thing['name']} (id {oid}). {thing['description']}".rstrip())
    clues = _clues_after(db, room, step["step_id"])
    if clues:
        lines.append("New clue" + ("s" if len(clues) > 1 else "") + ": " + " ".join(clues))
    return lines


def _finding_line(step: Record) -> str:
    return f"You note {step['label']} = {step['value']}."


def _device_answer(db: State, room: str, tool_name: str, args: dict[str, Any], result: Any) -> str:
    shown = puzzles.number_text(result) if isinstance(result, (int, float)) else str(result)
    step = _step_for(db, room, tool_name, args)
    if step is None or step["value"] is None or norm(step["value"]) != norm(result):
        return f"Result: {shown}. Nothing in the room responds: this fits no clue, so it is not a finding."
    if step["done"]:
        return f"Result: {shown}. You had found this already: {step['label']}."
    return " ".join([f"Result: {shown}.", _finding_line(step), *_take(db, room, step)])


def _guard(func: Any, *args: Any) -> Any:
    try:
        return func(*args)
    except PuzzleError as e:
        raise ToolError(str(e)) from None


# -- the room ----------------------------------------------------------------------------------------------

def _materialize(db: State, room_id: str) -> Record:
    """A room the database does not hold is built from its id and written into this session's state (the
    gold replay builds the same records, so the state hash still compares)."""
    try:
        built = build_room_by_id(room_id)
    except RoomIdError as e:
        raise ToolError(str(e)) from None
    for table, rows in built.tables().items():
        for key, record in rows.items():
            db.insert(table, key, record)
    return built.room


def describe_room(db: State, room: str) -> str:
    record = db.get("rooms", room) or {}
    lines = [f"Room {room}: {record.get('title', '')}.", str(record.get("scene", "")), "You can see:"]
    steps = room_steps(db, room)
    done = {s["step_id"] for s in steps if s["done"]}
    opened = {s["arguments"]["lock_id"] for s in steps if s["tool"] == "open_lock" and s["done"]}
    for thing in room_objects(db, room):
        if thing["found"]:
            state = ""
            if thing["kind"] == "lock":
                state = " [open]" if thing["object_id"] in opened else f" [locked: it takes a {thing['takes']}]"
            lines.append(f"- {thing['object_id']}: {thing['name']}{state}. {thing['description']}".rstrip())
    clues = [_sentence(s["hint"]) for s in steps if s["hint_after"] is None or s["hint_after"] in done]
    lines.append("Clues you have: " + (" ".join(clues) if clues else "none yet."))
    submitted = db.get("submissions", room)
    if submitted is not None:
        lines.append(f"You gave the exit panel: {submitted['answer']}.")
    return "\n".join(lines)


@tool("write")
def enter_room(db: State, room_id: str) -> str:
    """Step into the escape room the narrator named. Everything else happens inside it; a session plays one room.

    Args:
        room_id: The room's id as the narrator gave it, e.g. 's7-d05-001'.
    """
    rid = room_id.strip().lower()
    visit = db.get("visits", "current")
    if visit is not None:
        if visit["room_id"] == rid:
            return "You are already in this room.\n" + describe_room(db, rid)
        raise ToolError(f"you are in room {visit['room_id']}; a session plays one room")
    if db.get("rooms", rid) is None:
        _materialize(db, rid)
    db.insert("visits", "current", {"slot": "current", "room_id": rid})
    return describe_room(db, rid)


@tool("read")
def look_around(db: State) -> str:
    """Describe the room: the objects in sight (with their ids), which locks are open, and every clue found so far.
    Values you have found are not repeated here: keep track of them yourself."""
    return describe_room(db, current_room(db))


def _object_step(db: State, action: str, object_id: str) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """The current room, the object in sight, and the room's step that `action` on it takes (None: none)."""
    room = current_room(db)
    thing = _in_sight(db, room, object_id)
    return room, thing, _step_for(db, room, action, {"object_id": thing["object_id"]})


@tool("write")
def search(db: State, object_id: str) -> str:
    """Search a container in sight (a desk, a trunk, a sack ...) for what is hidden in it.

    Args:
        object_id: The container's id, as look_around shows it.
    """
    room, thing, step = _object_step(db, "search", object_id)
    if step is None:
        return f"You search the {thing['name']}: nothing of use."
    if step["done"]:
        return f"You have searched the {thing['name']} already."
    return " ".join([f"You search the {thing['name']}.", *_take(db, room, step)])


@tool("write")
def examine(db: State, object_id: str) -> str:
    """Read what is written on an object in sight; what you read becomes a finding.

    Args:
        object_id: The object's id, as look_around shows it.
    """
    room, thing, step = _object_step(db, "examine", object_id)
    if step is None:
        if thing["kind"] == "document":
            return f"The {thing['name']} is a list of entries: look one up with lookup."
        return f"Nothing is written on the {thing['name']}."
    head = f"On the {thing['name']}: {step['value']}."
    if step["done"]:
        return f"{head} (already noted as {step['label']})"
    return " ".join([head, _finding_line(step), *_take(db, room, step)])


@tool("write")
def open_lock(db: State, lock_id: str, code: str) -> str:
    """Try a code on a lock in sight; the code must be a value you have found. A wrong code leaves it shut.

    Args:
        lock_id: The lock's id, as look_around shows it.
        code: The number or word to try.
    """
    room = current_room(db)
    thing = _in_sight(db, room, lock_id)
    if thing["kind"] != "lock":
        raise ToolError(f"the {thing['name']} has no lock")
    step = _step_for(db, room, "open_lock", {"lock_id": thing["object_id"]})
    if step is not None and step["done"]:
        return f"The {thing['name']} is open already."
    _found(db, room, code, "the code")
    if step is None or norm(code) != norm(thing["code"]):
        raise ToolError(f"the {thing['name']} stays shut: {code} is not its code")
    return " ".join([f"The {thing['name']} clicks open.", *_take(db, room, step)])


@tool("write")
def combine(db: State, first_id: str, second_id: str) -> str:
    """Put two objects in sight together (two halves of something torn, for instance).

    Args:
        first_id: One object's id.
        second_id: The other object's id.
    """
    room = current_room(db)
    first, second = _in_sight(db, room, first_id), _in_sight(db, room, second_id)
    if first["object_id"] == second["object_id"]:
        raise ToolError("combine needs two different objects")
    step = _step_for(db, room, "combine", {"first_id": first["object_id"], "second_id": second["object_id"]})
    if step is None:
        raise ToolError(f"the {first['name']} and the {second['name']} do not fit together")
    if step["done"]:
        return "You have put these together already."
    return " ".join([f"The {first['name']} and the {second['name']} fit together.", *_take(db, room, step)])


@tool("write")
def lookup(db: State, document_id: str, entry: str) -> str:
    """Look an entry up in a document in sight (a ledger, a codebook, a timetable ...); the entry must be a
    value you have found.

    Args:
        document_id: The document's id, as look_around shows it.
        entry: The word or number to look up.
    """
    room = current_room(db)
    doc = _in_sight(db, room, document_id)
    if doc["kind"] != "document":
        raise ToolError(f"the {doc['name']} is not a document to look things up in")
    _found(db, room, entry, "the entry")
    given = doc["entries"].get(norm(entry))
    if given is None:
        raise ToolError(f"the {doc['name']} has no entry for {entry!r}")
    return _device_answer(db, room, "lookup", {"document_id": doc["object_id"], "entry": entry}, given)


@tool("write")
def compute(db: State, operation: Operation, a: float, b: float) -> str:
    """The room's adding machine: a plus, minus, times, divided by, or modulo b. Both numbers must be findings.

    Args:
        operation: What to do with the two numbers.
        a: The first number.
        b: The second number.
    """
    room = current_room(db)
    _found(db, room, a, "the number")
    _found(db, room, b, "the number")
    result = _guard(puzzles.compute, operation, a, b)
    return _device_answer(db, room, "compute", {"operation": operation, "a": a, "b": b}, result)


@tool("write")
def decode(db: State, text: str, method: Method, key: str | None = None) -> str:
    """The room's cipher wheel: decode a text you have found. caesar moves every letter back by the key (a
    number); vigenere moves letters back by the letters of the key (a word, A=0); atbash swaps A-Z, B-Y ...;
    reverse reads it backwards; a1z26 turns 1-26 (dash-separated) into A-Z; morse reads dots and dashes.

    Args:
        text: The coded text, exactly as found.
        method: The cipher or encoding.
        key: For caesar and vigenere only: the key, a finding.
    """
    room = current_room(db)
    _found(db, room, text, "the text")
    if method in puzzles.KEYED_METHODS:
        if key is None or not str(key).strip():
            raise ToolError(f"the {method} method needs a key")
        _found(db, room, key, "the key")
    result = _guard(puzzles.decode, text, method, key)
    return _device_answer(db, room, "decode", {"text": text, "method": method, "key": key}, result)


@tool("write")
def letter_sum(db: State, word: str) -> str:
    """Add up the alphabet positions of a found word's letters (A=1, B=2 ... Z=26).

    Args:
        word: The word, a finding.
    """
    room = current_room(db)
    _found(db, room, word, "the word")
    result = _guard(puzzles.letter_sum, word)
    return _device_answer(db, room, "letter_sum", {"word": word}, result)


@tool("write")
def convert_units(db: State, value: float, from_unit: Unit, to_unit: Unit) -> str:
    """Convert a found number between units of length, time, mass, volume or temperature.

    Args:
        value: The number, a finding.
        from_unit: The unit the clue reads it in.
        to_unit: The unit to convert to.
    """
    room = current_room(db)
    _found(db, room, value, "the number")
    result = _guard(puzzles.convert, value, from_unit, to_unit)
    return _device_answer(db, room, "convert_units", {"value": value, "from_unit": from_unit, "to_unit": to_unit},
                          result)


@tool("write")
def add_days(db: State, date: str, days: int) -> str:
    """The room's calendar: the date a found number of days after a found date.

    Args:
        date: The date, YYYY-MM-DD, a finding.
        days: How many days later, a finding.
    """
    room = current_room(db)
    _found(db, room, date, "the date")
    _found(db, room, days, "the number")
    result = _guard(puzzles.add_days, date, days)
    return _device_answer(db, room, "add_days", {"date": date, "days": days}, result)


@tool("write")
def date_part(db: State, date: str, part: DatePart) -> str:
    """One part of a found date: its year, month, day of the month, day of the year, or weekday.

    Args:
        date: The date, YYYY-MM-DD, a finding.
        part: Which part.
    """
    room = current_room(db)
    _found(db, room, date, "the date")
    result = _guard(puzzles.date_part, date, part)
    return _device_answer(db, room, "date_part", {"date": date, "part": part}, result)


@tool("write", ends_turn=True)
def submit_answer(db: State, answer: str) -> str:
    """Give the exit panel your answer, a value you have found. One try only: the first answer given is final.

    Args:
        answer: The number or word the exit panel asks for.
    """
    room = current_room(db)
    if db.get("submissions", room) is not None:
        raise ToolError("the exit panel has its answer already (one try only)")
    _found(db, room, answer, "the answer")
    expected = next(s for s in room_steps(db, room) if s["tool"] == "submit_answer")["arguments"]["answer"]
    correct = norm(answer) == norm(expected)
    db.insert("submissions", room, {"room_id": room, "answer": norm(answer), "correct": correct})
    return ("The panel glows green and the door swings open: you have escaped." if correct
            else "The panel glows red. That was not the answer; the door stays shut.")
