"""Sessions with model participants over real HTTP to the local scripted OpenAI-compatible server."""

from __future__ import annotations

from tauplay.tui.screens.end import EndScreen
from tauplay.tui.widgets.transcript import Transcript
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn

BAGS = {"reservation_id": "S6Q6LB", "total_baggages": 3, "nonfree_baggages": 1, "payment_id": "credit_card_5773697"}


def _transcript_text(screen) -> str:
    return "\n".join(t.plain for t in screen.query_one(Transcript)._texts)


async def test_play_the_user_against_an_llm_agent(db_path, llm_server):
    q = llm_server.queue("agent")
    q.tool_call("get_reservation_details", {"reservation_id": "S6Q6LB"})
    q.text("I can add one paid bag for [bold]50[/bold] dollars. Shall I?")
    q.tool_call("update_reservation_baggages", BAGS)
    q.text("Done [link=http://x]click[/link]")
    app = make_app(db_path, role="user", agent_model="openai/agent", agent_api_base=llm_server.url)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, "Add a paid bag to S6Q6LB please.")
        await send(pilot, play, "yes")
        await your_turn(pilot, play, what="the model's last answer")
        text = _transcript_text(play)
        # model text is shown literally, never read as markup
        assert "[bold]50[/bold]" in text and "[link=http://x]click[/link]" in text
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.value == 1.0
    # the model saw the user's messages and the tool results
    requests = llm_server.requests_for("agent")
    assert len(requests) == 4
    assert any(m.get("role") == "tool" for m in requests[1]["messages"])
    assert requests[0]["messages"][-1]["content"] == "Add a paid bag to S6Q6LB please."
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert session.agent["kind"] == "llm" and session.agent["model"] == "openai/agent"
    assert (session.status, session.reward) == ("finished", 1.0)
    agent_texts = [e.data["content"] for e in store.events(session.id) if e.kind == "message" and e.role == "agent"]
    assert agent_texts[-1] == "Done [link=http://x]click[/link]"


async def test_play_the_agent_against_an_llm_user(db_path, llm_server):
    q = llm_server.queue("user")
    q.text("I want one more paid bag on reservation S6Q6LB, card ending 0636.")
    q.text("Yes, go ahead.")
    q.text("Thanks. ###STOP###")
    app = make_app(db_path, role="agent", user_model="openai/user", user_api_base=llm_server.url)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, 'get_reservation_details(reservation_id="S6Q6LB")', box="#call-input")
        await send(pilot, play, "Adding one paid bag for 50 dollars on credit_card_5773697. OK?")
        await send(pilot, play, 'update_reservation_baggages("S6Q6LB", 3, 1, "credit_card_5773697")',
                   box="#call-input")
        await send(pilot, play, "Done.")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.reason == "user_stop" and app.screen.outcome.value == 1.0
    assert len(llm_server.requests_for("user")) == 3
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert session.user["model"] == "openai/user" and session.role == "agent"
    user_texts = [e.data["content"] for e in store.events(session.id) if e.kind == "message" and e.role == "user"]
    assert user_texts == ["I want one more paid bag on reservation S6Q6LB, card ending 0636.", "Yes, go ahead.",
                          "Thanks. ###STOP###"]


async def test_a_model_server_error_is_a_notification_not_a_crash(db_path, llm_server):
    llm_server.queue("agent").error(400, "bad request").error(400, "bad request")
    app = make_app(db_path, role="user", agent_model="openai/agent", agent_api_base=llm_server.url)
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, "hello")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.reason == "llm_error"
        assert "model call failed" in (app.last_error or "")
    store = open_store(db_path)
    (session,) = store.list_sessions()
    assert (session.status, session.termination_reason) == ("failed", "llm_error")
