"""The escape domain: escape rooms with hidden state, after AgentEscapeBench (16 tools: 3 read, 13 write).

A room is data (domains/escape/rooms.py): objects and findings with hidden state, locks, documents, and a
dependency graph of steps whose longest chain is the room's difficulty (tiers 5, 10, 15, 20, 25). The tools
are real functions that only take what has been found; the answer goes to the exit panel with a write, so
the state-hash reward holds. The other side is a narrator (the domain's scripted user). Designed for
tauplay: names, rooms, clues and policy are this project's own.
"""

from __future__ import annotations

from tauplay.core.domain import Requires, TableSpec

from ..common_domain import declare
from . import faults, tools
from .data_model import Room, Step, Submission, Thing, Visit
from .generator import generate
from .narrator import narrate, premise
from .progress import room_progress
from .rooms import call_key

_IN_ROOM = "everything happens inside the room the narrator named"
ROOM_TOOLS = ("look_around", "search", "examine", "open_lock", "combine", "lookup", "compute", "decode",
              "letter_sum", "convert_units", "add_days", "date_part", "submit_answer")

DOMAIN = declare(
    tools,
    title="Escape rooms",
    tables=[TableSpec("objects", "id", Thing), TableSpec("rooms", "room_id", Room), TableSpec("steps", "id", Step),
            TableSpec("submissions", "room_id", Submission), TableSpec("visits", "slot", Visit)],
    generate=generate,
    # The narrator names the room; everything else is found inside it.
    user_knows=frozenset({"room_id"}),
    rules=[Requires(name, ("enter_room",), _IN_ROOM) for name in ROOM_TOOLS],
    task_sets={"test": "test.json"},
    default_task_set="test",
    confirm_writes=False,  # every step reveals something: a player does not ask permission to search a desk
    agent_preamble=("You are a player locked in an escape room. Find what the exit panel asks for with the "
                    "room's tools, following the clues you find, and give it to the panel."),
    agent_greeting="Hello? Where am I?",
    role_names={"user": "narrator", "agent": "player"},  # the player wakes at the door; the narrator answers with the scene
    scripted_user=narrate,
    narrator_premise=premise,  # an LLM narrator (--user llm) is told this, never the room's hidden state
    progress=room_progress,
    fault_labels=dict(faults.LABELS),
    suggest_faults=faults.suggest,  # from what the tools answered (a refused call says why)
    call_key=call_key,  # 12 + 30 is 30 + 12, "lantern" is LANTERN
    gold_order_matters=False,  # a step taken too early is refused, so every order that works is valid
)
