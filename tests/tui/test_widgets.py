"""The panels and forms on their own: tool form, call line, graph, diff, policy search, cards."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Select

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task
from tauplay.tui.widgets.call_line import check_line
from tauplay.tui.widgets.cards import emotion_card, split_goal, task_card
from tauplay.tui.widgets.diff_panel import render_diff
from tauplay.tui.widgets.graph_panel import render_graph
from tauplay.tui.widgets.policy_pane import matching
from tauplay.tui.widgets.tool_form import FieldError, RowsEditor, ToolForm, error_field, parse_scalar

AIRLINE = get_domain("airline")


def plain(renderable: Any, width: int = 90) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


class FormHost(App[None]):
    def __init__(self, tool: str) -> None:
        super().__init__()
        self.tool = tool
        self.runs: list[ToolForm.Run] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield ToolForm(AIRLINE.tool_map[self.tool])

    def on_tool_form_run(self, event: ToolForm.Run) -> None:
        self.runs.append(event)


async def test_form_shows_required_and_type_errors_inline_and_runs_only_when_valid():
    app = FormHost("book_reservation")
    async with app.run_test(size=(100, 80)) as pilot:
        form = app.query_one(ToolForm)
        assert not form.submit()
        fields = form.fields()
        assert fields["user_id"].has_class("-invalid") and fields["flights"].has_class("-invalid")
        await form.fill({"user_id": "yusuf_lopez_1876", "origin": "ATL", "destination": "CLT",
                         "flight_type": "one_way", "cabin": "economy",
                         "flights": [{"flight_number": "HAT001", "date": "2024-05-20"}],
                         "passengers": [{"first_name": "Yusuf", "last_name": "Lopez", "dob": "1994-02-02"}],
                         "payment_methods": [{"payment_id": "credit_card_3466682", "amount": 235}],
                         "total_baggages": 0, "insurance": "no"})
        fields["nonfree_baggages"].query_one(Input).value = "one"
        await pilot.pause()
        assert not form.submit()
        assert fields["nonfree_baggages"].has_class("-invalid")
        assert not fields["user_id"].has_class("-invalid")
        fields["nonfree_baggages"].query_one(Input).value = "0"
        assert form.submit()
        await pilot.pause()
        (run,) = app.runs
        args = run.arguments
        assert args["flights"] == [{"flight_number": "HAT001", "date": "2024-05-20"}]
        assert args["payment_methods"] == [{"payment_id": "credit_card_3466682", "amount": 235}]
        assert (args["nonfree_baggages"], args["cabin"]) == (0, "economy")
        # what the form sends is what the environment accepts, and it books
        env = Environment.for_domain(AIRLINE)
        assert env.check("book_reservation", args)[1] == []
        assert not env.call("book_reservation", args).error


async def test_enum_is_a_select_and_rows_can_be_added():
    app = FormHost("book_reservation")
    async with app.run_test(size=(100, 80)) as pilot:
        form = app.query_one(ToolForm)
        select = form.fields()["cabin"].query_one(Select)
        assert [v for _, v in select._options if v is not Select.NULL] == ["basic_economy", "economy", "business"]
        rows = form.fields()["passengers"].query_one(RowsEditor)
        assert len(rows.rows) == 1
        await pilot.click(rows.query_one(".add", Button))
        await pilot.pause()
        assert len(rows.rows) == 2


def test_field_parsing_and_error_mapping():
    assert parse_scalar("3", {"type": "integer"}) == 3
    assert parse_scalar("2.5", {"type": "number"}) == 2.5
    assert parse_scalar("a, b", {"type": "array", "items": {"type": "string"}}) == ["a", "b"]
    assert parse_scalar('["a"]', {"type": "array"}) == ["a"]
    for text, schema in (("nan", {"type": "number"}), ("inf", {"type": "number"}), ("1e999", {"type": "number"}),
                         ("[1, NaN]", {"type": "array"}), ('{"x": Infinity}', {"type": "object"})):
        with pytest.raises(FieldError, match="finite"):  # a form field of nan ran the call and ended the session
            parse_scalar(text, schema)
    assert error_field("missing required argument 'user_id'") == "user_id"
    assert error_field("flights[0].date is required") == "flights"


def test_call_line_checks_against_the_schema():
    assert check_line('get_user_details(user_id="mia")', AIRLINE) == ("get_user_details", {"user_id": "mia"}, [])
    name, _, problems = check_line('get_user_details(user="mia")', AIRLINE)
    assert problems and "user_id" in " ".join(problems)
    assert "unknown tool" in check_line("fly_me()", AIRLINE)[2][0]
    assert check_line('{"name": "list_all_airports", "arguments": {}}', AIRLINE)[2] == []
    assert "only literal values" in check_line("get_user_details(user_id=input())", AIRLINE)[2][0]


def test_graph_shows_columns_path_valid_next_and_gold_only_when_asked():
    graph = ToolGraph(AIRLINE)
    history = ["get_reservation_details", "update_reservation_baggages"]
    text = plain(render_graph(graph, history, None))
    assert "READ" in text and "WRITE" in text
    assert "1.get_reservation_details → 2.update_reservation_baggages" in text
    assert "◆" in text and "▸" in text and "gold" not in text
    with_gold = plain(render_graph(graph, history, ["get_user_details", "cancel_reservation"]))
    assert "gold: 1.get_user_details → 2.cancel_reservation" in with_gold
    # a call the graph does not allow yet is marked with its reason
    bad = plain(render_graph(graph, ["cancel_reservation"], None))
    assert "cancel_reservation needs get_reservation_details first" in bad


def test_diff_lists_fields_before_after_and_hides_the_distance():
    env = Environment.for_domain(AIRLINE)
    result = env.call("update_reservation_baggages", {"reservation_id": "S6Q6LB", "total_baggages": 3,
                                                      "nonfree_baggages": 1, "payment_id": "credit_card_5773697"})
    text = plain(render_diff(result.diff.to_json(), env.changes_since_start(), None, "hidden until the end"))
    assert "reservations/S6Q6LB" in text and "total_baggages: 2 → 3" in text
    assert "nonfree_baggages: 0 → 1" in text
    assert "1 record(s): 1 changed, 0 added, 0 removed" in text
    assert "Distance to gold: hidden until the end" in text
    shown = plain(render_diff(None, [], 0, ""))
    assert "no writes yet" in shown and "0 record(s) differ" in shown


def test_policy_search_keeps_matching_sections():
    text, count = matching(AIRLINE.policy, "certificate")
    assert count >= 1 and "certificate" in text.lower()
    assert matching(AIRLINE.policy, "zebra-crossing") == ("", 0)
    assert matching(AIRLINE.policy, "")[0] == AIRLINE.policy


def test_cards_show_goal_and_emotion_never_gold():
    task = Task(id="t1", domain="airline", instruction="You want to cancel ABC123. If the agent refuses, insist. "
                "Emotion Instruction: be upset", actions=[Action("cancel_reservation", {"reservation_id": "ABC123"})],
                known_info={"user_id": "u_1"})
    wants, prefs = split_goal(task.goal)
    assert wants == ["You want to cancel ABC123."] and prefs == ["If the agent refuses, insist."]
    card = plain(task_card(task))
    assert "u_1" in card and "cancel_reservation" not in card and "Emotion Instruction" not in card
    from tauplay.core.emotions import condition_from_word

    cond = condition_from_word("frustrated", trigger="the flight was cancelled twice")
    emo = plain(emotion_card(cond))
    for part in ("anger", "frustration", "politeness", "urgency", "trust", "the flight was cancelled twice",
                 "How to express it"):
        assert part in emo


async def test_the_editor_opens_with_the_cursor_at_the_end() -> None:
    from textual.app import App
    from textual.widgets import TextArea

    from tauplay.tui.screens.edit import EditScreen

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(EditScreen("Instruction", "You want a bag.\nThen stop.", multiline=True))

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        area = app.screen.query_one("#edit-area", TextArea)
        await pilot.press(*" Now.")
        assert area.text == "You want a bag.\nThen stop. Now."


def test_money_in_diffs_is_shown_to_the_cent() -> None:
    from tauplay.core.db import FieldChange, RecordChange
    from tauplay.core.display import shown_value

    assert shown_value({"amount": 59.340000000000146, "rate": 0.1234, "n": 3}) == '{"amount": 59.34, "n": 3, "rate": 0.1234}'
    # the live panel draws the same value (one renderer for every diff)
    change = RecordChange("orders", "#W1", "changed", {}, {}, (FieldChange("total", 59.340000000000146, 61.0),))
    shown = plain(render_diff({"step": 1, "tool": "t", "changes": [change.to_json()]}, [change], None, ""))
    assert "total: 59.34 → 61.0" in shown and "59.340000000000146" not in shown


def test_compare_shows_money_in_end_state_differences_to_the_cent(capsys) -> None:
    from types import SimpleNamespace

    from tauplay.commands.compare import _print
    from tauplay.core.db import FieldChange, RecordChange

    side = SimpleNamespace(emotion=None, parent_id=None, id="a1", domain="retail", task_id="t", status="done",
                           reason="stop", reward=1.0, forked_at_turn=None, calls=[], violations=[])
    change = RecordChange("orders", "#W1", "changed", {}, {},
                          (FieldChange("total", 59.340000000000146, 61.0), FieldChange("note", "a", "b")))
    _print(SimpleNamespace(a=side, b=side, same_task=True, turns=[], end_state_diff=[change]))
    out = capsys.readouterr().out
    assert "orders #W1 total: 59.34 → 61.0" in out and '"a" → "b"' in out
    assert "59.340000000000146" not in out
