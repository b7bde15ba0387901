"""The friction found by trying the app as a new user (issue 12, item 7), each fix driven through the real app."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.widgets import DataTable, Input, Select, TextArea

from tauplay.core.domain import get_domain, installed_domains
from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData
from tauplay.core.vocabulary import Role
from tauplay.store import SessionStore
from tauplay.tui.app import TauplayApp
from tauplay.tui.capture import screen_text
from tauplay.tui.screens.confirm import ConfirmScreen
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.home import HomeScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tauplay.tui.screens.validate import ValidateScreen
from tauplay.tui.widgets.call_line import example_call
from tauplay.tui.widgets.diff_panel import render_diff
from tauplay.tui.widgets.graph_panel import GraphPanel
from tauplay.tui.widgets.policy_pane import HIGHLIGHT, PolicyPane
from tauplay.tui.widgets.tool_form import FieldBox
from tauplay.tui.widgets.tools_panel import ToolsPanel
from tauplay.tui.widgets.transcript import WrappingLog
from tests.tui.conftest import TASK, make_app, open_store, send, wait_until, your_turn
from tests.tui.test_validate import make_validate_app, ready

CALL = 'get_reservation_details(reservation_id="S6Q6LB")'


async def _to_end_screen(pilot: Any, play: Any) -> EndScreen:
    await send(pilot, play, CALL, box="#call-input")
    await your_turn(pilot, play)
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), what="the question")
    await pilot.press("y")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, EndScreen), what="the end screen")
    return pilot.app.screen


async def test_focus_returns_to_the_message_box_after_a_call(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, CALL, box="#call-input")
        await your_turn(pilot, play)
        assert app.focused is play.query_one("#message", Input)
        # and after a form's Run
        await pilot.press("f2")
        form = await play.query_one(ToolsPanel).show_tool("get_user_details", {"user_id": "ethan_jackson_8446"})
        form.query_one("Input").focus()
        before = len(play.events)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(play.events) > before, what="the form's call")
        await your_turn(pilot, play)
        assert app.focused is play.query_one("#message", Input)


async def test_f3_focuses_the_policy_search_and_matches_are_highlighted(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.focused is not None and app.focused.id == "policy-search",
                         what="the search box focused")
        await pilot.press(*"bags", "enter")
        pane = play.query_one(PolicyPane)
        await wait_until(pilot, lambda: pane.matches.plain, what="the matches")
        marked = [pane.matches.plain[s.start:s.end].lower() for s in pane.matches.spans if s.style == HIGHLIGHT]
        assert marked and set(marked) == {"bags"}
        assert "bags" in screen_text(app).lower()


def test_the_call_line_hint_uses_the_domains_own_tools():
    for name in installed_domains():
        domain = get_domain(name)
        hint = example_call(domain)
        assert hint.split("(", 1)[0] in domain.tool_map, (name, hint)
    assert not example_call(get_domain("escape")).startswith("get_user_details")


async def test_form_errors_clear_when_the_field_is_filled(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f2")
        form = await play.query_one(ToolsPanel).show_tool("get_user_details")
        assert not form.submit()
        box = form.query_one(FieldBox)
        assert box.has_class("-invalid")
        field = box.query_one(Input)
        field.focus()
        await pilot.press(*"mia")
        await pilot.pause()
        assert not box.has_class("-invalid")
        field.value = ""
        await pilot.pause()
        assert not box.has_class("-invalid")  # emptied again: no error until the form is checked


async def test_the_diff_panel_says_no_writes_yet_before_the_first_write(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("f5")
        await pilot.pause()
        assert "no writes yet" in screen_text(app)


def test_diff_values_are_never_cut():
    long_value = "x" * 150 + " the end"
    last = {"step": 1, "tool": "t", "changes": [{"kind": "changed", "table": "users", "key": "u1",
                                                   "fields": [{"path": "note", "before": "short",
                                                               "after": long_value}]}]}
    from rich.console import Console

    console = Console(width=50, record=True, color_system=None)
    console.print(render_diff(last, [], None, ""))
    shown = console.export_text()
    assert "the end" in shown and shown.replace("\n", "").count("x") >= 150


async def test_label_notes_are_shown_whole_and_results_can_be_expanded_in_review(db_path):
    note = "the agent added the bag without asking; " * 4 + "END OF NOTE"
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        end = await _to_end_screen(pilot, app.screen)
        end.query_one("#label-category", Select).value = "Misread Intent"
        end.query_one("#label-note", Input).value = note
        assert end.add_label()
        table = end.query_one("#labels", DataTable)
        table.focus()
        table.move_cursor(row=len(end.labels) - 1)
        await pilot.pause()
        assert "END OF NOTE" in str(end.query_one("#label-detail").content)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the save")
    review = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db_path))
    async with review.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: getattr(review.screen, "loads", 0), what="the list")
        review.screen.query_one("#r-sessions").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(review.screen, SessionReviewScreen) and review.screen.loaded,
                         what="the session")
        screen = review.screen
        table = screen.query_one("#s-labels", DataTable)
        row = next(i for i, r in enumerate(screen.rows) if r.note == note)
        table.move_cursor(row=row)
        await pilot.pause()
        assert "END OF NOTE" in str(screen.query_one("#s-detail").content)
        log = screen.query_one("#s-transcript", WrappingLog)
        assert "payment_history" not in "\n".join(log.lines_text)  # the long result is cut (400 characters)
        await pilot.press("t")
        assert "payment_history" in "\n".join(log.lines_text)


def _long_session(db_path: Any) -> str:
    """A saved session with a message far wider than any screen."""
    with SessionStore(str(db_path)) as store:
        domain = get_domain("airline")
        from tauplay.core.tasks import load_tasks

        task = load_tasks(domain.task_set_path(), "airline").by_id(TASK)
        sid = store.create_session(domain="airline", task_id=TASK, role="batch", agent={"kind": "oracle"},
                                   user={"kind": "scripted"}, task=task.to_json())
        words = " ".join(f"word{i}" for i in range(120)) + " LASTWORD"
        for e in (Event.of(0, Role.USER, MessageData(content=words)),
                  Event.of(1, Role.AGENT, ToolCallData(call_id="c", name="get_reservation_details",
                                                       arguments={"reservation_id": "S6Q6LB"})),
                  Event.of(2, Role.ENV, ToolResultData(call_id="c", name="get_reservation_details",
                                                       output="{" + "\"k\": 1, " * 30 + "\"z\": 2}"))):
            store.append_event(sid, e)
    return sid


async def open_first_session(pilot: Any, app: Any) -> None:
    """From the review list, open its first session and wait until it is loaded."""
    await wait_until(pilot, lambda: getattr(app.screen, "loads", 0), what="the list")
    app.screen.query_one("#r-sessions").focus()
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionReviewScreen) and app.screen.loaded,
                     what="the session")

async def test_review_transcripts_wrap_and_rewrap_on_resize(db_path):
    _long_session(db_path)
    app = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_first_session(pilot, app)
        log = app.screen.query_one("#s-transcript", WrappingLog)
        await pilot.pause()

        def fits() -> bool:
            width = log.scrollable_content_region.width
            return bool(log.lines) and all(line.cell_length <= width for line in log.lines)

        assert fits() and log.max_scroll_x == 0  # wrapped: nothing to scroll sideways to
        assert any("LASTWORD" in line.text for line in log.lines)
        narrow = len(log.lines)
        await pilot.resize_terminal(160, 30)
        await wait_until(pilot, lambda: len(log.lines) < narrow, what="wrapped again, wider")
        assert fits() and any("LASTWORD" in line.text for line in log.lines)


async def test_the_footer_and_the_end_screen_fit_80x24(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.pause()  # the turn can come before the footer's first paint
        footer = screen_text(app).splitlines()[-1]
        assert "Quit" in footer and "Help" in footer and "End" in footer
        end = await _to_end_screen(pilot, play)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Save" in footer and "Quit" in footer and "Help" in footer
        save = end.query_one("#save")
        assert save.region.height and save.region.bottom <= 23  # on screen above the footer, no scrolling
    user = make_app(db_path, role="user")
    async with user.run_test(size=(80, 24)) as pilot:
        await your_turn(pilot, user.screen)
        await pilot.pause()
        footer = screen_text(user).splitlines()[-1]
        assert all(word in footer for word in ("Satisfied", "Give up", "Quit", "Help"))


async def test_ending_an_agent_session_asks_first(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is play and not play.ended and play.your_turn
        await _to_end_screen(pilot, play)
    (session,) = open_store(db_path).list_sessions()
    assert session.termination_reason == "agent_stop"


async def test_quitting_with_unsaved_labels_asks_and_no_keeps_them(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        end = await _to_end_screen(pilot, app.screen)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)  # nothing of mine unsaved: quit at once ...
    assert app.return_code is not None or not app.is_running
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        end = await _to_end_screen(pilot, app.screen)
        end.query_one("#label-category", Select).value = "Misread Intent"
        assert end.add_label()
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        assert "1 label(s)" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is end and app.is_running and any(not lab.saved for lab in end.labels)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: end.saves == 1, what="the save")
        await pilot.press("ctrl+q")  # saved: no question
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)


async def test_validate_an_edit_then_next_loses_nothing(db_path):
    app = make_validate_app(db_path)
    async with app.run_test(size=(150, 45)) as pilot:
        screen = await ready(pilot)
        first = screen.task.id
        await pilot.press("i")
        await wait_until(pilot, lambda: app.screen.query("#edit-area"), what="the editor")
        app.screen.query_one("#edit-area", TextArea).text = "Add one paid bag to reservation S6Q6LB."
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ValidateScreen), what="back from the editor")
        await pilot.press("n")
        assert screen.index == 1
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        assert first in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and app.is_running
        await pilot.press("p")
        assert screen.task.id == first and screen.shown_task().instruction == "Add one paid bag to reservation S6Q6LB."
        await pilot.press("a")
        await wait_until(pilot, lambda: screen.saves == 1 and not screen.busy, what="the verdict")
        assert screen.unsaved() == ""
    with open_store(db_path) as store:
        (row,) = store.task_reviews(domain="airline")
    assert row.edited_task["instruction"] == "Add one paid bag to reservation S6Q6LB."


async def test_a_task_list_read_late_does_not_replace_the_set_chosen_since(db_path, monkeypatch):
    """Was (seen once in the full suite on a loaded machine): the starter set's list, read in a thread that ended
    after the test set's, was put back while the chooser said "test"."""
    import time

    from tauplay.tui import session

    real = session.load_task_set

    def slow_starter(domain: Any, name: str | None) -> Any:
        if name in (None, "starter"):
            time.sleep(1.0)
        return real(domain, name)

    monkeypatch.setattr(session, "load_task_set", slow_starter)
    app = make_app(db_path, task_id=None)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        home.query_one("#task-set", Select).value = "test"
        await wait_until(pilot, lambda: len(home.query_one("#task", Select)._options) == 71, what="test tasks")
        await asyncio.sleep(1.5)  # the starter read ends meanwhile
        await pilot.pause()
        assert len(home.query_one("#task", Select)._options) == 71


