"""RUSE visible offline (issue 24, item 5): on travel constraint tasks the gated agent asks for the wishes the
user has not said, in plain words, and books a trip that meets them; the scripted user answers those questions
from its instruction; a minimal user needs more turns than a comprehensive one, and under a step budget fails at
least as often. Every figure compared here comes from the runs made in the test."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from datetime import date, timedelta
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.behavior import parse_behavior
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData, ToolCallData
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import Role
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Limits, Orchestrator
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser

N_TASKS = 4


@pytest.fixture(scope="module")
def travel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any, list[Any]]:
    out = tmp_path_factory.mktemp("trip") / "tasks.json"
    assert main(["generate", "--domain", "travel", "--kind", "constraint", "--n", str(N_TASKS), "--seed", "1",
                 "--out", str(out)]) == 0
    domain = get_domain("travel")
    tasks = load_tasks(out, "travel").tasks
    assert len(tasks) == N_TASKS and all(t.constraints is not None for t in tasks)
    return domain, domain.database(None), tasks


def play(domain: Any, database: Any, task: Any, level: str | None, max_steps: int = Limits.max_steps) -> Any:
    behavior = parse_behavior(level) if level else None
    env = Environment(domain, domain.start_for(database, task))
    conversation = Conversation(domain, task, env, task.emotion)
    return asyncio.run(Orchestrator(GatedAgent(), ScriptedUser(behavior), conversation,
                                    limits=Limits(max_steps=max_steps)).run())


def messages(out: Any, role: str) -> list[MessageData]:
    return [e.as_(MessageData) for e in out.events if e.kind == "message" and e.role == role]


def calls(out: Any) -> list[ToolCallData]:
    return [e.as_(ToolCallData) for e in out.events if e.kind == "tool_call"]


def steps(out: Any) -> int:
    return sum(1 for e in out.events if e.kind in ("message", "tool_call"))


def test_gated_agent_solves_travel_constraint_tasks_when_the_user_tells_everything(travel) -> None:
    domain, database, tasks = travel
    for task in tasks:
        out = play(domain, database, task, "disclosure=comprehensive")
        assert out.reason == "user_stop" and out.value == 1.0, (task.id, out.reason, out.reward)
        booked = [c for c in calls(out) if c.name == "create_booking"]
        assert len(booked) == len(task.constraints["entities"])
        # the whole trip and its total were put to the user before the first booking, and they said yes
        proposal = next(m for m in messages(out, "agent") if m.intent == "confirm")
        assert "The total is $" in proposal.content and "yes or no" in proposal.content
        assert not out.violations, out.violations


def test_minimal_user_is_asked_in_plain_words_and_answers_from_its_instruction(travel) -> None:
    domain, database, tasks = travel
    task = tasks[0]
    out = play(domain, database, task, "disclosure=minimal")
    assert out.value == 1.0, out.reward
    user = [m.content for m in messages(out, "user")]
    agent = [m.content for m in messages(out, "agent")]
    assert user[0].count(".") <= 3 and "stay" not in user[0]  # minimal: opens with a request for help only
    assert not any("don't know" in t for t in user), user
    cities = [r["value"] for r in task.constraints["rules"] if r["field"] == "city"]
    # asked about the nights of the second city in words, answered with the instruction's own sentence
    assert f"How many nights will you stay in {cities[1]}?" in agent
    said = [(e.role, e.as_(MessageData).content) for e in out.events if e.kind == "message"]
    i = said.index(("agent", f"How many nights will you stay in {cities[1]}?"))
    nights = next(r["value"] for r in task.constraints["rules"]
                  if r["field"] == "nights" and r["entities"] == ["stay_2"])
    answer = said[i + 1][1]
    assert f"I stay {nights} nights in {cities[1]}" in answer
    # no id, code or date was ever said by the agent before a tool showed it or the user said it
    said_by_user = " ".join(user)
    first_search = next(c for c in calls(out) if c.name == "search_hotels")
    assert first_search.arguments["city"] == cities[0] and first_search.arguments["city"] in said_by_user


def test_the_agent_works_from_what_is_said_not_from_the_gold(travel) -> None:
    """The same session with the task's gold actions taken away: the agent says and books the same."""
    domain, database, tasks = travel
    task = tasks[1]
    first = play(domain, database, task, "disclosure=minimal")
    blind = play(domain, database, dataclasses.replace(task, actions=[]), "disclosure=minimal")
    assert [m.content for m in messages(first, "agent")] == [m.content for m in messages(blind, "agent")]
    assert [(c.name, c.arguments) for c in calls(first)] == [(c.name, c.arguments) for c in calls(blind)]


