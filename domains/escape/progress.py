"""The room's dependency graph as far as a session has discovered it (the graph panel of this domain).

Without `reveal`, a step is shown once it is done (with what it revealed) or once its clue has been found
(with the clue only); every other step stays out of the list, its value and its clue unseen. With
`reveal` (the session is over) every step is there, in the gold order, hidden ones marked as such.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.db import State
from tauplay.core.progress import NodeStatus, ProgressNode
from tauplay.core.tasks import Task

from .rooms import RoomIdError, build_room_by_id
from .tools import room_steps


def _steps(state: State, room: str, reveal: bool) -> list[dict[str, Any]]:
    steps = room_steps(state, room)
    if not steps and reveal:  # a room built on entry that was never entered: build it to show it
        try:
            steps = list(build_room_by_id(room).steps.values())
        except RoomIdError:
            return []
    return steps


def room_progress(state: State, task: Task, reveal: bool) -> list[ProgressNode]:
    room = str(task.known_info.get("room_id") or "")
    visit = state.get("visits", "current")
    inside = visit is not None and visit["room_id"] == room
    if not inside and not reveal:
        return []
    steps = _steps(state, room, reveal)
    done = {s["step_id"] for s in steps if s["done"]}
    submitted = state.get("submissions", room) if inside else None
    rows = []
    for gold, s in enumerate(steps):
        is_done = s["step_id"] in done or (s["tool"] == "submit_answer" and submitted is not None)
        known = inside and (s["hint_after"] is None or s["hint_after"] in done)
        status: NodeStatus = "done" if is_done else "known" if known else "hidden"
        if status == "hidden" and not reveal:
            continue
        rows.append((gold, s, status, is_done))
    shown = {s["step_id"] for _, s, _, _ in rows}
    nodes = []
    for gold, s, status, is_done in rows:
        label = s["label"] if s["kind"] in ("object", "answer") else f"{s['tool']} → {s['label']}"
        if s["tool"] == "submit_answer":
            detail = (f"gave {submitted['answer']} ({'correct' if submitted['correct'] else 'wrong'})"
                      if submitted is not None else s["hint"])
        elif is_done or reveal:
            detail = f"= {s['value']}" if s["value"] is not None else "found " + ", ".join(s["reveals"])
        else:
            detail = s["hint"]
        needs = tuple(n for n in s["needs"] if n in shown)  # a step not yet discovered is not even named
        nodes.append(ProgressNode(s["step_id"], label, detail, status, int(s["depth"]), needs,
                                  gold if reveal else None))
    return nodes
