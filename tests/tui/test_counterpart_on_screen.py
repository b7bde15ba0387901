"""Issue 25 through the real app: what a person sees the counterpart say. Playing the agent, the scripted user
answers "Which reservation had the cancelled flight?" with the reservation, and asked twice it does not give up;
playing the user, the gated agent says why before it transfers and answers "What does it cost?" with a price."""

from __future__ import annotations

from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tests.tui.conftest import make_app, send, your_turn


def transcript(play) -> str:
    return "\n".join(play.query_one("#transcript").lines_text)


def messages(play, role: str) -> list[str]:
    return [e.data["content"] for e in play.events if e.kind == "message" and e.role == role]


async def test_playing_the_agent_on_task_07_the_user_answers_what_is_asked(db_path):
    app = make_app(db_path, role="agent", task_id="airline-starter-07-certificate-cancelled")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await send(pilot, play, "Which reservation had the cancelled flight?")
        await your_turn(pilot, play)
        reply = messages(play, "user")[-1]
        assert "DUA6SQ" in reply and "I would also like you to send certificate" not in reply
        await send(pilot, play, "Sorry, what's the reservation number again?")
        await your_turn(pilot, play)
        again = messages(play, "user")[-1]
        assert "DUA6SQ" in again and "Do it now" not in again and not play.ended
        screen_text = transcript(play)
        assert "my reservation" in screen_text and "on reservation was" not in screen_text


async def test_playing_the_user_on_task_11_the_transfer_is_said_first(db_path):
    app = make_app(db_path, role="user", task_id="airline-starter-11-transfer-refused-cancel")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        assert isinstance(play, PlayUserScreen)
        await send(pilot, play, "I'm Ivan Nguyen, user id ivan_nguyen_9723. Please cancel my basic economy "
                                "reservation 35Z536, I changed my mind.")
        for _ in range(4):
            await your_turn(pilot, play)
            if any("transfer you" in m for m in messages(play, "agent")):
                break
            await send(pilot, play, "yes")
        assert not [e for e in play.events if e.kind == "tool_call" and e.data["name"] == "transfer_to_human_agents"]
        offer = messages(play, "agent")[-1]
        assert "not something I can do for you myself" in offer and "Shall I transfer you" in offer
        assert "transfer you to a human agent" in " ".join(transcript(play).split())


async def test_playing_the_user_what_does_it_cost_gets_the_price_shown(db_path):
    app = make_app(db_path, role="user", task_id="airline-starter-12-gift-plus-card")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await send(pilot, play, "Hi, I'm Ivan Nguyen, user id ivan_nguyen_9740. Book me a one-way business ticket "
                                "from ATL to CLT on 2024-05-26, flight HAT001, no bags, no insurance.")
        await your_turn(pilot, play)
        assert "How would you like to pay" in messages(play, "agent")[-1]  # it asks; it proposes no split
        await send(pilot, play, "Use up my whole gift card (250 dollars) first and put the rest on my credit card "
                                "ending in 3656.")
        await your_turn(pilot, play)
        await send(pilot, play, "What does it cost?")
        await your_turn(pilot, play)
        answer = messages(play, "agent")[-1]
        assert "$601" in answer and "can only help with" not in answer
        await send(pilot, play, "Whatever. Yes, go ahead.")
        await your_turn(pilot, play)
        assert messages(play, "agent")[-1].startswith("Done: book reservation")
        assert "Done: book reservation" in " ".join(transcript(play).split())