def test_scripted_user_answers_a_check_in_question_instead_of_not_knowing(travel) -> None:
    domain, database, tasks = travel
    task = tasks[0]
    env = Environment(domain, domain.start_for(database, task))
    conversation = Conversation(domain, task, env, task.emotion)
    conversation.events.append(Event.of(0, Role.USER, MessageData(content="I need some help.", intent="request")))
    question = MessageData(content="What is the check-in date of your first stay?", intent="ask")
    conversation.events.append(Event.of(1, Role.AGENT, question))
    reply = asyncio.run(ScriptedUser(parse_behavior("disclosure=minimal")).respond(conversation))
    arrive = next(r for r in task.constraints["rules"] if r["field"] == "check_in")
    assert "don't know" not in reply.text and re.search(r"\barrive there (on|between)\b", reply.text), reply.text
    assert arrive["text"].split(" there ", 1)[1] in reply.text


def test_minimal_needs_more_turns_and_fails_a_step_budget_at_least_as_often(travel) -> None:
    domain, database, tasks = travel
    full = {t.id: play(domain, database, t, "disclosure=comprehensive") for t in tasks}
    least = {t.id: play(domain, database, t, "disclosure=minimal") for t in tasks}
    turns = {k: (len(messages(full[k], "user")), len(messages(least[k], "user"))) for k in full}
    assert all(m > c for c, m in turns.values()), turns
    assert all(o.value == 1.0 for o in least.values())  # with room enough, minimal gets there too
    # a budget every comprehensive session fits in, measured on these runs
    budget = max(steps(o) for o in full.values())
    tight_full = [play(domain, database, t, "disclosure=comprehensive", budget) for t in tasks]
    tight_least = [play(domain, database, t, "disclosure=minimal", budget) for t in tasks]
    fails_full = sum(o.value < 1 for o in tight_full)
    fails_least = sum(o.value < 1 for o in tight_least)
    assert fails_full == 0
    assert fails_least >= fails_full and fails_least > 0, (budget, fails_least)
    assert all(o.reason == "max_steps" for o in tight_least if o.value < 1)


def test_a_person_s_short_answers_are_read_as_answers_to_the_question_asked(travel) -> None:
    """A person playing the user may answer in a few words ("pool", "4"); a longer message that states nothing
    the agent knows is not taken as an answer."""
    from tauplay.sim.trip import read_wishes

    domain, database, tasks = travel
    conversation = Conversation(domain, tasks[0], Environment(domain, database), None)
    lines = [(Role.USER, "I want to book a 2-city trip.", None),
             (Role.AGENT, "Where is your first stay? Which city would you like to stay in?", "ask"),
             (Role.USER, "Lisbon", None),
             (Role.AGENT, "How many nights will you stay in Lisbon?", "ask"), (Role.USER, "4", None),
             (Role.AGENT, "Is there any amenity the hotel in Lisbon must have?", "ask"),
             (Role.USER, "a pool and free wifi", None),
             (Role.AGENT, "What kind of room would you like in Lisbon?", "ask"),
             (Role.USER, "The stay in Rome starts the day I leave Lisbon.", None)]
    for i, (role, text, intent) in enumerate(lines):
        conversation.events.append(Event.of(i, role, MessageData(content=text, intent=intent)))
    wishes = read_wishes(conversation)
    stay = wishes.stays[0]
    assert wishes.count == 2 and stay.city == "Lisbon" and stay.nights == 4
    assert stay.amenities == ["pool", "free wifi"] and stay.room is None


