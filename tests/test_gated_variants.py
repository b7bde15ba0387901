"""The gated agent takes a new item among a product's variants from what the person says, never from the task's
gold (it knew retail `modify_pending_order_items` / `exchange_delivered_order_items`' new item id and used it as
soon as `get_product_details` showed it). A person who names no variant is asked which one (each listed by its
options), an answer by options gets that variant (the task's own or not), yes/no options are said by their name
("waterproof", "not waterproof"), and after two asks the write is left. The scripted user answers the question
from its instruction's words. Real retail domain and data, real Environment; the person's exact lines."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tauplay.core.environment import Environment
from tauplay.core.events import Event, MessageData, ToolCallData, ToolResultData
from tauplay.core.policy_checks import check_policy
from tauplay.core.tasks import Action
from tauplay.core.vocabulary import Role
from tauplay.sim import choices
from tauplay.sim.gated import GatedAgent
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation
from tauplay.sim.scripted_user import ScriptedUser, choice_answer
from tests.test_counterpart_words import ListUser, agent_calls, reply_to, said
from tests.test_gated_records import RETAIL, _tasks

JUAN = "juan.lopez7462@example.com"  # starter 05: pending #W1046567, Digital Camera 24MP/10x/CF -> 24MP/3x/SD
SWAP = ("Hi, I want to swap the camera in my order.", JUAN)
CARD = "The visa card ending in 6726."


async def _play(task: Any, user: Any, steps: int = 60) -> tuple[Outcome, Environment]:
    env = Environment(RETAIL, RETAIL.database())
    conversation = Conversation(RETAIL, task, env, task.emotion)
    return await Orchestrator(GatedAgent(), user, conversation, limits=Limits(max_steps=steps)).run(), env


def _order_items(env: Environment, order_id: str) -> list[str]:
    order = env.state.get("orders", order_id)
    assert order is not None
    return [i["item_id"] for i in order["items"]]


def _writes(out: Outcome) -> list[dict[str, Any]]:
    return [c.arguments for c in agent_calls(out) if c.name == "modify_pending_order_items"]


async def test_a_person_who_names_no_variant_is_asked_which_one_by_its_options() -> None:
    """Was: get_product_details, then "How would you like to pay" and the task's camera (1385487905) proposed and
    bought, though the person never said which camera they wanted."""
    out, env = await _play(_tasks(RETAIL)["retail-starter-05"], ListUser(*SWAP, CARD, "yes"))
    ask = reply_to(out, JUAN)
    assert ask.startswith(f"{choices.QUESTION} instead of yours (24MP, zoom 10x, CF card): "), ask
    assert "1385487905 (24MP, zoom 3x, SD card)" in ask or "(or " in ask, ask
    assert not any("1385487905" in m.content and "about to do" in m.content for m in said(out, "agent"))
    assert _writes(out) == [] and "1987587879" in _order_items(env, "#W1046567")
    # at 80 columns the question stays a few lines: six variants at most, each by its options
    assert len(ask) < 6 * 80, len(ask)


async def test_two_asks_unanswered_then_the_change_is_left() -> None:
    out, _ = await _play(_tasks(RETAIL)["retail-starter-05"], ListUser(*SWAP, CARD, "yes", "yes"))
    assert reply_to(out, CARD).startswith(f"Sorry, I still need to know that. {choices.QUESTION}")
    assert reply_to(out, "yes") == ("I'm sorry: without the one you would like I cannot go on with that request, "
                                    "so I will leave it.")
    assert _writes(out) == []


async def test_an_answer_by_options_gets_the_tasks_variant_when_it_is_the_one_said() -> None:
    lines = (*SWAP, "the 24MP one with 3x zoom and an SD card", CARD, "yes")
    out, env = await _play(_tasks(RETAIL)["retail-starter-05"], ListUser(*lines))
    assert [w["new_item_ids"] for w in _writes(out)] == [["1385487905"]]
    assert out.value == 1.0 and not check_policy(out.events, RETAIL)


async def test_an_answer_by_options_gets_another_variant_than_the_tasks() -> None:
    """The task's camera is 24MP/3x/SD; the person asks for the 30MP one with 3x zoom and a CF card: that one is
    proposed and bought (reward 0: the task wanted another), and the database holds it."""
    lines = (*SWAP, "I'd like the 30MP one, 3x zoom, CF card.", CARD, "yes")
    out, env = await _play(_tasks(RETAIL)["retail-starter-05"], ListUser(*lines))
    proposal = next(m.content for m in said(out, "agent") if m.intent == "confirm")
    assert "Digital Camera (resolution 30MP, zoom 3x, storage CF card) (1863202764)" in proposal, proposal
    assert [w["new_item_ids"] for w in _writes(out)] == [["1863202764"]]
    items = _order_items(env, "#W1046567")
    assert "1863202764" in items and "1385487905" not in items and "1987587879" not in items
    assert out.value == 0.0 and not check_policy(out.events, RETAIL)
    assert "I'm sorry" not in " ".join(m.content for m in said(out, "agent"))


PRIYA = "priya.santos1551@example.com"  # five orders; pending #W9972157 holds Hiking Boots size 8, synthetic, not
# waterproof (6077065331)


def _boots_task() -> Any:
    """A change of those boots for size 9, synthetic, waterproof (8720936470) as a task, the person's words left
    to each test."""
    task = _tasks(RETAIL)["retail-starter-05"]
    return replace(task, id="boots", instruction=f"You are Priya Santos ({PRIYA}).", outputs=[], actions=[
        Action("modify_pending_order_items", {"order_id": "#W9972157", "item_ids": ["6077065331"],
                                              "new_item_ids": ["8720936470"], "payment_method_id": "credit_card_7808519"})])


async def test_yes_no_options_are_said_by_their_name() -> None:
    """"not waterproof" / "non-waterproof" is waterproof: no, "waterproof" is yes; the task's pair (size 9,
    synthetic, waterproof) only when that is what the person says."""
    for answer, wanted in (("size 9, synthetic, not waterproof", "8665955347"),
                           ("the non-waterproof synthetic pair in size 9", "8665955347"),
                           ("waterproof leather ones, size 9", "9044268014"),
                           ("size 9, synthetic and waterproof", "8720936470")):
        lines = ("I want to swap the hiking boots in my order with the pet bed.", PRIYA, answer, "The mastercard ending in 7248.", "yes")
        out, env = await _play(_boots_task(), ListUser(*lines))
        ask = reply_to(out, PRIYA)
        assert ask.startswith(f"{choices.QUESTION} instead of yours (size 8, synthetic, not waterproof)"), ask
        assert [w["new_item_ids"] for w in _writes(out)] == [[wanted]], (answer, _writes(out), said(out, "agent"))
        assert wanted in _order_items(env, "#W9972157") and (out.value == 1.0) == (wanted == "8720936470")


def test_option_words_as_people_write_them() -> None:
    """Units with or without a space or spelled out, yes/no options by their name, a colour within a longer
    description; what is said of the item they have picks nothing."""
    bottles = {"a": {"options": {"capacity": "1000ml", "color": "black", "material": "glass"}},
               "b": {"options": {"capacity": "500ml", "color": "black", "material": "glass"}},
               "c": {"options": {"capacity": "1000ml", "color": "white", "material": "glass"}}}
    assert choices.best(bottles, ["the black one, 1000 ml"]) == ["a"]
    assert choices.best(bottles, ["1000ml in white and black stripes? no: white"], answers=["white"]) == ["c"]
    kettles = {"k1": {"options": {"capacity": "2L", "material": "glass"}},
               "k2": {"options": {"capacity": "1L", "material": "glass"}}}
    assert choices.best(kettles, ["the 2 liters glass kettle"]) == ["k1"]
    assert choices.best(kettles, ["one of 1 litre"]) == ["k2"]
    boots = {"y": {"options": {"size": "10", "waterproof": "yes"}}, "n": {"options": {"size": "10", "waterproof": "no"}}}
    assert choices.best(boots, ["size 10, waterproof"]) == ["y"]
    assert choices.best(boots, ["size 10, not waterproof"]) == ["n"]
    assert choices.best(boots, ["size 10, non-waterproof"]) == ["n"]
    assert choices.best(boots, ["no longer need it, size 10 please"]) == ["y", "n"]  # "no" alone says nothing
    # a name or an e-mail is no colour (published retail task 11, incremental user: "I am Anya Brown",
    # anya.brown8893@example.com picked the brown pet bed)
    beds = {"b": {"options": {"size": "large", "color": "brown"}}, "g": {"options": {"size": "large", "color": "grey"}}}
    assert choices.best(beds, ["I am Anya Brown.", "My email is anya.brown8893@example.com."]) == []
    assert choices.best(beds, ["Brown, large please."]) == ["b"]
    # the item they have said again is no choice: something said must set one apart from it
    have = {"capacity": "1000ml", "color": "black", "material": "glass"}
    assert choices.best({k: v for k, v in bottles.items() if k != "a"}, ["my 1000ml black glass bottle"], have) == []


async def test_the_scripted_user_answers_which_one_from_its_instruction() -> None:
    """Its instruction says "change the Digital Camera (resolution 24MP, zoom 10x, storage CF card) to the one with
    resolution 24MP, zoom 3x, storage SD card": asked which one, it says those words (never an id), and the
    gated agent takes the camera they describe."""
    task = _tasks(RETAIL)["retail-starter-05"]
    out, _ = await _play(task, ListUser(*SWAP))
    question = reply_to(out, JUAN)
    conversation = Conversation(RETAIL, task, Environment(RETAIL, RETAIL.database()), task.emotion,
                                list(out.events[:-1]))
    reply = choice_answer(conversation, question)
    assert reply is not None and reply.intent == "answer", reply
    assert reply.text == "The one with resolution 24MP, zoom 3x, storage SD card.", reply.text
    assert not any(c.isdigit() and len(c) >= 10 for c in reply.text.split())
    # the same words from a person: the agent goes on with that camera
    lines = (*SWAP, reply.text, CARD, "yes")
    done, _ = await _play(task, ListUser(*lines))
    assert [w["new_item_ids"] for w in _writes(done)] == [["1385487905"]] and done.value == 1.0


async def test_the_scripted_user_not_told_of_the_variant_in_its_first_words_answers_and_succeeds() -> None:
    """An instruction whose request names no variant and whose later sentence does: the agent asks (or has heard
    it told), the scripted user's words pick the task's camera and the task is done."""
    base = _tasks(RETAIL)["retail-starter-05"]
    task = replace(base, instruction=f"You are Juan Lopez ({JUAN}). You want to swap the Digital Camera in your "
                                     "pending order #W1046567. You want the one with 3x zoom and an SD card, "
                                     "resolution 24MP. Any difference in price goes on your visa card ending in 6726.")
    out, env = await _play(task, ScriptedUser(), steps=80)
    assert [w["new_item_ids"] for w in _writes(out)] == [["1385487905"]], said(out, "agent")
    assert out.value == 1.0 and not check_policy(out.events, RETAIL)


def test_the_scripted_user_says_it_does_not_know_when_its_instruction_names_no_variant() -> None:
    base = _tasks(RETAIL)["retail-starter-05"]
    task = replace(base, instruction=f"You are Juan Lopez ({JUAN}). You want to swap the Digital Camera.")
    outputs = json.dumps({"variants": {"1385487905": {"options": {"zoom": "3x"}, "available": True},
                                       "1863202764": {"options": {"zoom": "5x"}, "available": True}}})
    conversation = Conversation(RETAIL, task, Environment(RETAIL, RETAIL.database()), task.emotion)
    conversation.events += [
        Event.of(0, Role.AGENT, ToolCallData(name="get_product_details", arguments={"product_id": "x"}, call_id="c")),
        Event.of(1, Role.AGENT, ToolResultData(name="get_product_details", output=outputs, call_id="c")),
        Event.of(2, Role.AGENT, MessageData(content=f"{choices.QUESTION}: 1385487905 (zoom 3x) or 1863202764 "
                                                    "(zoom 5x)?", intent="ask"))]
    reply = choice_answer(conversation, conversation.said("agent")[-1].content)
    assert reply is not None and reply.intent == "unknown", reply


async def test_published_keyboards_each_change_takes_the_keyboard_its_own_words_describe() -> None:
    """Published retail task 24 (Yara Lee: a delivered 60% RGB tactile keyboard exchanged for a full-size white
    tactile one; the pending order's white clicky one changed for a clicky one with no backlight), with an
    error-prone user: was an IndexError (the re-offered change, with the person's own keyboard, matched no gold
    step's words). Both changes take the keyboard their own sentence describes, never the other change's."""
    from tauplay.core.behavior import parse_behavior
    from tauplay.core.tasks import load_tasks
    from tests.conftest import taubench_dir

    folder = taubench_dir("retail")
    task = load_tasks(folder / "tasks_test.json", "retail").tasks[24]
    env = Environment(RETAIL, RETAIL.start_for(RETAIL.database(folder), task))
    conversation = Conversation(RETAIL, task, env, task.emotion)
    user = ScriptedUser(parse_behavior("precision=error_prone"))
    out = await Orchestrator(GatedAgent(), user, conversation, limits=Limits(max_steps=100)).run()
    made = {c.name: c.arguments["new_item_ids"] for c in agent_calls(out) if "new_item_ids" in c.arguments}
    assert made == {"exchange_delivered_order_items": ["3616838507"], "modify_pending_order_items": ["7706410293"]}
    assert out.value == 1.0 and not check_policy(out.events, RETAIL)


async def test_a_variant_not_on_offer_is_said_so_never_another_taken_in_its_place() -> None:
    """Found trying it in tmux: "the 30 MP one with 5x zoom and an SD card" (sold out) was taken as the 24MP one with
    5x zoom and an SD card (the nearest on offer, with the rest of the person's camera kept)."""
    lines = (*SWAP, "hmm, the 30 MP one with 5x zoom and an SD card", "ok then the 30MP one with 3x zoom and SD card",
             CARD, "yes")
    out, env = await _play(_tasks(RETAIL)["retail-starter-05"], ListUser(*lines))
    assert reply_to(out, lines[2]).startswith("I'm sorry, the one with 30MP, zoom 5x, SD card is not available. "
                                              f"{choices.QUESTION} instead of yours"), reply_to(out, lines[2])
    assert [w["new_item_ids"] for w in _writes(out)] == [["8459449066"]]  # 30MP, zoom 3x, SD card
    assert "8459449066" in _order_items(env, "#W1046567")


HUGO = "hugo.santos5893@example.com"  # starter 07: delivered #W1047062, Garden Hose 100ft/rubber/black -> latex/blue
HOSE = ("Hi, I'd like to exchange the garden hose I got for a different one.", HUGO)


async def test_a_price_asked_before_the_choice_is_never_the_tasks_variants() -> None:
    """Was: "how much would it cost?" before any variant was chosen got "You will get $19.27 back for this change
    (Garden Hose from $106.40 to $87.13)": the price of the task's blue latex hose, telling the person which one
    the task holds. Now it depends on the choice, the question comes again (not counted as a second ask), and the
    variant they then name is the one priced."""
    out, _ = await _play(_tasks(RETAIL)["retail-starter-07"],
                         ListUser(*HOSE, "how much would it cost?", "what?", "the 50ft one"))
    depends = reply_to(out, "how much would it cost?")
    assert depends.startswith("That depends on which one you choose. Which one would you like"), depends
    assert "$87.13" not in depends and "$19.27" not in depends
    assert reply_to(out, "what?").startswith("Sorry, I still need to know that."), reply_to(out, "what?")
    assert "$102.13" in reply_to(out, "the 50ft one"), reply_to(out, "the 50ft one")


async def test_a_choice_said_with_a_price_question_is_priced_and_not_asked_again() -> None:
    """Was: "the blue latex one please. will it cost much more?" got the price and then the question which one
    again, though the person had just said it."""
    line = "the blue latex one please. will it cost much more?"
    out, _ = await _play(_tasks(RETAIL)["retail-starter-07"], ListUser(*HOSE, line, "ok", "PayPal", "yes"))
    answer = reply_to(out, line)
    assert "$87.13" in answer and choices.QUESTION not in answer, answer
    made = [c.arguments for c in agent_calls(out) if c.name == "exchange_delivered_order_items"]
    assert [m["new_item_ids"] for m in made] == [["2596908557"]], made
