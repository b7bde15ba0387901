"""Both LLM participants through real litellm calls over HTTP to the local scripted server, saved to a real
SQLite store: rewards 1 / 0 / -1 and the faults (HTTP 500, timeout, malformed tool-call JSON, unknown tool,
Rich markup) end or continue the session with the right reason and lose no event."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import STOP_TOKEN, TERMINATION_REASONS, UNSATISFIED_TOKEN
from tauplay.llm import LLMConfig
from tauplay.sim.llm_participants import LLMAgent, LLMUser
from tauplay.sim.orchestrator import Limits
from tauplay.sim.participants import Conversation
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore

TASK_ID = "airline-starter-03-add-bag"  # gold: get_reservation_details, then update_reservation_baggages
GOLD_WRITE = {"reservation_id": "S6Q6LB", "total_baggages": 3, "nonfree_baggages": 1,
              "payment_id": "credit_card_5773697"}


@pytest.fixture
def setup() -> SessionSetup:
    domain = get_domain("airline")
    task = load_tasks(domain.task_set_path(), "airline").by_id(TASK_ID)
    assert [a.kwargs for a in task.actions][1] == GOLD_WRITE  # the test's scripted calls rely on it
    return SessionSetup(domain, task, domain.database())


@pytest.fixture
def store(tmp_path) -> SessionStore:
    s = SessionStore(str(tmp_path / "sessions.db"))
    yield s
    s.close()


def participants(server, *, timeout: float = 10, retries: int = 1) -> tuple[LLMAgent, LLMUser]:
    agent = LLMAgent(LLMConfig("openai/agent", api_base=server.url, timeout=timeout, retries=retries))
    user = LLMUser(LLMConfig("openai/user", api_base=server.url, timeout=timeout, retries=retries))
    return agent, user


def saved_matches(store: SessionStore, sid: str, events: list) -> None:
    """Everything the orchestrator emitted is in the store, in order, seq 0..n-1, ending in terminated."""
    saved = store.events(sid)
    assert [e.seq for e in saved] == list(range(len(saved)))
    assert [(e.kind, e.role, e.data.get("content"), e.data.get("name")) for e in saved] == \
        [(e.kind, e.role, e.data.get("content"), e.data.get("name")) for e in events]
    assert saved[-1].kind == "terminated"


async def test_gold_actions_score_one(llm_server, setup, store):
    llm_server.queue("user").text("I need to add a bag to reservation S6Q6LB.").text("Yes, please.").text(STOP_TOKEN)
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "S6Q6LB"}) \
        .text("One extra paid bag, 3 in total, on card credit_card_5773697. Shall I go ahead (yes/no)?") \
        .tool_call("update_reservation_baggages", GOLD_WRITE).text("Done: you now have 3 bags.")
    sid, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_stop"
    assert out.value == 1.0 and out.reward.db_match
    assert out.faults == []
    saved_matches(store, sid, out.events)
    record = store.get_session(sid)
    assert (record.status, record.termination_reason, record.reward) == ("finished", "user_stop", 1.0)
    # The agent model saw the policy, the tools and the tool result; the user model the mirrored roles.
    first_agent = llm_server.requests_for("agent")[0]
    assert "policy" in first_agent["messages"][0]["content"].lower() or len(first_agent["messages"][0]["content"]) > 500
    assert {t["function"]["name"] for t in first_agent["tools"]} >= {"update_reservation_baggages", "think"}
    second_agent = llm_server.requests_for("agent")[1]
    assert second_agent["messages"][-1]["role"] == "tool" and "S6Q6LB" in second_agent["messages"][-1]["content"]
    user_req = llm_server.requests_for("user")[0]
    assert "S6Q6LB" in user_req["messages"][0]["content"]  # the task
    assert "annoyed" in user_req["messages"][0]["content"]  # its emotion condition, rendered
    assert user_req["messages"][1] == {"role": "user", "content": "Hi! How can I help you today?"}
    assert llm_server.requests_for("user")[1]["messages"][2]["role"] == "assistant"


async def test_wrong_write_scores_zero(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag to S6Q6LB please.").text(STOP_TOKEN)
    wrong = {**GOLD_WRITE, "total_baggages": 4, "nonfree_baggages": 2}
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "S6Q6LB"}) \
        .tool_call("update_reservation_baggages", wrong).text("Done.")
    sid, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_stop" and out.value == 0.0 and not out.reward.db_match
    categories = {f["category"] for f in out.faults}
    assert {"Extra Action", "Missed Action"} <= categories
    assert store.get_session(sid).reward == 0.0
    saved_matches(store, sid, out.events)


async def test_unsatisfied_user_scores_minus_one(llm_server, setup, store):
    llm_server.queue("user").text("My bag, reservation S6Q6LB.").text(UNSATISFIED_TOKEN)
    llm_server.queue("agent").text("Please hold while I read our terms and conditions to you.")
    sid, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_abandoned" and out.value == -1.0 and out.reward.abandoned
    record = store.get_session(sid)
    assert (record.status, record.reward) == ("abandoned", -1.0)
    saved_matches(store, sid, out.events)


async def test_persistent_http_500_ends_with_llm_error_and_keeps_events(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag to S6Q6LB.")
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "S6Q6LB"}) \
        .error(500).error(500)
    sid, out = await run_session(store, setup, *participants(llm_server, retries=1))
    assert out.reason == "llm_error" and "500" in (out.error or "")
    assert len(llm_server.requests_for("agent")) == 3  # one good call, then a failure and its retry
    kinds = [e.kind for e in store.events(sid)]
    assert kinds == ["session_started", "message", "message", "tool_call", "tool_result", "notice", "terminated"]
    assert store.get_session(sid).status == "failed"
    saved_matches(store, sid, out.events)


async def test_timeout_ends_with_llm_error(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag to S6Q6LB.")
    llm_server.queue("agent").hang(3)
    sid, out = await run_session(store, setup, *participants(llm_server, timeout=0.5, retries=0))
    assert out.reason == "llm_error" and out.error and out.error.startswith("timeout")
    saved_matches(store, sid, out.events)


async def test_user_model_failure_ends_with_llm_error(llm_server, setup, store):
    llm_server.queue("user").error(503)
    sid, out = await run_session(store, setup, *participants(llm_server, retries=0))
    assert out.reason == "llm_error"
    assert [e.kind for e in store.events(sid)] == ["session_started", "message", "notice", "terminated"]


async def test_malformed_tool_json_is_fed_back_and_the_session_goes_on(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag to S6Q6LB.").text("yes").text(STOP_TOKEN)
    llm_server.queue("agent").tool_call("get_reservation_details", '{"reservation_id": ') \
        .tool_call("get_reservation_details", {"reservation_id": "S6Q6LB"}).text("Confirm (yes/no)?") \
        .tool_call("update_reservation_baggages", GOLD_WRITE).text("Done.")
    sid, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_stop" and out.value == 1.0
    bad_call, bad_result = out.events[3], out.events[4]
    assert bad_call.kind == "tool_call" and bad_call.data["raw_arguments"] == '{"reservation_id": '
    assert bad_result.data["error"] and "not valid JSON" in bad_result.data["output"]
    # The model was told, as the result of its own call, and carried on.
    retry_request = llm_server.requests_for("agent")[1]["messages"]
    assert retry_request[-2]["tool_calls"][0]["function"]["arguments"] == '{"reservation_id": '
    assert retry_request[-1]["role"] == "tool" and "not valid JSON" in retry_request[-1]["content"]
    assert out.events[-1].data["errors"] == 1
    saved_matches(store, sid, out.events)


async def test_unknown_tool_is_an_error_result_and_errors_are_limited(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag to S6Q6LB.")
    llm_server.queue("agent").tool_call("teleport_bag", {"to": "S6Q6LB"}).tool_call("teleport_bag", {"to": "x"})
    sid, out = await run_session(store, setup, *participants(llm_server), limits=Limits(max_errors=2))
    assert out.reason == "too_many_errors"
    results = [e for e in out.events if e.kind == "tool_result"]
    assert len(results) == 2 and all("unknown tool 'teleport_bag'" in r.data["output"] for r in results)
    assert llm_server.requests_for("agent")[1]["messages"][-1]["content"].startswith("Error: unknown tool")
    saved_matches(store, sid, out.events)


async def test_rich_markup_is_stored_and_passed_on_literally(llm_server, setup, store):
    markup = "[bold red]x[/] [link=https://example.com]click[/link] [/] [[escaped]] \\[not]"
    llm_server.queue("user").text(markup).text(STOP_TOKEN)
    llm_server.queue("agent").text(f"You said: {markup}")
    sid, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_stop"
    saved = [e.data["content"] for e in store.events(sid) if e.kind == "message"]
    assert saved[1] == markup and saved[2] == f"You said: {markup}"
    assert llm_server.requests_for("agent")[0]["messages"][-1]["content"] == markup
    assert llm_server.requests_for("user")[1]["messages"][-1]["content"] == f"You said: {markup}"


async def test_step_limit_transfer_and_agent_stop(llm_server, setup, store):
    llm_server.queue("user").text("Add a bag.").text("Hm?")
    llm_server.queue("agent").text("Which reservation?").text("Which one?")
    _, out = await run_session(store, setup, *participants(llm_server), limits=Limits(max_steps=5))
    assert out.reason == "max_steps" and out.events[-1].data["steps"] == 5
    assert len(llm_server.queue("user")) == len(llm_server.queue("agent")) == 0

    llm_server.queue("user").text("Get me a human now.")
    llm_server.queue("agent").tool_call("transfer_to_human_agents", {"summary": "wants a human"})
    _, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "transfer" and out.value == 0.0  # the bag the task asks for was never added

    llm_server.queue("user").text("Bye then.")
    llm_server.queue("agent").text(f"Goodbye. {STOP_TOKEN}")
    _, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "agent_stop" and out.reason in TERMINATION_REASONS


async def test_tool_calls_in_one_reply_are_grouped_back_for_the_model(llm_server, setup, store):
    def two_calls(_request):
        from tests.support.llm_server import Reply

        calls = [{"id": f"c{i}", "type": "function",
                  "function": {"name": "get_reservation_details", "arguments": json.dumps({"reservation_id": r})}}
                 for i, r in enumerate(("S6Q6LB", "NOPE00"))]
        return Reply(content="Looking both up.", tool_calls=calls)

    llm_server.queue("user").text("Check S6Q6LB and NOPE00.").text(STOP_TOKEN)
    llm_server.queue("agent").build(two_calls).text("Found one of them.")
    _, out = await run_session(store, setup, *participants(llm_server))
    assert out.reason == "user_stop"
    replay = llm_server.requests_for("agent")[1]["messages"]
    assistant = replay[-3]
    assert assistant["content"] == "Looking both up." and [c["id"] for c in assistant["tool_calls"]] == ["c0", "c1"]
    assert [m["tool_call_id"] for m in replay[-2:]] == ["c0", "c1"]


def test_user_prompt_uses_the_published_emotion_text_without_a_condition(setup):
    task = replace(setup.task, instruction="You want a refund.\nEmotion Instruction: You are livid and curt.",
                   emotion=None)
    conv = Conversation(setup.domain, task, Environment(setup.domain, setup.database))
    prompt = LLMUser.system_prompt(conv)
    assert "You want a refund." in prompt and "You are livid and curt." in prompt
    assert prompt.count("Emotion Instruction") == 0