def _proposed(travel: Any, text: str) -> str:
    domain, database, tasks = travel
    task = tasks[0]
    env = Environment(domain, domain.start_for(database, task))
    conversation = Conversation(domain, task, env, task.emotion)
    conversation.events.append(Event.of(0, Role.USER, MessageData(content="I need some help.", intent="request")))
    conversation.events.append(Event.of(1, Role.AGENT, MessageData(content=text, intent="confirm")))
    return asyncio.run(ScriptedUser().respond(conversation)).text


def test_a_proposal_that_breaks_a_stay_s_rule_is_corrected_not_agreed_to(travel) -> None:
    """Found playing the agent: "H-SFO-06 in San Francisco, August 15 to 16, 1 night ... The total is $200. Shall
    I book it?" got "Yes." from a user whose instruction says 2 nights there (only the total was judged). What a
    proposal states about a stay (nights, stars, arrival date) is read against that stay's rules."""
    _, _, tasks = travel
    rules = tasks[0].constraints["rules"]
    city = next(r for r in rules if r["field"] == "city" and r["entities"] == ["stay_1"])["value"]
    nights = next(r for r in rules if r["field"] == "nights" and r["entities"] == ["stay_1"])
    window = next(r for r in rules if r["field"] == "check_in" and r["kind"] == "between")
    first = window["value"][0]
    wrong = nights["value"] + 1
    reply = _proposed(travel, f"I found a Standard Double in {city}, from {first}, {wrong} nights, flexible rate. "
                              "The total is $10. Shall I book it?")
    assert reply.startswith("No, that does not fit") and nights["text"].split(" ", 2)[2] in reply, reply
    early = date.fromisoformat(first) - timedelta(days=3)
    reply = _proposed(travel, f"I found a Standard Double in {city}, arriving {early:%B} {early.day}, "
                              f"{nights['value']} nights. The total is $10. Shall I book it?")
    assert reply.startswith("No, that does not fit") and f"I arrive in {city} " in reply, reply
    stars = next((r for r in rules if r["field"] == "stars" and r["entities"] == ["stay_1"]), None)
    if stars is not None and stars["value"] > 1:
        reply = _proposed(travel, f"In {city}: a {stars['value'] - 1}-star hotel, {first}, {nights['value']} nights. "
                                  "The total is $10. Shall I book it?")
        assert reply.startswith("No, that does not fit") and "stars" in reply, reply
    # what meets the rules (and a stay the proposal does not describe) is still agreed to
    reply = _proposed(travel, f"In {city}: {first}, {nights['value']} nights. The total is $10. Shall I book it?")
    assert not reply.startswith("No"), reply


def test_a_figure_is_read_as_the_stay_whose_city_it_stands_with() -> None:
    """Several cities in one sentence: each figure belongs to the piece (between commas) that names one city, so
    "a 3-star hotel in New Orleans" is not read against San Francisco's floor of 4 stars."""
    from tauplay.sim.preference_answers import _broken_rule

    rules = [{"id": "c1", "kind": "eq", "entities": ["stay_1"], "field": "city", "value": "San Francisco"},
             {"id": "c2", "kind": "min", "entities": ["stay_1"], "field": "stars", "value": 4},
             {"id": "c3", "kind": "eq", "entities": ["stay_1"], "field": "nights", "value": 2},
             {"id": "c4", "kind": "eq", "entities": ["stay_2"], "field": "city", "value": "New Orleans"},
             {"id": "c5", "kind": "min", "entities": ["stay_2"], "field": "stars", "value": 3}]
    problem = {"rules": rules}
    fine = "A 4-star hotel in San Francisco for 2 nights, then a 3-star hotel in New Orleans. The total is $900."
    assert _broken_rule(problem, fine) is None
    assert _broken_rule(problem, "A 4-star hotel in San Francisco for 1 night, then a 3-star hotel in New Orleans.") \
        == rules[2]
    assert _broken_rule(problem, "San Francisco for 2 nights, then a 2-star hotel in New Orleans.") == rules[4]
    assert _broken_rule(problem, "I found H-SFO-06 in San Francisco, August 15 to 16, 1 night.") == rules[2]
