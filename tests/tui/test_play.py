"""Whole sessions played through the real app (headless Pilot), checked in the SQLite store."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Select

from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.home import HomeScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.widgets.diff_panel import DiffPanel
from tauplay.tui.widgets.tools_panel import ToolsPanel
from tests.tui.conftest import TASK, make_app, open_store, send, wait_until, writers_closed, your_turn


def _kinds(events):
    return [(e.kind, e.role) for e in events]


async def test_play_the_user_with_the_oracle_agent_and_annotate(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen)
        await send(pilot, play, "Hi, I want to add a checked bag to reservation S6Q6LB, user ethan_jackson_8446, on my card ending in 0636.")
        await send(pilot, play, "yes, go ahead")  # the oracle asks before its write
        await your_turn(pilot, play)
        await pilot.press("f5")  # the Diff tab
        assert play.query_one("#diff", DiffPanel).last["tool"] == "update_reservation_baggages"
        await pilot.press("ctrl+s")  # satisfied: ###STOP###
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert end.outcome.reason == "user_stop" and end.outcome.value == 1.0
        # one label by hand, on the agent's write, and a verdict
        write = next(e for e in end.events if e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages")
        end.query_one("#label-turn", Select).value = write.seq
        end.query_one("#label-category", Select).value = "Misread Intent"
        end.query_one("#label-severity", Select).value = "critical"
        end.query_one("#label-note", Input).value = "checked: a [red]literal[/red] note"
        end.query_one("#label-note", Input).focus()
        await pilot.press("enter")
        end.query_one("#verdict", Select).value = "approve"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the annotation to be saved")
        assert app.last_error is None

    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.status, session.termination_reason, session.reward, session.role) == \
        ("finished", "user_stop", 1.0, "user")
    assert session.task_id == TASK and session.agent == {"kind": "gated"}  # the default counterpart
    assert session.user["kind"] == "human"
    events = store.events(session.id)
    user_texts = [e.data["content"] for e in events if e.kind == "message" and e.role == "user"]
    assert user_texts[0].startswith("Hi, I want to add a checked bag")
    assert user_texts[-1] == "###STOP###"
    made = [e.data["name"] for e in events if e.kind == "tool_call"]  # the gated agent reads what it needs
    assert made[-1] == "update_reservation_baggages" and "get_reservation_details" in made[:-1]
    assert events[-1].kind == "terminated" and events[-1].data["reward"]["db_match"] is True
    (label,) = store.annotations(session.id)
    assert (label.category, label.severity, label.who_erred, label.seq, label.turn, label.source) == \
        ("Misread Intent", "critical", "agent", write.seq, write.turn, "human")
    assert label.note == "checked: a [red]literal[/red] note"
    (review,) = store.task_reviews(task_id=TASK)
    assert review.verdict == "approve" and review.annotator == "tester"


async def test_play_the_agent_with_the_scripted_user(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        # a bad call line is refused inline and runs nothing
        await send_line_error(pilot, play, 'get_reservation_details(reservation_id=S6Q6LB)')
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await send(pilot, play, "I will add one paid bag (50 dollars) to S6Q6LB on your card. Shall I go ahead?")
        # the write goes through the form this time: filled, then run with the key
        await your_turn(pilot, play)
        await pilot.press("f2")
        panel = play.query_one(ToolsPanel)
        await panel.show_tool("update_reservation_baggages",
                              {"reservation_id": "S6Q6LB", "total_baggages": 3, "nonfree_baggages": 1,
                               "payment_id": "credit_card_5773697"})
        before = len(play.events)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(play.events) > before + 1, what="the form's call")
        await pilot.press("f5")  # the Diff tab
        diff = play.query_one("#diff", DiffPanel)
        assert diff.last["tool"] == "update_reservation_baggages"
        assert [c.key for c in diff.since_start] == ["S6Q6LB"]
        await send(pilot, play, "Done: your reservation now has 3 bags.")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert end.outcome.reason == "user_stop" and end.outcome.value == 1.0
        await pilot.press("ctrl+d")  # reveal the distance to gold
        assert end.distance == 0
        assert app.last_error is None

    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.status, session.role, session.reward) == ("finished", "agent", 1.0)
    assert session.user == {"kind": "scripted"}
    events = store.events(session.id)
    calls = [e for e in events if e.kind == "tool_call"]
    assert [c.data["name"] for c in calls] == ["get_reservation_details", "update_reservation_baggages"]
    assert calls[1].data["arguments"] == {"reservation_id": "S6Q6LB", "total_baggages": 3, "nonfree_baggages": 1,
                                          "payment_id": "credit_card_5773697"}
    agent_texts = [e.data["content"] for e in events if e.kind == "message" and e.role == "agent"]
    assert agent_texts[-1] == "Done: your reservation now has 3 bags."
    assert "###STOP###" in [e.data["content"] for e in events if e.kind == "message" and e.role == "user"][-1]


async def send_line_error(pilot, play, line):
    box = play.query_one("#call-input", Input)
    box.focus()
    box.value = line
    before = len(play.events)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(play.events) > before, what="the attempt recorded")
    (attempt,) = play.events[before:]  # saved as an invalid attempt; nothing ran
    assert attempt.kind == "notice" and attempt.data["about"] == "invalid_call" and attempt.data["attempt"] == line
    assert play.query_one("#call-line").has_class("-invalid")
    assert box.value == line  # kept for correction


async def test_giving_up_saves_an_abandoned_session(db_path):
    app = make_app(db_path, role="user", emotion="furious")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        play.query_one("#message", Input).value = "This is useless."
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.value == -1.0
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.status, session.termination_reason, session.reward) == ("abandoned", "user_abandoned", -1.0)
    assert session.emotion["family"] == "anger" and session.emotion["leaf"] == "fury"
    last_user = [e for e in store.events(session.id) if e.kind == "message" and e.role == "user"][-1]
    assert last_user.data["content"] == "This is useless. ###UNSATISFIED###"


async def test_leave_mid_session_then_resume_from_home(db_path):
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, "Please add a paid bag to reservation S6Q6LB; user ethan_jackson_8446; my card ending in 0636.")
        await your_turn(pilot, play)
    writers_closed()
    store = open_store(db_path)
    (left,) = store.unfinished_sessions()
    seen = len(store.events(left.id))

    app = make_app(db_path)  # no role: the home screen
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_until(pilot, lambda: home.sessions_loaded, what="the unfinished sessions")
        assert home.query_one("#sessions", DataTable).row_count == 1
        home.query_one("#sessions", DataTable).focus()
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayUserScreen), what="the resumed play screen")
        play = app.screen
        await your_turn(pilot, play)
        # what was said before is drawn again, and the session goes on from there
        assert sum(1 for e in play.events if e.kind == "message" and e.role == "user") == 1
        await send(pilot, play, "yes")
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.value == 1.0
    (session,) = store.list_sessions()
    assert session.id == left.id and session.status == "finished"
    events = store.events(session.id)
    assert [e.seq for e in events] == list(range(len(events)))  # one stream, no gap, no repeat
    assert len(events) > seen


async def test_start_from_home_with_role_emotion_and_task(db_path):
    app = make_app(db_path, task_id=None)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        await wait_until(pilot, lambda: len(home.query_one("#task", Select)._options) > 2, what="the task list")
        home.query_one("#task", Select).value = TASK
        home.query_one("#role", Select).value = "agent"
        home.query_one("#emotion", Input).value = "anxious"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayAgentScreen), what="the play screen")
        play = app.screen
        await your_turn(pilot, play)
        assert play.prepared.emotion.family == "fear" and play.prepared.emotion.leaf == "anxiety"
        assert play.prepared.user == {"kind": "scripted"}
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.task_id, session.role, session.emotion["leaf"]) == (TASK, "agent", "anxiety")


async def test_a_bad_emotion_on_home_is_reported_and_home_stays(db_path):
    app = make_app(db_path, task_id=None)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        home.query_one("#emotion", Input).value = "sparkly"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is home and "unknown emotion 'sparkly'" in (app.last_error or "")


async def test_a_store_that_cannot_open_is_a_notification(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    app = make_app(blocker / "sessions.db", role="user")  # its folder is a file
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await wait_until(pilot, lambda: app.last_error is not None, what="the error")
        assert "the session stopped" in app.last_error and isinstance(app.screen, PlayUserScreen)
        assert not play.ended


async def test_fault_suggestions_are_prefilled_and_kept_ones_saved(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, 'update_reservation_baggages("S6Q6LB", 3, 2, "credit_card_5773697")',
                   box="#call-input")  # the wrong write: two paid bags
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")  # the agent ends the session
        await pilot.press("y")  # once asked
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        end = app.screen
        assert end.outcome.reason == "agent_stop" and end.outcome.value == 0.0
        # the agent stopped with gold writes not done: an Early Stop is suggested too
        assert [lab.category for lab in end.labels] == ["Extra Action", "Missed Action", "Missed Action",
                                                        "Early Stop"]
        table = end.query_one("#labels", DataTable)
        table.focus()
        table.move_cursor(row=2)
        await pilot.press("delete")  # the person drops one suggestion
        assert [lab.category for lab in end.labels] == ["Extra Action", "Missed Action", "Early Stop"]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the save")
    store = open_store(db_path)
    (session,) = store.list_sessions()
    labels = store.annotations(session.id)
    # saved as suggestions: not labels until a person confirms each
    assert [(a.category, a.source, a.confirmed) for a in labels] == [
        ("Extra Action", "suggested", False), ("Missed Action", "suggested", False), ("Early Stop", "suggested", False)]
    assert store.confirm_annotation(labels[0].id).source == "auto"
    assert [a.confirmed for a in store.annotations(session.id)] == [True, False, False]
    extra = labels[0]
    write = next(e for e in store.events(session.id) if e.kind == "tool_call")
    assert (extra.seq, extra.turn) == (write.seq, write.turn)
    assert store.task_reviews(task_id=TASK) == []  # no verdict was chosen
    # saving the form marked the session reviewed by the person (agreement counts it as judged by them)
    assert [m.annotator for m in store.reviewed_by(session.id)] == ["tester"]


async def test_the_tool_form_is_reached_and_run_from_the_keyboard(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+t")  # the tool list
        tools = play.query_one(ToolsPanel)
        listing = play.query_one("#tool-list")
        assert play.focused is listing
        names = [t.name for t in play.prepared.domain.read_tools + play.prepared.domain.write_tools]
        for _ in range(names.index("get_reservation_details")):
            await pilot.press("down")
        await wait_until(pilot, lambda: tools.current == "get_reservation_details", what="the form")
        form = tools.form
        await pilot.press("tab")  # Tab order: the tool list, then the form's fields, then Run
        assert isinstance(play.focused, Input) and form in play.focused.ancestors
        await pilot.press(*"S6Q6LB", "tab")
        assert play.focused is form.query_one("#run")
        before = len(play.events)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events[before:]), what="the run")
        call = next(e for e in play.events[before:] if e.kind == "tool_call")
        assert (call.data["name"], call.data["arguments"]) == ("get_reservation_details", {"reservation_id": "S6Q6LB"})
    assert app.last_error is None


async def test_f2_takes_the_agent_to_the_tool_list_and_its_form(db_path):
    """The key the footer names for the tools (f2) puts the keys in the tool list, so Down picks a tool and Tab
    enters its form; typed text goes to the form's field, not to the call line."""
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f2")
        await wait_until(pilot, lambda: play.focused is play.query_one("#tool-list"), what="the tool list focused")
        tools = play.query_one(ToolsPanel)
        names = [t.name for t in play.prepared.domain.read_tools + play.prepared.domain.write_tools]
        for _ in range(names.index("get_user_details")):
            await pilot.press("down")
        await wait_until(pilot, lambda: tools.current == "get_user_details", what="the form")
        await pilot.press("tab", *"aisha")
        assert isinstance(play.focused, Input) and tools.form in play.focused.ancestors
        assert play.focused.value == "aisha"
    assert app.last_error is None


async def test_a_call_holding_a_non_finite_number_is_refused_not_the_end_of_the_session(db_path):
    """At 80x24, record_payment(..., amount=1e999) typed in the call line ended the session: "Reward 0 (ended:
    error) ... StoreError: a value to save is not strict JSON" (1e999 reads as inf; JSON's NaN as nan). It is an
    invalid call like any other: refused with a line, nothing run, the session goes on and is saved."""
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        for line in ('update_reservation_baggages(reservation_id="S6Q6LB", total_baggages=3, nonfree_baggages=1e999,'
                     ' payment_id="credit_card_5773697")',
                     '{"name": "get_reservation_details", "arguments": {"reservation_id": NaN}}'):
            await send_line_error(pilot, play, line)
            assert "must be finite" in play.events[-1].data["error"]
        assert not play.ended and not [e for e in play.events if e.kind == "tool_call"]
        await send(pilot, play, "Anything else?")
        assert not play.ended and app.last_error is None
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert session.status != "failed"
    assert [e.data["about"] for e in store.events(session.id) if e.kind == "notice"].count("invalid_call") == 2
