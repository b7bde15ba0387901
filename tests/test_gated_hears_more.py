"""The gated agent's remaining ways of not hearing the person, each found by replaying a person's exact lines on the
real domain and a real Environment: a task's answer said unasked, closing words that call a declined request done,
an order's status asked and not
answered, a wrong e-mail never looked up, a change declined by its tool's name."""

from __future__ import annotations

from tauplay.core.domain import get_domain
from tests.test_counterpart_words import ListUser, agent_calls, said
from tests.test_gated_records import AIRLINE, RETAIL
from tests.test_gated_records import play as play_starter

MOVIE = get_domain("movie")
DAIKI = ("Hi, I'm Daiki Walsh, email daiki.walsh18@example.com. I want two adult tickets for The Seventh Letters at "
         "Marquee La Jolla tomorrow (2025-06-15) at 18:00, seats E6 and E7, with one Classic combo. Pay with my "
         "Visa ending 2129.")


async def test_a_tasks_answer_is_never_said_to_a_person_who_did_not_ask_for_it() -> None:
    """Was (movie starter 01): "The change I confirmed above is made. The answer you asked for: 46.50." to a person
    who booked and never asked what it came to."""
    out = await play_starter(MOVIE, "movie-starter-01-book-with-combo", ListUser(DAIKI, "yes", "no thanks"))
    assert "book_tickets" in [c.name for c in agent_calls(out)]
    assert not any("46.50" in m.content or "answer you asked for" in m.content for m in said(out, "agent")), \
        [m.content for m in said(out, "agent")]


async def test_a_tasks_answer_is_said_to_a_person_who_asked_for_it() -> None:
    out = await play_starter(MOVIE, "movie-starter-01-book-with-combo",
                             ListUser(DAIKI, "yes", "what was the total?", "no thanks"))
    assert any("The answer you asked for: 46.50" in m.content for m in said(out, "agent"))


KETTLE = ("I want to cancel the kettle order, I no longer need it. noah.ahmed9589@example.com", "no", "nothing else")


async def test_the_closing_words_after_a_no_say_what_was_not_done() -> None:
    """Was: "I have looked into it for you." after the person said no to the cancellation."""
    out = await play_starter(RETAIL, "retail-starter-01", ListUser(*KETTLE))
    closing = [m.content for m in said(out, "agent") if m.intent == "done"]
    assert closing and closing[0].startswith("Nothing has been changed. Not done: cancel a pending order (you said "
                                             "no)."), closing
    assert "cancel_pending_order" not in [c.name for c in agent_calls(out)]


async def test_everything_is_done_is_never_said_after_a_decline() -> None:
    """Was: "Everything you asked for is done." on the person's second word after the closing, the request
    declined."""
    out = await play_starter(RETAIL, "retail-starter-01", ListUser(*KETTLE, "hmm", "and?", "what?"))
    agent = [m.content for m in said(out, "agent")]
    assert not any("Everything you asked for is done" in a or "I have looked into it" in a for a in agent), agent


async def test_where_is_my_order_is_answered_from_the_order_read() -> None:
    """Was (retail starter 09): "where is my order #W1039431?" -> "Sure. What would you like me to do with your
    order?", then "I have looked into it for you." once the order was read."""
    lines = ("where is my order #W1039431?", "I'm Ines Thomas, zip 97262", "ok")
    out = await play_starter(RETAIL, "retail-starter-09", ListUser(*lines))
    agent = [m.content for m in said(out, "agent")]
    assert not any("What would you like me to do" in a or "I have looked into it" in a for a in agent), agent
    closing = [m.content for m in said(out, "agent") if m.intent == "done"]
    assert closing and closing[0].startswith("Order #W1039431: delivered: Air Purifier"), closing
    assert "(tracking number 200236167378)" in closing[0], closing
    assert not [c.name for c in agent_calls(out) if RETAIL.tool_map[c.name].is_write]


async def test_a_wrong_email_the_person_gives_is_looked_up_and_the_failure_told() -> None:
    """Was: "My email is noah.ahmed@example.com" (not the task's) never looked up: "Could you tell me your email?" as
    if nothing had been said, the agent knowing the task's e-mail."""
    wrong = "noah.ahmed@example.com"
    lines = (f"I want to cancel my kettle order. My email is {wrong}", "oh sorry, noah.ahmed9589@example.com")
    out = await play_starter(RETAIL, "retail-starter-01", ListUser(*lines))
    emails = [c.arguments.get("email") for c in agent_calls(out) if c.name == "find_user_id_by_email"]
    assert emails[:2] == [wrong, "noah.ahmed9589@example.com"], emails
    reply = [m.content for m in said(out, "agent")][1]
    assert reply.startswith(f"I could not find the email {wrong}"), reply


async def test_a_change_asked_with_a_record_described_is_declined_not_answered_with_the_tasks_id() -> None:
    """Found in the app (airline starter 06, tmux 80x24): "can you add a checked bag to my trip to SFO?" -> "I have
    looked into it for you. The answer you asked for: 5XAWAK.": the task's answer said unasked, the bag passed
    over."""
    line = "hi, I'm yusuf_lopez_1876. can you add a checked bag to my trip to SFO?"
    out = await play_starter(AIRLINE, "airline-starter-06-which-reservation", ListUser(line, "ok, bye"))
    reply = [m.content for m in said(out, "agent")][1]
    assert reply.startswith("I'm sorry, I cannot change the checked bags of a reservation for you here. Nothing has "
                            "been changed."), reply
    assert not any("5XAWAK" in m.content for m in said(out, "agent"))
