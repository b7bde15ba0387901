"""The gated offline agent: it uses only what the user said or a tool returned, hears what the person says,
confirms writes in words, and on the published tasks scores as the oracle does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tauplay.core.domain import available_domains, get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import MessageData, ToolCallData, ToolResultData
from tauplay.core.grounding import Evidence, leaves, needs_grounding, normalize, values_heard
from tauplay.core.tasks import load_tasks
from tauplay.sim.gated import GatedAgent, answer_kind
from tauplay.sim.kinds import make_agent
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation, UserReply
from tauplay.sim.scripted_user import ScriptedUser, knows
from tests.conftest import taubench_dir

AIRLINE = get_domain("airline")
STARTER = load_tasks(AIRLINE.task_set_path(), "airline")
BAG_TASK = STARTER.by_id("airline-starter-03-add-bag")

# Published tasks the gated agent cannot finish because their instruction never states a value the gold
# write needs and no tool shows it (the oracle, which copies gold, still can). Each was read by hand.
UNREACHABLE = {
    "airline": {
        "39": "the new passenger's date of birth is neither in the instruction nor in any record a tool shows",
    },
    "retail": {
        "6": "the new default address has no zip in the instruction (gold: 10487)",
        "13": "the instruction says only 'a new location in New York' (gold: 6768 Washington Boulevard ...)",
        "15": "the instruction's address (7382 Jefferson Avenue ...) is not gold's (5520 Lincoln Street ...)",
        "25": "the instruction's address (8090 Madison Drive ...) is not gold's (291 Jefferson Avenue ...)",
        "32": "the new shipping address has no zip in the instruction (gold: 67056)",
        "40": "the new shipping address has no zip in the instruction (gold: 21955)",
        "42": "the instruction says only 'a new address in Jacksonville' (gold: 791 Elm Street ...)",
        "65": "the new address has no zip in the instruction (gold: 90112)",
    },
}


async def play(domain: Any, task: Any, database: Any, agent: Any, user: Any = None,
               limits: Limits | None = None) -> Outcome:
    conversation = Conversation(domain, task, Environment(domain, database), task.emotion)
    return await Orchestrator(agent, user or ScriptedUser(), conversation, limits=limits or Limits()).run()


class ListUser:
    """A user who says the given lines in order, then stops."""

    kind = "test"

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def respond(self, conversation: Conversation) -> UserReply:
        n = len(conversation.said("user"))
        return UserReply(self.lines[n] if n < len(self.lines) else "###STOP###")


def calls(outcome: Outcome) -> list[ToolCallData]:
    return [e.as_(ToolCallData) for e in outcome.events if e.kind == "tool_call" and e.role == "agent"]


def agent_said(outcome: Outcome) -> list[MessageData]:
    return [e.as_(MessageData) for e in outcome.events if e.kind == "message" and e.role == "agent"]


# -- the published tasks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("domain_name", ["airline", "retail"])
async def test_same_reward_as_the_oracle_on_the_published_tasks(domain_name):
    from tauplay.core.audit import audit_task

    folder = taubench_dir(domain_name)
    domain = get_domain(domain_name)
    tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
    assert len(tasks) == 70
    database = domain.database(folder)
    unreachable = UNREACHABLE[domain_name]
    # Tasks whose gold breaks one of the domain's rules (the audit's policy_violation): the gated agent refuses
    # that write, naming the rule, where the oracle copies it.
    forbidden = {t.id for t in tasks if any(f.check == "policy_violation"
                                            for f in audit_task(domain, database, t).findings)}
    differ, refused = [], set()
    for task in tasks:
        oracle = await play(domain, task, database, OracleAgent())
        gated = await play(domain, task, database, GatedAgent())
        if oracle.value != gated.value:
            differ.append(task.id)
        if any("policy rule" in m.content for m in agent_said(gated)):
            refused.add(task.id)
        if task.id in unreachable:
            # Honest about the exception: some value a gold write needs is stated nowhere in the instruction.
            needed = [leaf.value for a in task.actions if domain.tool_map[a.name].is_write
                      for leaf in leaves(a.kwargs) if needs_grounding(leaf)]
            assert any(not knows(task, v) for v in needed), task.id
    assert set(differ) <= set(unreachable) | forbidden, sorted(set(differ) - set(unreachable) - forbidden)
    assert refused <= forbidden, sorted(refused - forbidden)  # it refuses only what a rule forbids
    assert refused, "the published gold breaks rules the gated agent should refuse"
    assert len(tasks) - len(differ) >= 70 - len(set(unreachable) | forbidden)



@pytest.mark.parametrize("domain_name", ["airline", "retail"])
async def test_the_gated_agent_identifies_the_user_and_checks_first_as_the_policy_asks(domain_name):
    """A competent agent: before a write it identifies the user and runs the look-up the domain's rules put
    first (the published gold actions often skip them), so the policy checks find nothing of the kind."""
    from tauplay.core.policy_checks import check_policy

    folder = taubench_dir(domain_name)
    domain = get_domain(domain_name)
    tasks = load_tasks(folder / "tasks_test.json", domain.name).tasks
    database = domain.database(folder)
    broken = {}
    for task in tasks:
        outcome = await play(domain, task, database, GatedAgent())
        rules = {v.rule for v in check_policy(outcome.events, domain)}
        if rules & {"write_before_identified", "checked_first"}:
            broken[task.id] = sorted(rules)
    assert not broken, broken


# -- what the person says ---------------------------------------------------------------------------------

async def test_a_bare_greeting_gets_a_question_and_no_tool_call():
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), ListUser("Hi"))
    assert calls(out) == []
    replies = agent_said(out)
    assert len(replies) >= 2 and "?" in replies[-1].content and replies[-1].intent == "greet"


async def test_a_wrong_id_is_looked_up_as_given_and_reported_not_found():
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(),
                     ListUser("I want to add a bag to my reservation ZZZ999."))
    made = calls(out)
    assert made and made[0].name == "get_reservation_details" and made[0].arguments == {"reservation_id": "ZZZ999"}
    gold_id = BAG_TASK.actions[0].kwargs["reservation_id"]
    assert all(gold_id not in str(c.arguments) for c in made)
    result = next(e.as_(ToolResultData) for e in out.events if e.kind == "tool_result")
    assert result.error
    report = agent_said(out)[-1]
    assert report.intent == "not_found" and "could not find" in report.content and "ZZZ999" in report.content


async def test_an_unrelated_request_is_politely_refused():
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), ListUser("What's the weather in Paris?"))
    assert calls(out) == []
    assert agent_said(out)[-1].intent == "refuse" and "sorry" in agent_said(out)[-1].content.lower()


@pytest.mark.parametrize("text", ["yes", "YES, add the bag", "sure, go ahead", "Yes please."])
def test_a_clear_yes(text):
    assert answer_kind(text) == "yes"


@pytest.mark.parametrize("text,kind", [("no", "no"), ("No, not now.", "no"), ("How much does it cost?", "question"),
                                       ("yes?", "question"), ("hmm", "other")])
def test_other_answers(text, kind):
    assert answer_kind(text) == kind


class NoThenYes(ScriptedUser):
    """The scripted user, except that it turns the first proposal down and comes back to it after."""

    async def respond(self, conversation: Conversation) -> UserReply:
        last = conversation.last_said("agent")
        mine = [m.content for m in conversation.said("user")]
        if last is not None and last.intent == "confirm" and "No, not now." not in mine:
            return UserReply("No, not now.")
        if last is not None and last.intent == "skip":
            return UserReply("Actually, YES, add the bag.")
        return await super().respond(conversation)


async def test_no_then_yes_leads_to_the_write():
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), NoThenYes())
    kinds = [(e.kind, e.data.get("content") or e.data.get("name")) for e in out.events if e.kind in ("message", "tool_call")]
    no = kinds.index(("message", "No, not now."))
    write = kinds.index(("tool_call", "update_reservation_baggages"))
    assert write > no
    assert any(m.intent == "skip" for m in agent_said(out))
    assert out.value == 1.0


async def test_a_question_about_a_proposal_gets_it_again_and_nothing_is_written():
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), ListUser(
        "My user id is " + BAG_TASK.user_id + ". Please add a bag to reservation "
        + BAG_TASK.actions[0].kwargs["reservation_id"] + ".", "what will it cost me?"), limits=Limits(max_steps=40))
    assert "update_reservation_baggages" not in [c.name for c in calls(out)]


def test_gated_is_a_registered_agent_kind():
    made = make_agent({"kind": "gated"})  # the gated agent, its module loaded at its first move (kinds.py)
    assert made.kind == "gated" and made.describe() == GatedAgent().describe()
    assert isinstance(made.agent, GatedAgent)  # type: ignore[attr-defined]


def test_the_person_playing_the_user_meets_the_gated_agent_by_default():
    from tauplay.tui.session import PlayConfig, participants

    agent, user = participants(PlayConfig(role="user", domain="airline"))
    assert agent == {"kind": "gated"} and user["kind"] == "human"
    assert participants(PlayConfig(role="user", domain="airline", agent_kind="oracle"))[0] == {"kind": "oracle"}


# -- it never says what nobody said -------------------------------------------------------------------------

def _starter_domains() -> list[str]:
    names = []
    for name in available_domains():
        try:
            domain = get_domain(name)
        except Exception:  # an optional adapter that is not installed has no starter tasks to check
            continue
        if "starter" in domain.task_sets and domain.scripted_user is None:
            names.append(name)
    return names


@pytest.mark.parametrize("domain_name", _starter_domains())
async def test_no_agent_message_holds_a_gold_value_before_it_is_in_view(domain_name):
    domain = get_domain(domain_name)
    tasks = load_tasks(domain.task_set_path("starter"), domain.name).tasks
    assert tasks
    for task in tasks:
        out = await play(domain, task, domain.database(), GatedAgent(), limits=Limits(max_steps=80))
        secret: set[str] = set()
        for action in task.actions:
            spec = domain.tool_map.get(action.name) or domain.user_tool_map.get(action.name)
            if action.requestor == "user" or spec is None:
                continue  # a step on the user's own device is the agent's instruction, not the user's data
            for leaf in leaves(action.kwargs):
                # Choices the schema itself spells out (an enum, or "'add', 'remove' or 'list'") are public.
                schema_choices = _choices(spec.parameters, leaf.path)
                if isinstance(leaf.value, str) and len(normalize(leaf.value)) >= 3 and needs_grounding(leaf) \
                        and leaf.value not in schema_choices:
                    secret.add(leaf.value)
        user_texts: list[str] = []
        tool_texts: list[str] = []
        for e in out.events:
            if e.kind == "message" and e.role == "user":
                user_texts.append(e.data["content"])
            elif e.kind == "tool_result" and not e.data.get("error"):
                tool_texts.append(e.data["output"])
            elif e.kind == "message" and e.role == "agent":
                view = Evidence(user=user_texts, tools=tool_texts, known=[domain.policy])  # its policy too
                text = normalize(e.data["content"])
                for value in secret:
                    if f" {normalize(value)} " in f" {text} ":
                        assert view.grounded(value), (task.id, value, e.data["content"])
            elif e.kind == "tool_call" and e.role == "agent":
                # its policy too, and a value the person said in the domain's everyday words for it
                heard = values_heard(user_texts, domain.value_words)
                view = Evidence(user=user_texts + heard, tools=tool_texts, known=[domain.policy])
                for leaf in leaves(e.data["arguments"]):
                    if isinstance(leaf.value, str) and needs_grounding(leaf):
                        assert view.grounded(leaf.value), (task.id, e.data["name"], leaf)


def _choices(schema: dict[str, Any], path: tuple[Any, ...]) -> list[Any]:
    for step in path:
        schema = schema.get("items", {}) if isinstance(step, int) else schema.get("properties", {}).get(step, {})
    listed = re.findall(r"[\w-]+", schema.get("description") or "")  # "(routine_checkup, follow_up or ...)"
    return list(schema.get("enum") or []) + [w for w in listed if not re.search(r"\d", w)]


async def test_gated_finishes_most_starter_tasks_of_airline_and_retail():
    for name in ("airline", "retail"):
        domain = get_domain(name)
        tasks = load_tasks(domain.task_set_path("starter"), name).tasks
        rewards = [(await play(domain, t, domain.database(), GatedAgent())).value for t in tasks]
        assert sum(r == 1.0 for r in rewards) >= len(tasks) - 2, (name, rewards)


def test_tauplay_run_agent_gated_on_published_tasks_matches_oracle(tmp_path, capsys):
    import json as _json

    from tauplay.cli import main

    folder = taubench_dir("airline")
    rewards = {}
    for kind in ("oracle", "gated"):
        code = main(["run", "--agent", kind, "--user", "scripted", "--domain", "airline", "--data", str(folder),
                     "--tasks", str(folder / "tasks_test.json"), "--task-ids", "1", "2", "3", "8", "39",
                     "--db", str(tmp_path / "s.db"), "--json"])
        out = capsys.readouterr().out
        assert code == 0, out
        report = _json.loads(out)
        assert report["agent"] == {"kind": kind}
        rewards[kind] = {s["task_id"]: s["reward"] for s in report["sessions"]}
    # (task 0's gold changes the trip's destination, which the policy forbids: the gated agent refuses it)
    reachable = {t for t in rewards["oracle"] if t not in UNREACHABLE["airline"]}
    assert len(reachable) == 4
    assert all(rewards["gated"][t] == rewards["oracle"][t] == 1.0 for t in reachable), rewards


async def test_a_write_waits_until_the_person_asks_for_it():
    rid = BAG_TASK.actions[0].kwargs["reservation_id"]
    total = BAG_TASK.actions[1].kwargs["total_baggages"]
    card = re.search(r"card ending in (\d{4})", BAG_TASK.instruction).group(1)  # type: ignore[union-attr]
    out = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), ListUser(
        f"My user id is {BAG_TASK.user_id}. What is on reservation {rid}?", "No, that's all."))
    assert not any(m.intent == "confirm" for m in agent_said(out))
    assert "update_reservation_baggages" not in [c.name for c in calls(out)]
    asked = await play(AIRLINE, BAG_TASK, AIRLINE.database(), GatedAgent(), ListUser(
        f"My user id is {BAG_TASK.user_id}. Please add a bag to reservation {rid}, so {total} in total, on my "
        f"card ending in {card}.", "yes"))
    assert "update_reservation_baggages" in [c.name for c in calls(asked)]


# -- acting on what is said, never on what the task holds (issue 12) --------------------------------------

def _published(domain_name: str, task_id: str) -> tuple[Any, Any, Any]:
    folder = taubench_dir(domain_name)
    domain = get_domain(domain_name)
    task = next(t for t in load_tasks(folder / "tasks_test.json", domain.name).tasks if t.id == task_id)
    return domain, task, domain.database(folder)


async def test_thats_all_after_the_last_requested_write_leads_to_no_further_proposal():
    # Published airline task 47: gold cancels EJTH83 and then sends a certificate the person never asks for.
    domain, task, database = _published("airline", "47")
    assert [a.name for a in task.actions if domain.tool_map[a.name].is_write] == ["cancel_reservation",
                                                                                  "send_certificate"]
    out = await play(domain, task, database, GatedAgent(), ListUser(
        "I am Ava Li, my user id is ava_li_8840. Please cancel my reservation EJTH83.", "yes",
        "That's all, thanks.", "No, that's all.", "That's all, thanks."))
    names = [c.name for c in calls(out)]
    assert "cancel_reservation" in names
    assert "send_certificate" not in names
    after_cancel = [m for m in agent_said(out) if m.intent == "confirm" and "cancel" not in m.content]
    assert after_cancel == [], [m.content for m in after_cancel]
    assert not any("certificate" in m.content for m in agent_said(out))


async def test_a_value_of_a_write_is_no_request_for_it():
    # The reservation named to add a bag to is not a request to cancel it (published airline task 6 holds both).
    domain, task, database = _published("airline", "6")
    out = await play(domain, task, database, GatedAgent(), ListUser(
        "I am Lei Patel, user id lei_patel_4666. I want to update the bags on my reservation C2HHXF.",
        "The reservation id is C2HHXF.", "That's all.", "That's all.", "That's all."))
    assert not any(m.intent == "confirm" and "cancel" in m.content for m in agent_said(out))
    assert "cancel_reservation" not in [c.name for c in calls(out)]


async def test_compensation_is_sent_only_when_asked_for_on_the_published_airline_tasks():
    from tauplay.core.policy_checks import check_policy

    folder = taubench_dir("airline")
    domain = get_domain("airline")
    database = domain.database(folder)
    flagged = []
    certificates = 0
    for task in load_tasks(folder / "tasks_test.json", domain.name).tasks:
        out = await play(domain, task, database, GatedAgent())
        certificates += "send_certificate" in [c.name for c in calls(out)]
        if any(v.rule == "compensation_unprompted" for v in check_policy(out.events, domain)):
            flagged.append(task.id)
    assert certificates >= 10  # the published tasks do ask for certificates: the check has something to see
    assert len(flagged) <= 1, flagged


async def test_it_answers_no_question_the_person_did_not_ask() -> None:
    """Was (tmux, starter 10): a person asking for a bag got "The answer you asked for: 224", the fare of a
    search between airports they never named (the task's secret), picked from the list of every airport."""
    fare = STARTER.by_id("airline-starter-10-cheapest-fare")
    unrelated = await play(AIRLINE, fare, AIRLINE.database(), GatedAgent(), ListUser(
        "Hi, I want to add a checked bag to reservation S6Q6LB, user ethan_jackson_8446.", "ok"))
    assert "search_direct_flight" not in [c.name for c in calls(unrelated)]
    assert not any("answer you asked for" in m.content for m in agent_said(unrelated))
    asked = await play(AIRLINE, fare, AIRLINE.database(), GatedAgent(), ListUser(
        f"Hi, I am {fare.user_id}. What is the cheapest economy fare for a direct flight from ATL to CLT on "
        "2024-05-24?", "ok"))
    assert [c.arguments for c in calls(asked) if c.name == "search_direct_flight"] == [
        {"origin": "ATL", "destination": "CLT", "date": "2024-05-24"}]
    assert asked.value == 1.0
