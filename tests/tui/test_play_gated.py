"""Playing the user against the gated agent (the default counterpart when a person plays the user): it acts only
on what the person types, so the person reaches reward 1 by typing the facts the task card gives, and the
customer's view hides the agent's tool calls all along."""

from __future__ import annotations

from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tests.tui.conftest import make_app, open_store, send, wait_until, your_turn

FACTS = {  # what the task card says, as a person would type it when asked
    "greeting": "Hi.",
    "ask": "I'd like to add one checked bag that I pay for to reservation S6Q6LB, so 3 bags in total; "
           "my user id is ethan_jackson_8446 and I pay with my card ending in 0636.",
}


def agent_messages(play: PlayUserScreen) -> list[tuple[str, str]]:
    return [(e.data.get("intent") or "", e.data["content"]) for e in play.events
            if e.kind == "message" and e.role == "agent"]


async def test_play_the_user_with_the_gated_agent_to_reward_1_by_typing_the_facts(db_path):
    app = make_app(db_path, role="user")  # no agent named: the gated agent
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen) and play.prepared.agent == {"kind": "gated"}
        await send(pilot, play, FACTS["greeting"])
        await your_turn(pilot, play)
        assert not [e for e in play.events if e.kind == "tool_call"]  # a bare greeting grounds nothing
        await send(pilot, play, FACTS["ask"])
        for _ in range(6):  # answer what it asks until it proposes the write, then say yes
            await your_turn(pilot, play)
            intent, last = agent_messages(play)[-1]
            if any(e.kind == "tool_call" and e.data["name"] == "update_reservation_baggages" for e in play.events):
                break
            await send(pilot, play, "Yes, go ahead." if intent == "confirm" else FACTS["ask"])
        await your_turn(pilot, play)
        transcript = "\n".join(play.query_one("#transcript").lines_text)
        assert "update_reservation_baggages(" not in transcript  # the write happened, out of the customer's view
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        assert app.screen.outcome.value == 1.0
    (session,) = open_store(db_path).list_sessions()
    events = open_store(db_path).events(session.id)
    assert session.agent == {"kind": "gated"} and session.reward == 1.0
    said = " ".join(e.data["content"] for e in events if e.kind == "message" and e.role == "user")
    first_call = next(e for e in events if e.kind == "tool_call")
    first_ask = next(e for e in events if e.kind == "message" and e.role == "user" and "S6Q6LB" in e.data["content"])
    assert first_call.seq > first_ask.seq and "S6Q6LB" in said  # nothing looked up before the person said it
