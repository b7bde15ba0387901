"""Answers on tasks (issue 24, item 1): a Tracer task whose instruction asks for a value carries it in `outputs`,
taken from the gold trace, in a form the agent's messages can be matched against; the substring judge then says
"propagated" when the final answer misses it, and gives no verdict where a task asks for nothing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.events import Event, InjectionData, MessageData, ToolCallData, ToolResultData
from tauplay.core.gold import run_actions
from tauplay.core.judging import case_of, substring_judgment
from tauplay.core.tasks import load_tasks
from tauplay.tracer import Settings, generate
from tauplay.tracer.facts import answer

# Sentences of an instruction that ask the agent for a value (what `outputs` must then hold).
ASKS_FOR_A_TOTAL = "ask for the total before you agree"


@pytest.fixture(scope="module")
def travel_tasks() -> list[Any]:
    domain = get_domain("travel")
    return generate(domain, domain.database(), Settings(n=12, seed=5, depth=(2, 5))).tasks.tasks


def _booked_total(task: Any) -> float:
    domain = get_domain("travel")
    run = run_actions(domain, domain.database(), task.actions)
    (booked,) = [json.loads(r.output) for a, r in zip(task.actions, run.results, strict=True)
                 if a.name == "create_booking"]
    return float(booked["price"]["total"])


def test_a_task_asking_for_a_fare_has_it_in_outputs(travel_tasks: list[Any]) -> None:
    asking = [t for t in travel_tasks if ASKS_FOR_A_TOTAL in t.instruction]
    assert asking, "the seed gives no booking that asks for its total"
    for task in asking:
        assert answer(_booked_total(task)) in task.outputs, task.id  # the fare the gold booking charged


def test_a_task_that_asks_for_nothing_has_no_outputs() -> None:
    """Airline's Tracer goals ask nothing of the agent (they state what they want): no outputs."""
    tasks = load_tasks(get_domain("airline").task_set_path("test"), "airline").tasks
    assert tasks and all(not re.search(r"\bask (how|what|for the|whether)\b", t.instruction, re.I) for t in tasks)
    assert all(t.outputs == [] for t in tasks)


@pytest.mark.parametrize(("value", "text"), [(55000, "55000"), (24.5, "24.5"), (8.829999999999984, "8.83"),
                                             (1530.0, "1530"), ("APPT215", "APPT215"), ("101.08", "101.08")])
def test_answers_are_written_as_an_agent_would_say_them_without_commas(value: Any, text: str) -> None:
    assert answer(value) == text


SHIPPED = ["basketball", "movie", "restaurant", "school", "telecom", "telehealth", "travel"]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_output_is_in_what_the_gold_run_returned(name: str) -> None:
    """So an agent can find it: each output appears in the gold calls' results (commas ignored, as the judge
    reads them), and the sets that ask for values have some."""
    domain = get_domain(name)
    tasks = load_tasks(domain.task_set_path("test"), name).tasks
    assert any(t.outputs for t in tasks)
    for task in (t for t in tasks if t.outputs):
        said = " ".join(r.output for r in run_actions(domain, domain.database(), task.actions).results)
        seen = said.lower().replace(",", "")
        for out in task.outputs:
            assert out.lower() in seen, (task.id, out)


def _session(total: str | None) -> list[Event]:
    """An injected call, then the agent's final answer (with the fare, or another one)."""
    inj = InjectionData(call_id="c", tool="create_booking", argument="check_in", kind="semantic_wrong",
                        original={"check_in": "a"}, injected={"check_in": "b"})
    said = f"Booked. The total is ${total}." if total else "Booked. The total is $1."
    return [Event.of(0, "system", inj),
            Event.of(1, "agent", ToolCallData(call_id="c", name="create_booking", arguments={"check_in": "b"})),
            Event.of(2, "env", ToolResultData(call_id="c", name="create_booking", output="{}")),
            Event.of(3, "agent", MessageData(content=said))]


def test_the_substring_judge_says_propagated_when_the_answer_misses_the_fare(travel_tasks: list[Any]) -> None:
    task = next(t for t in travel_tasks if ASKS_FOR_A_TOTAL in t.instruction)
    fare = f"{_booked_total(task):,.2f}"  # as an agent says it: "$1,530.00"
    missed = substring_judgment(case_of("s1", task.to_json(), _session(None)))
    assert missed is not None and missed.label == "yes" and missed.reason.startswith("the final answer lacks")
    held = substring_judgment(case_of("s2", task.to_json(), _session(fare)))
    assert held is not None and held.label == "no"
    nothing = next(t for t in travel_tasks if not t.outputs)
    assert substring_judgment(case_of("s3", nothing.to_json(), _session(fare))) is None  # nothing to judge against
