"""The starter tasks the gated agent missed (README, "The three it misses"), each reversed at the grounding and in a
session with the scripted user: a value said in everyday form ("psychiatrists" for the specialty "Psychiatry",
telehealth-13), a calculator sum made of numbers the tools showed (telehealth-10), a package's check-out worked
out from its check-in and nights (travel-08); and the one loose phrase match `names_write` and the audit share."""

from __future__ import annotations

from typing import Any

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import MessageData, ToolCallData
from tauplay.core.grounding import Evidence, loosely_stated, names_write, spellings, stay_lengths
from tauplay.core.tasks import load_tasks
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser


async def play(domain_name: str, task_prefix: str) -> tuple[Outcome, Any]:
    domain = get_domain(domain_name)
    task = next(t for t in load_tasks(domain.task_set_path("starter"), domain.name).tasks
                if t.id.startswith(task_prefix))
    conversation = Conversation(domain, task, Environment(domain, domain.database()), task.emotion)
    out = await Orchestrator(GatedAgent(), ScriptedUser(), conversation, limits=Limits(max_steps=60)).run()
    return out, task


def agent_lines(out: Outcome) -> list[str]:
    return [e.as_(MessageData).content for e in out.events if e.kind == "message" and e.role == "agent"]


def agent_calls(out: Outcome) -> list[ToolCallData]:
    return [e.as_(ToolCallData) for e in out.events if e.kind == "tool_call" and e.role == "agent"]


# -- telehealth-13: "which psychiatrists speak Spanish" names the specialty Psychiatry ----------------------

@pytest.mark.parametrize(("said", "value"), [
    ("which psychiatrists speak Spanish", "Psychiatry"),
    ("a psychiatrist please", "Psychiatry"),
    ("is there a pediatrician", "Pediatrics"),
    ("I want to see a cardiologist", "Cardiology"),
    ("two action cameras", "Action Camera"),
    ("my psychiatry appointment", "Psychiatrist"),
    ("the dentists", "Dentistry"),
])
def test_a_plain_word_value_is_heard_in_its_everyday_form(said: str, value: str) -> None:
    assert Evidence(user=[said]).said_by_user(value), (said, value)


@pytest.mark.parametrize(("said", "value"), [
    ("amara rivera psychiatrists", "amara_rivera_psychiatry"),  # an id is said as it is
    ("the package h lis 03s", "H-LIS-03"),
    ("a psychic", "Psychiatry"),  # another word, not a form of it
    ("news", "new"),
    ("my phone ends 4258s", "4258"),
])
def test_ids_codes_and_other_words_are_not_heard_as_everyday_forms(said: str, value: str) -> None:
    assert not Evidence(user=[said]).said_by_user(value), (said, value)


def test_dates_keep_their_spellings_without_word_forms() -> None:
    assert not any(s.endswith("s") for s in spellings("2025-09-08"))


async def test_psychiatrists_named_the_specialty_so_it_is_not_asked_for() -> None:
    """Was: "What would you like me to look up? I would need the specialty." after "I want to know which
    psychiatrists speak it", then the user gave up (reward -1)."""
    out, _ = await play("telehealth", "telehealth-13")
    assert not any("specialty" in line for line in agent_lines(out)), agent_lines(out)
    assert any(c.name == "list_available_providers" and c.arguments == {"specialty": "Psychiatry"}
               for c in agent_calls(out)), [(c.name, c.arguments) for c in agent_calls(out)]
    assert out.value == 1.0, out.reason


# -- telehealth-10: the savings worked out with the calculator from the prices shown --------------------------

def test_a_calculator_sum_is_grounded_when_every_number_in_it_is_in_view() -> None:
    ev = Evidence(user=["how much would I save?"],
                  tools=['{"monthly_units": 30, "unit_cost_usd": 0.11, "other": [60, 0.35]}'])
    assert ev.grounded({"expression": "30 * 0.11 + 60 * 0.35"})
    assert ev.grounded("(30 * 0.11) - (60 * 0.35)")
    assert not ev.grounded("30 * 0.12")  # 0.12 is nowhere in view
    assert not ev.grounded("30 * 0.11 + 61 * 0.35")
    assert not ev.grounded("2030-11-30")  # a date is no sum