async def test_the_home_screen_offers_every_task_set(db_path):
    app = make_app(db_path, task_id=None)
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.screen
        assert isinstance(home, HomeScreen)
        chooser = home.query_one("#task-set", Select)
        assert sorted(v for _, v in chooser._options) == sorted(get_domain("airline").task_sets)
        await wait_until(pilot, lambda: len(home.query_one("#task", Select)._options) == 13, what="starter tasks")
        chooser.value = "test"
        await wait_until(pilot, lambda: len(home.query_one("#task", Select)._options) == 71, what="test tasks")
        tasks = home.query_one("#task", Select)
        tasks.value = next(v for _, v in tasks._options if v != "__random__")
        assert home.chosen().tasks == "test"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, PlayUserScreen), what="the play screen")
        assert app.screen.prepared.task.id == tasks.value
        home_domain = "retail"
        app.go_home()
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen) and app.screen.query("#domain"),
                         what="home again")
        home = app.screen
        home.query_one("#domain", Select).value = home_domain
        await pilot.pause()
        await asyncio.sleep(0.05)
        assert sorted(v for _, v in home.query_one("#task-set", Select)._options) == \
            sorted(get_domain(home_domain).task_sets)


async def test_the_graph_marks_only_grounded_tools_as_valid_next(db_path):
    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        await pilot.press("f4")
        graph = play.query_one(GraphPanel)
        await wait_until(pilot, lambda: graph.graph is not None, what="the graph")
        valid = set(graph.graph.grounded_next(play.history, play.events))
        total = len(get_domain("airline").tools)
        # the scripted user keeps its user id back until asked (issue 12): that look-up is not grounded yet, nor
        # are the writes that need more
        assert "get_reservation_details" in valid and "get_user_details" not in valid
        assert "book_reservation" not in valid and len(valid) < total - 3
        shown = graph.shown()
        assert "inputs grounded now" in shown
        marked = [line for line in shown.splitlines() if "▸" in line and "grounded now" not in line]
        assert 0 < sum(line.count("▸") for line in marked) == len(valid)
        assert isinstance(graph.last, Text) is False


async def test_quitting_the_review_with_a_new_label_not_saved_asks(db_path):
    _long_session(db_path)
    app = TauplayApp.for_review({}, annotator="tester", blind=False, db_url=str(db_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await open_first_session(pilot, app)
        screen = app.screen
        await pilot.press("a")  # a new label, not yet confirmed
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        assert "1 new label(s)" in app.screen.question
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and any(screen.state(r) == "new" for r in screen.rows)
