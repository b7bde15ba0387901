"""Records of the escape-room database.

Five tables. Rooms, their objects and their steps are written by the generator; a session's own progress
(which room it is in, what it has found, what it submitted) is kept in the same records, so the state hash
of a session that solved its room equals the gold end state, whatever order it found things in.

- `rooms` (room id, e.g. 's7-d05-001': seed 7, difficulty 5, room 1 of its tier): title, the scene, what the
  exit panel takes;
- `objects` ('<room>/<object id>'): what can be seen, searched, examined, unlocked, combined or looked up in;
  `found` says whether it is in sight;
- `steps` ('<room>/<step id>'): the room's dependency graph. One step is one tool call that reveals
  something (objects, or one value: a finding); `needs` are the steps whose results it uses, `depth` the
  longest chain of steps ending with it, `done` whether this session has taken it. Values, codes, clue
  texts and gold arguments live here and in `objects`, and no tool shows them before they are revealed;
- `visits` (slot 'current'): the room this session entered;
- `submissions` ('<room>'): the answer given to the exit panel (at most one).
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict  # pydantic validates records typed with it on Python 3.11 too

ObjectKind = Literal["container", "item", "lock", "document", "piece", "decoy"]
StepKind = Literal["object", "number", "word", "date", "text", "answer"]
AnswerKind = Literal["number", "word"]


class Room(TypedDict):
    room_id: str
    title: str
    scene: str
    difficulty: int  # the longest chain of steps, ending with the submission
    answer_kind: AnswerKind
    seed: int
    index: int  # 1-based, within the tier
    attempt: int  # > 0 only when earlier attempts built a room the set already held


class Thing(TypedDict):
    """One object of a room (the table is called `objects`)."""

    id: str  # '<room>/<object id>', the record's key
    room_id: str
    object_id: str
    name: str
    kind: ObjectKind
    description: str
    found: bool  # in sight: from the start, or once the step that reveals it is done
    code: str | None  # locks: the code that opens them (hidden)
    takes: Literal["number", "word"] | None  # locks: what kind of code
    entries: dict[str, str]  # documents: entry -> what is written beside it (hidden)


class Step(TypedDict):
    id: str  # '<room>/<step id>', the record's key
    room_id: str
    step_id: str  # 'S01' ...: numbered in the gold order
    tool: str
    arguments: dict[str, Any]  # the gold call (hidden)
    match: str  # the canonical form of a call that takes this step
    needs: list[str]  # step ids whose results this step uses
    depth: int
    kind: StepKind
    value: str | None  # the finding it reveals (hidden until done); None for object steps
    label: str  # how clues name the finding ('value C', 'the number on the brass plaque')
    hint: str  # the clue that says how to take this step
    hint_after: str | None  # the step whose result shows the clue; None: visible once in the room
    reveals: list[str]  # object ids that come into sight
    done: bool


class Visit(TypedDict):
    slot: str  # 'current'
    room_id: str


class Submission(TypedDict):
    room_id: str
    answer: str  # as the room compares values (puzzles.norm)
    correct: bool