async def test_the_savings_are_worked_out_not_asked_for_as_an_expression() -> None:
    """Was: "To calculate I need the expression. Could you tell me the expression?", "I don't know the expression",
    and the savings figure (16.8) never said; the user gave up (reward -1)."""
    out, task = await play("telehealth", "telehealth-10")
    assert not any("expression" in line for line in agent_lines(out)), agent_lines(out)
    sums = [c for c in agent_calls(out) if c.name == "calculate"]
    assert [c.arguments for c in sums] == [a.kwargs for a in task.actions if a.name == "calculate"]
    assert any("16.8" in line for line in agent_lines(out))
    assert out.value == 1.0, out.reason


async def test_no_catalogue_is_read_for_a_chain_the_rules_stop_before_identification() -> None:
    """Was: the first move read the whole telemetry device catalogue (other patients' devices), the first link of a
    chain to the e-mail through `get_patient_details`, which the rules put after identification; then it asked for
    the e-mail all the same."""
    out, _ = await play("telehealth", "telehealth-10")
    calls = [c.name for c in agent_calls(out)]
    assert calls[0] == "find_patient_by_email" and "list_telemetry_devices" not in calls, calls


# -- travel-08: the check-out is the check-in plus the package's nights ---------------------------------------

def test_a_check_out_is_a_stay_length_in_view_after_a_date_in_view() -> None:
    package = '[{"package_id": "PKG-LIS-1", "name": "Lisbon Discovery", "nights": 4}]'
    ev = Evidence(user=["arriving 2025-09-08"], tools=[package])
    assert ev.grounded("2025-09-12")
    assert ev.grounded({"check_in": "2025-09-08", "check_out": "2025-09-12"})
    assert not ev.grounded("2025-09-13")  # five nights: nobody said five
    assert not ev.grounded("2025-09-04")  # before the date in view
    assert not Evidence(user=["arriving 2025-09-08"]).grounded("2025-09-12")  # no stay length in view
    assert Evidence(user=["September 8, 2025, a four-night stay"]).grounded("2025-09-12")
    assert not ev.said_by_user("2025-09-12")  # worked out, not said
    assert stay_lengths("a four-night stay, then 2 nights; 400 nights") == frozenset({4, 2})


async def test_a_package_check_out_is_worked_out_not_asked_for() -> None:
    """Was: "To check room availability I need the check out", "I don't know the check out", then the booking
    was left ("without the check out I cannot create booking"); the user gave up (reward -1)."""
    out, _ = await play("travel", "travel-starter-08")
    assert not any("check out" in line and "need" in line for line in agent_lines(out)), agent_lines(out)
    booked = [c for c in agent_calls(out) if c.name == "create_booking"]
    assert booked and booked[0].arguments["check_out"] == "2025-09-12"
    assert out.value == 1.0, out.reason


# -- one loose phrase match (was two: says_phrase beside loosely_stated) --------------------------------------

def test_everyday_request_words_are_heard_in_any_inflection() -> None:
    """`says_phrase` wanted each word's full form at the start of a word said: "upgrading" did not say "upgrade",
    "changing my flights" did not say "change flight"."""
    tools = list(get_domain("airline").tool_map)
    everyday = ("upgrade", "change flight")
    assert names_write(["I am thinking of upgrading both"], "update_reservation_flights", tools, everyday=everyday)
    assert names_write(["changing my flights"], "update_reservation_flights", tools, everyday=everyday)
    assert not names_write(["my flights are fine"], "update_reservation_flights", tools, everyday=everyday)
    assert not names_write(["change the name, not the flight"], "update_reservation_flights", tools,
                           everyday=("change flight",))  # four words between
    assert not names_write(["change it now please because of the flight"], "update_reservation_flights", tools,
                           everyday=("change flight",))


def test_the_one_loose_match_keeps_its_rules() -> None:
    assert loosely_stated("because I no longer need them", "no longer needed")
    assert not loosely_stated("I need them", "needed")  # one word: not loosely, by default
    assert loosely_stated("I needed them", "needed", least=1)
    assert loosely_stated("move every flight", "move flight")
    assert not loosely_stated("move it and then some other flight", "move flight")  # four words between
    assert not loosely_stated("flight moved", "move flight")  # in order
