"""Typed event payloads over an unchanged wire form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tauplay.cli import main
from tauplay.core.events import (
    Event,
    MessageData,
    NoticeData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
    of_kind,
    payload_errors,
)
from tauplay.core.vocabulary import EventKind, Role


def test_wire_form_of_each_kind_is_what_the_store_has_always_held() -> None:
    assert ToolResultData(call_id="c1", name="x", output="ok", error=False, diff=None, hash="h").wire() == \
        {"call_id": "c1", "name": "x", "output": "ok", "error": False, "diff": None, "hash": "h"}
    assert ToolResultData(call_id="c1", name="x", output="ok", terminal=True).wire()["terminal"] is True
    assert MessageData(content="hi").wire() == {"content": "hi"}
    assert MessageData(content="ok", intent="confirm").wire() == {"content": "ok", "intent": "confirm"}
    assert NoticeData(text="resumed").wire() == {"level": "info", "text": "resumed"}
    assert TerminatedData(reason="user_stop", reward={"reward": 1.0}, faults=[]).wire() == \
        {"reason": "user_stop", "reward": {"reward": 1.0}, "faults": []}
    started = SessionStartedData(domain="airline", task_id="3", start_hash="h0").wire()
    assert started == {"domain": "airline", "task_id": "3", "agent": {}, "user": {}, "emotion": None,
                       "start_hash": "h0"}


def test_reading_an_old_event_keeps_every_key_and_types_the_known_ones() -> None:
    raw = {"seq": 4, "kind": "tool_call", "role": "agent", "turn": 2, "at": 1.5,
           "data": {"call_id": "c", "name": "get_user_details", "arguments": {"user_id": "u"}, "group": 4,
                    "from_a_newer_version": [1, 2]}}
    event = Event.from_json(raw)
    call = event.as_(ToolCallData)
    assert (call.name, call.arguments, call.group) == ("get_user_details", {"user_id": "u"}, 4)
    assert call.extra == {"from_a_newer_version": [1, 2]}
    assert event.to_json() == raw and call.wire() == raw["data"]
    assert event.kind is EventKind.TOOL_CALL and event.role is Role.AGENT


def test_of_kind_walks_one_kind_with_typed_payloads() -> None:
    events = [Event.of(0, Role.AGENT, MessageData(content="Hi")),
              Event.of(1, Role.AGENT, ToolCallData(call_id="a", name="t", arguments={})),
              Event.of(2, Role.ENV, ToolResultData(call_id="a", name="t", output="x"))]
    assert [(e.seq, c.call_id) for e, c in of_kind(events, ToolCallData)] == [(1, "a")]
    assert [m.content for _, m in of_kind(events, MessageData)] == ["Hi"]


@pytest.mark.parametrize(("kind", "data", "field"), [
    ("tool_result", {"output": "x", "error": "maybe"}, "error"),
    ("tool_call", {"name": "t", "arguments": "not an object"}, "arguments"),
    ("message", {"content": ["a", "list"]}, "content"),
])
def test_payload_errors_name_the_field(kind: str, data: dict[str, object], field: str) -> None:
    problem = payload_errors(Event(seq=7, kind=kind, role="env", data=data))  # type: ignore[arg-type]
    assert problem is not None and problem.startswith(f"{kind} event 7: field '{field}'")
    assert payload_errors(Event(seq=7, kind="message", role="user", data={"content": "ok", "extra": 1})) is None


def test_importing_a_session_file_checks_every_payload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = {"format": "tauplay.session/1", "id": None, "domain": "airline", "task_id": "t", "task": {"id": "t"},
            "agent": {}, "user": {}, "events": [
                {"seq": 0, "kind": "message", "role": "agent", "data": {"content": "Hi"}},
                {"seq": 1, "kind": "tool_result", "role": "env", "data": {"output": "x", "error": "yes"}}],
            "labels": [], "reviews": []}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(line) + "\n")
    db = tmp_path / "s.db"
    assert main(["import", "sessions", str(path), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "s.jsonl: line 1, field 'events'[1].data" in err and "'error'" in err
