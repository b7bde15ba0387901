"""One event renderer, one diff renderer, one fault label: the play transcript, the review log, `review --show` and
`compare` read every event from tauplay.core.display's parts, the screens and compare show a record change from
the same parts (money to the cent), and a label says how it stands in one vocabulary. Text from models and tools
stays literal in every view."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from tauplay.core.db import FieldChange, RecordChange
from tauplay.core.display import PartKind, change_parts, change_plain, event_parts, tag, transcript_plain
from tauplay.core.events import (
    Event,
    InjectionData,
    MessageData,
    NoticeData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
)
from tauplay.core.labels import FaultLabel
from tauplay.core.text import visible
from tauplay.core.vocabulary import AnnotationSource, LabelState, NoticeAbout, Role
from tauplay.tui.widgets.changes import change_lines
from tauplay.tui.widgets.review_log import transcript_lines
from tauplay.tui.widgets.transcript import event_lines

HOSTILE = "[b]bold?[/b] [link=http://x]y[/link] \x1b[31mred\x1b[0m \x1b]0;TITLE\x07 bell"
MONEY = RecordChange("orders", "#W1", "changed", {}, {},
                     (FieldChange("total", 59.340000000000146, 61.0), FieldChange("gift", None, HOSTILE)))


def _events() -> list[Event]:
    payloads: list[tuple[Role, Any]] = [
        (Role.SYSTEM, MessageData(content="You are an agent. " * 10)),
        (Role.AGENT, MessageData(content=f"Hello {HOSTILE}")),
        (Role.AGENT, ToolCallData(call_id="c1", name="get_order", arguments={"order_id": HOSTILE}, content="Looking.")),
        (Role.AGENT, ToolCallData(call_id="c2", name="get_order", arguments={}, raw_arguments='{"order_id": \x1b[2J oops')),
        (Role.USER, ToolCallData(call_id="c3", name="check_status_bar", arguments={}, requestor="user")),
        (Role.ENV, ToolResultData(call_id="c1", name="get_order", output=f"found {HOSTILE} " + "x" * 500,
                                  diff={"step": 1, "tool": "get_order", "changes": [MONEY.to_json()]})),
        (Role.ENV, ToolResultData(call_id="c2", name="get_order", output="Error: bad arguments", error=True)),
        (Role.SYSTEM, InjectionData(call_id="c1", tool="get_order", argument="order_id", kind="semantic_wrong",
                                    original={"order_id": "#W1"}, injected={"order_id": "#W2"}, detail="another",
                                    source="marked")),
        (Role.SYSTEM, NoticeData(level="warning", text=f"invalid call: {HOSTILE}", about=NoticeAbout.INVALID_CALL,
                                 attempt="get_order(", error="unclosed '('")),
        (Role.SYSTEM, NoticeData(level="error", text=f"model call failed {HOSTILE}")),
        (Role.SYSTEM, TerminatedData(reason="user_stop", reward={"reward": 1.0})),
    ]
    return [Event.of(i, role, payload, turn=1 + i // 4) for i, (role, payload) in enumerate(payloads)]


def _plain(renderable: Any) -> str:
    console = Console(width=400, record=True, color_system=None, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_the_screens_and_the_text_formats_read_each_event_from_the_same_parts() -> None:
    events = _events()
    review = [line.plain for line in transcript_lines(events, None)]
    shown = transcript_plain(events)
    for e in events:
        parts = event_parts(e)
        assert parts, e.kind
        text = [visible(p.plain()) for p in parts]
        # the play transcript: the same words, but a failed result is coloured where text says "error:", a write's
        # changes are counted, and the ending leaves the reward to the panel beside it
        live = [line.plain.strip() for line in event_lines(e, None)]
        expected = [t.replace("← error: ", "← ").replace(" · reward 1.0", "") for t in text]
        assert [ln.split("  [")[0] for ln in live] == expected, e.kind
        # the review log and review --show: every line after the event's tag
        for t in text:
            screen_line = tag(e) + t.replace("← error: ", "← ")
            assert screen_line in review, screen_line
            assert visible(tag(e) + t) in [visible(s) for s in shown]
    kinds = [p.kind for e in events for p in event_parts(e)]
    assert kinds == [PartKind.SYSTEM, PartKind.SAID, PartKind.SAID, PartKind.CALL, PartKind.CALL, PartKind.CALL,
                     PartKind.RESULT, PartKind.RESULT, PartKind.INJECTION, PartKind.INVALID, PartKind.NOTICE,
                     PartKind.ENDED]


def test_a_call_reads_as_the_call_line_and_a_model_s_broken_arguments_as_sent() -> None:
    calls = [p.plain() for e in _events() for p in event_parts(e) if p.kind == PartKind.CALL]
    assert calls[0] == f'→ get_order(order_id="{HOSTILE}")'.replace("\x1b", "\\u001b").replace("\x07", "\\u0007")
    assert calls[1] == '→ get_order({"order_id": \x1b[2J oops)'  # as the model sent it (shown visibly)
    assert calls[2] == "→ user: check_status_bar()"
    (ended,) = [p.plain() for p in event_parts(_events()[-1])]
    assert ended == "— session ended: user_stop · reward 1.0 —"
    assert [p.plain() for p in event_parts(_events()[0])] == ["system prompt (180 characters)"]


def test_text_from_models_and_tools_stays_literal_in_every_view() -> None:
    events = _events()
    outputs = {
        "play": "\n".join(_plain(line) for e in events for line in event_lines(e, "agent")),
        "review": "\n".join(_plain(line) for line in transcript_lines(events, None)),
        "show": "\n".join(visible(line) for line in transcript_plain(events)),
    }
    for view, text in outputs.items():
        assert "\x1b" not in text and "\x07" not in text, view
        assert "[b]bold?[/b] [link=http://x]y[/link] ␛[31mred␛[0m ␛]0;TITLE\\x07 bell" in text, view
        assert '{"order_id": ␛[2J oops' in text, view


def test_a_long_result_is_cut_with_each_view_s_hint_and_the_user_s_own_results_whole() -> None:
    result = _events()[5]
    (part,) = event_parts(result, 100, hint="t shows all")
    assert len(part.text) == 100 and part.cut.endswith("characters; t shows all)")
    assert "expand to see all" in event_lines(result, None, max_output=100)[0].plain
    mine = Event.of(1, Role.ENV, ToolResultData(call_id="u", name="check", output="y" * 300, requestor="user"))
    assert event_parts(mine, 100)[0].text == "y" * 300


def test_the_screens_and_compare_show_a_record_change_from_the_same_parts() -> None:
    parts = change_parts(MONEY)
    assert [(f.path, f.before, f.after) for f in parts.fields][0] == ("total", "59.34", "61.0")
    text = change_plain(parts)
    screen = _plain(change_lines(MONEY, indent=" ")[0]) + "".join(_plain(line) for line in change_lines(MONEY))
    assert text[0] == "orders #W1 total: 59.34 → 61.0" and "total: 59.34 → 61.0" in screen
    assert text[1].startswith("orders #W1 gift: — → ") and "gift: — → " in screen  # no value: a dash in both
    assert "59.340000000000146" not in screen + "\n".join(text)
    # a screen lists a record's first fields and counts the rest; the text formats list them all
    many = RecordChange("users", "u1", "changed", {}, {}, tuple(FieldChange(f"f{i}", i, i + 1) for i in range(15)))
    assert change_parts(many).more == 3 and len(change_plain(change_parts(many, max_fields=None))) == 15
    assert "… 3 more fields" in _plain(change_lines(many)[-1])
    assert change_plain(change_parts(RecordChange("users", "u2", "added", None, {})), added="only in B") == \
        ["users u2: only in B"]


def test_a_label_says_how_it_stands_in_one_vocabulary() -> None:
    new = FaultLabel("Extra Action", "agent", "major", "")
    suggestion = FaultLabel("Missed Action", "agent", "major", "", source=AnnotationSource.SUGGESTED)
    assert (new.state_for("ann"), suggestion.state_for("ann")) == (LabelState.NEW, LabelState.SUGGESTED)
    saved = FaultLabel("Extra Action", "agent", "major", "ann", id=7, session_id="s1")
    assert saved.saved and not new.saved
    assert (saved.state_for("ann"), saved.state_for("bob")) == (LabelState.MINE, LabelState.OTHER)
    kept_unconfirmed = FaultLabel("Missed Action", "agent", "major", "ann", id=8, source=AnnotationSource.SUGGESTED)
    assert kept_unconfirmed.state_for("ann") == LabelState.SUGGESTED
    assert kept_unconfirmed.confirm().state_for("ann") == LabelState.MINE
    # what is exported stays the label itself, never the store's bookkeeping
    assert set(saved.to_json()) == {"category", "who_erred", "severity", "annotator", "note", "turn", "seq", "source"}
