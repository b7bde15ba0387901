"""The gated offline agent: it knows the task's gold actions (it stands in for a competent agent) but may only
use a value the user said or an earlier tool result returned (`tauplay.core.grounding`).

For the next gold action it looks at every argument value: one not in view it first tries to bring into view
with a read (the tools that produce that field, tried on the live data without recording, choose which read
to make); failing that it asks the user, in words from the parameter's schema; failing that (the user does not
know) it asks for what a look-up of that field needs (an e-mail for a user id), and at last leaves the action.
A write waits until the user has asked for it in words (`_requested`), never on what the task holds alone; it
is then put to the user in words and made on a clear yes; a clear no skips it, and the user can come back to
it later. What the person says first is heard: a bare greeting gets a question, an id the user names
is looked up as given (and a failed look-up reported), a request outside the domain is politely refused.
Like every participant it keeps no state the event stream does not hold (a cache of read outputs aside).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tauplay.core.db import canonical
from tauplay.core.domain import Domain
from tauplay.core.events import InjectionData, MessageData, ToolCallData, ToolResultData
from tauplay.core.grounding import (
    Evidence,
    Leaf,
    dates_said,
    leaves,
    loosely_stated,
    names_write,
    normalize,
    scalars,
    ungrounded,
    values_heard,
    words,
)
from tauplay.core.policy_checks import is_identified
from tauplay.core.quotes import Quote, SeenCall
from tauplay.core.schema import coerce, validate
from tauplay.core.tasks import Action
from tauplay.core.tools import ToolSpec
from tauplay.core.vocabulary import EventKind, Role
from tauplay.sim import choices, device_steps, person_choices, records, tool_answers, write_words
from tauplay.sim.action_words import describe_action, is_money, money_amounts
from tauplay.sim.asked import asked_for as answer_asked_for
from tauplay.sim.oracle import done_summary, tool_outputs
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say

# -- reading the user's words ----------------------------------------------------------------------------

_FILLER = r"^\W*(?:(?:actually|well|oh|ok so|okay so|um|uh|then|in that case|on second thought)\W+)*"
_YES = re.compile(_FILLER + r"(yes|yeah|yep|yup|sure|ok|okay|alright|all right|correct|confirm(ed)?|go ahead|"
                  r"please do|do it|proceed|that'?s (right|correct|fine)|absolutely|definitely|of course)\b",
                  re.IGNORECASE)
_NO = re.compile(_FILLER + r"(no|nope|nah|don'?t|do not|not now|stop|wait|hold on|cancel that|never mind|"
                 r"i changed my mind|rather not)\b", re.IGNORECASE)
_GREETING = re.compile(r"^\W*((hi|hello|hey|hiya|howdy|greetings|good (morning|afternoon|evening|day))"
                       r"( there)?\W*)+$", re.IGNORECASE)
_REQUEST = re.compile(r"\?|^\W*(can|could|would|will|what|when|where|who|why|how|tell|give|show|find|i want|"
                      r"i need|i'd like|please)\b", re.IGNORECASE)
# Everyday words that say nothing about what is asked for ("can you do it or not?").
# A new booking asked for in everyday words: "I want a one-way economy flight ...", "I need a seat on ...". Only
# "a/an/one ... flight|ticket|seat" after a wish counts: "my flight", "the flight" are about one already booked.
_NEW_BOOKING = re.compile(r"\b(?:want|need|like|looking for|get me)\b[^.?!]{0,30}?\b(?:a|an|one)\s+(?:[\w-]+\s+){0,4}?"
                          r"(?:flight|ticket|seat)s?\b", re.IGNORECASE)
_PLAIN = frozenset("""that this there their them they then than what when where which while with would could should
    will have does done doing make made take care sort just please thanks thank know everything anything something
    nothing else also very really much many more some your yours mine about into from only still again sure right
    okay fine good great time now here want need like help way tell give told said says going were been being
    any all the and for not you can how why who its it's i'm i've don't can't won't""".split())
# Words of ordinary customer service any domain's requests share, beside the domain's own vocabulary.
_SERVICE_WORDS = frozenset({"account", "help", "change", "booking", "book", "cancel", "refund", "pay", "payment",
                            "order", "status", "id", "number", "my", "agent", "human", "details", "check"})


def answer_kind(text: str) -> str:
    """yes / no / question / other: how a reply to a proposal reads. A yes with a question mark is a
    question; 'no' wins over a later 'yes' only when it comes first. The first sentence that reads as a yes or a
    no decides ("Whatever. Yes, put it on the card ending 8439." is a yes, with a fact beside it)."""
    for sentence in re.split(r"(?<=[.!;])\s+", text.strip()) or [text]:
        if _NO.match(sentence):
            # "No. Why can't you cancel it?": the person is not done with the proposal; it is answered and put again
            return "question" if "?" in text else "no"
        if _YES.match(sentence) and "?" not in text:
            return "yes"
    if "?" in text:
        return "question"
    return "other"


def is_greeting(text: str) -> bool:
    return bool(_GREETING.match(text.strip()))


# -- what the event stream says about the plan ----------------------------------------------------------

@dataclass(frozen=True)
class Refusal:
    """A write the agent refused (`policy`: a rule forbids it) or left (a value nobody could give), and why."""

    tool: str
    reason: str
    policy: bool


@dataclass
class Progress:
    """Where the gold plan stands: the next action, the write on offer and its answer, the ones declined."""

    index: int = 0
    offer: int | None = None  # the gold action the agent last put to the user
    answer: str | None = None  # the user's reply to that offer (None: none yet)
    skipped: list[int] = field(default_factory=list)  # declined writes, most recent last
    gave_up: set[int] = field(default_factory=set)


def _key(name: str, arguments: dict[str, Any]) -> tuple[str, str]:
    return name, canonical(arguments)


_ABOUT_TO = "Here is what I am about to do: "


def proposal(action: Action, outputs: Sequence[str] = (), price: str = "") -> str:
    """The write in words (its ids said as the tools showed them), what it will cost when that is known, and the
    question."""
    cost = f" {price}" if price else ""
    return f"{_ABOUT_TO}{describe_action(action, outputs)}.{cost} Shall I go ahead? Please answer yes or no."


def _step_of(call: ToolCallData, gold: Sequence[Action]) -> int | None:
    """The gold step an agent's call was made for, by its id ("gated_3_41"), when it is that step's tool: its
    values may be the person's own choice (`choices`), not the task's."""
    m = re.fullmatch(r"gated_(\d+)_\d+", call.call_id)
    i = int(m.group(1)) if m else -1
    return i if 0 <= i < len(gold) and gold[i].name == call.name else None


def read_progress(conversation: Conversation) -> Progress:
    gold = conversation.task.actions
    keys = [_key(a.name, a.kwargs) for a in gold]
    outputs: list[str] = []  # the tool outputs before each message: what its proposal was described from
    which: set[tuple[str, str]] = set()
    # a call whose arguments an AgentProp injector changed is not the step made as planned: it is made again
    injected = {e.as_(InjectionData).call_id for e in conversation.events if e.kind == EventKind.INJECTION}
    p = Progress()
    for e in conversation.events:
        if e.kind == EventKind.TOOL_RESULT and not (r := e.as_(ToolResultData)).error:
            outputs.append(r.output)
        if e.kind == EventKind.TOOL_CALL and e.role == Role.USER:  # dual control: the user's own call
            name = e.as_(ToolCallData).name
            if p.index < len(gold) and gold[p.index].requestor == "user" and gold[p.index].name == name:
                p.index += 1
        elif e.kind == EventKind.TOOL_CALL:
            call = e.as_(ToolCallData)
            key = _key(call.name, call.arguments)
            if call.call_id.startswith(_WHICH):
                # a read to tell which record the person means is no step of the plan (`_which_record`): the plan's
                # read of that record counts as made once the agent goes on to another call
                which.add(key)
                continue
            while p.index < len(gold) and keys[p.index] in which and keys[p.index] != key:
                p.index += 1
            step = _step_of(call, gold) if call.call_id not in injected else None
            for j in list(p.skipped):
                if keys[j] == key or step == j:
                    p.skipped.remove(j)
                    break
            else:
                if p.index < len(gold) and (keys[p.index] == key or step == p.index):
                    p.index += 1
            p.offer, p.answer = None, None
        elif e.kind == EventKind.MESSAGE and e.role == Role.AGENT:
            m = e.as_(MessageData)
            if m.intent in ("skip", "giveup"):
                # the plan's reads made to tell which record the person means are behind it: what is declined or
                # left is the step after them, never one of those reads
                while p.index < len(gold) and keys[p.index] in which:
                    p.index += 1
            if m.intent == "confirm":
                # the write as the person chose its values (`choices`) is told by its tool's words
                p.offer = next((i for i, a in enumerate(gold)
                                if f"{_ABOUT_TO}{describe_action(a, outputs)}." in m.content), None)
                if p.offer is None:
                    p.offer = next((i for i in [p.index, *reversed(p.skipped)] if i < len(gold) and m.content.startswith(
                        f"{_ABOUT_TO}{describe_action(Action(gold[i].name), outputs)} (")), p.index)
                p.answer = None
            elif m.intent == "skip" and p.offer is None:
                # a no to the price or the payment asked about a write (no proposal yet): that write is declined
                tools = conversation.domain.tool_map
                declined = next((k for k in range(p.index, len(gold)) if (s := tools.get(gold[k].name)) is not None
                                 and s.is_write and gold[k].requestor != "user"), None)
                if declined is not None:
                    if declined not in p.skipped:
                        p.skipped.append(declined)
                    p.index = declined + 1
            elif m.intent == "skip" and p.offer is not None:
                if p.offer not in p.skipped:
                    p.skipped.append(p.offer)
                if p.offer == p.index:
                    p.index += 1
                p.offer, p.answer = None, None
            elif m.intent == "resume" and p.skipped:
                # the person came back to a declined write whose payment is still theirs to name: the plan is on it
                p.index = p.skipped.pop()
                p.offer, p.answer = None, None
            elif m.intent == "giveup":
                p.gave_up.add(p.index)
                p.index += 1
                p.offer, p.answer = None, None
            elif m.intent not in ("answer",):
                p.offer, p.answer = None, None
        elif e.kind == EventKind.MESSAGE and e.role == Role.USER and p.offer is not None and p.answer is None:
            p.answer = e.as_(MessageData).content
    return p


# -- the agent --------------------------------------------------------------------------------------------

_POLICY_CACHE: dict[str, str] = {}


def _policy(conversation: Conversation) -> str:
    name = conversation.domain.name
    if name not in _POLICY_CACHE:
        try:
            _POLICY_CACHE[name] = conversation.domain.policy
        except OSError:
            _POLICY_CACHE[name] = ""
    return _POLICY_CACHE[name]


def evidence(conversation: Conversation, extra: list[str] | None = None) -> Evidence:
    """What is in view: the user's messages and every successful tool output so far (and the policy, for the
    numbers an agent works with: fees, allowances)."""
    user = [m.content for m in conversation.said("user")]
    # A value of the person's choosing said in everyday words ("I don't need it anymore": no longer needed)
    user += values_heard(user, conversation.domain.value_words)
    tools = tool_outputs(conversation)
    return Evidence(user=user, tools=tools + (extra or []), known=[_policy(conversation)], amounts_of=money_amounts)


def param_schema(spec: ToolSpec | None, path: tuple[str | int, ...]) -> dict[str, Any]:
    """The schema of the parameter at `path` (list indexes step into `items`)."""
    schema: dict[str, Any] = spec.parameters if spec is not None else {}
    for step in path:
        if isinstance(step, int):
            schema = schema.get("items", {})
        else:
            schema = schema.get("properties", {}).get(step, {})
    return schema


_EXAMPLE = re.compile(r"[,;]?\s*\(?\b(e\.g\.|eg\.|such as|for example|like)\s.*$", re.IGNORECASE)


def _same_words(about: str, label: str) -> bool:
    """A description that only restates the parameter's name ("the reservation id", "the user's id")."""
    def content(text: str) -> set[str]:
        return set(normalize(text).split()) - {"the", "a", "an", "of", "s", "this", "your"}
    # "the user's email" for "your email": whose it is goes without saying
    return content(about) - {"user", "users", "customer", "customers"} <= content(label)


# What a person says "your" of (their own e-mail, user id, name); anything else is "the" (the cabin, the date).
_OWN = frozenset({"email", "user", "name", "first", "last", "phone", "zip", "address", "dob", "birth", "account"})


def question(spec: ToolSpec | None, leaf: Leaf) -> str:
    """A question for one value in plain words (never the tool's name): "Could you tell me your email?", with
    the parameter's schema description and choices when they say more than its name."""
    schema = param_schema(spec, leaf.path)
    label = words(leaf.name)
    # Without its examples: a schema's sample value may happen to be this user's own.
    about = _EXAMPLE.sub("", schema.get("description") or "").strip().rstrip(".,; ")
    choices = schema.get("enum")
    text = f"Could you tell me {_determiner(label)} {label}"
    if about and not _same_words(about, label):
        text += f" ({about[0].lower() + about[1:]})"
    if choices and not all(normalize(str(c)) in normalize(about) for c in choices):  # not said twice
        text += " (one of: " + ", ".join(str(c).replace("_", " ") for c in choices) + ")"
    return text + "?"


def _determiner(label: str) -> str:
    """"your" for the person's own details and records' ids ("your reservation id"), else "the"."""
    return "your" if set(label.split()) & _OWN or label.endswith((" id", " ids", " number")) else "the"


def asked_for(label: str, asked: str) -> bool:
    """A question of `question`'s for the value called `label` is among the agent's words `asked`."""
    said = f"Could you tell me {_determiner(label)} {label}"
    return f"{said}?" in asked or f"{said} (" in asked


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def _stems(param: str) -> set[str]:
    base = param[:-3] if param.endswith("_id") else param[:-4] if param.endswith("_ids") else param
    return {param, base, base + "s", base + "es", param + "s"}


@lru_cache(maxsize=2048)
def _index(output: str) -> dict[str, tuple[Any, ...]]:
    """key -> the scalars under that key in a JSON output, and `key/` -> the keys of an object under it."""
    found: dict[str, list[Any]] = {}

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if key is not None and isinstance(v, dict):
                    found.setdefault(key + "/", []).append(k)
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif key is not None and isinstance(value, str | int) and not isinstance(value, bool):
            found.setdefault(key, []).append(value)

    walk(_json(output), None)
    return {k: tuple(dict.fromkeys(v)) for k, v in found.items()}


def values_for(param: str, output: str) -> list[Any]:
    """Candidate values for a parameter found in a tool's JSON output: values under that key, and the
    elements (or keys) of a list (or object) named after it (`orders` for order_id)."""
    index = _index(output)
    found: list[Any] = []
    for stem in _stems(param):
        found += index.get(stem, ())
        if stem != param:
            found += index.get(stem + "/", ())
    return list(dict.fromkeys(found))


@lru_cache(maxsize=2048)
def _alone(output: str) -> Evidence:
    return Evidence(tools=[output])


_MORE = "Is there anything else you would like me to do?"
_LOOKED = "I have looked into it for you."  # the closing words' start when nothing was changed (`done_summary`)
_UNSURE = "I'm not sure what you would like me to do about that. What do you need done?"
_BYE = re.compile(r"^\W*(?:(?:ok(?:ay)?|thanks?|thank you|great|fine|no)\W+)*(?:bye|goodbye|good bye|see you|"
                  r"that'?s all|that is all|that'?s it|nothing else|no,? thanks?|no,? thank you)\b", re.IGNORECASE)
_UNKNOWN = re.compile(r"\b(?:don'?t|do not|doesn'?t) (?:know|remember|have)\b|\bnot sure\b|\bno idea\b", re.IGNORECASE)
_PRICES = re.compile(r'"(?:price|prices|fare|fares|cost|total_price)"')  # an output that tells what a thing costs
_TOKEN = re.compile(r"[#\w][\w.@#+-]*\w|\w")


def _write_options(spec: ToolSpec | None, leaf: Leaf) -> list[Any]:
    """The few values a write's argument may take (its schema's enum; none for a read or a free value)."""
    return list(param_schema(spec, leaf.path).get("enum") or []) if spec is not None and spec.is_write else []


# A request that does not say what is wanted: "change something on my booking", "a problem with my order".
_VAGUE = re.compile(r"\b(?:something|some things|a few things|a thing|a problem|an issue|a question|a change)\b"
                    r"|\bmy (?P<thing>booking|reservation|order|account|trip)\b", re.IGNORECASE)
# Words of the domain's tools that still say nothing of what is wanted.
_VAGUE_WORDS = frozenset({"user", "details", "reservation", "reservations", "order", "orders", "account", "info",
                          "update", "modify", "change", "changes", "booking", "book", "pending", "delivered", "type",
                          "name", "first", "last", "email", "items", "item", "list", "find", "get", "all", "something",
                          "things", "thing", "few", "problem", "issue", "question", "trip", "fix", "edit", "hello",
                          "hey", "has", "had", "got", "with", "regarding", "there", "able", "hoping", "wanted",
                          "wondering", "was", "bit", "little", "quick", "our", "for", "and", "but", "the", "you"})
# A question of where a record is or how it stands: it says what is wanted (its status), so it is not vague.
_STATUS = re.compile(r"\b(?:where(?:'s| is| are)|status|what happened to|has it (?:shipped|arrived|been sent)|"
                     r"when will it (?:arrive|ship|come))\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_WHICH = "gated_which_"  # the call ids of the reads that tell which record the person means
_DEPENDS = "That depends on which one you choose."  # a price asked before the person chose a variant
_MAX_RECORDS = 6  # the records of one kind read to tell which one the person means; beyond, asked by id


def _date_param(name: str) -> bool:
    return "date" in name.split("_")


def _id_like(token: str) -> bool:
    return len(token) >= 3 and (any(c.isdigit() for c in token) or "@" in token or "_" in token)


class GatedAgent:
    kind = "gated"
    max_dry_runs = 400  # look-ahead reads per move (on the live data, not recorded)

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str], str | None] = {}

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    # -- the move -----------------------------------------------------------------------------------
    async def act(self, conversation: Conversation) -> AgentAction:
        if conversation.task.constraints is not None:  # only a constraint task may be a trip: its module then
            from tauplay.sim import trip  # (dozens of patterns, compiled on import) loads, not on every start

            if trip.applies(conversation) and (move := trip.act(conversation)) is not None:
                return move  # a trip under rules: worked out from what the person says (tauplay.sim.trip)
        progress = read_progress(conversation)
        gold = conversation.task.actions
        last = conversation.events[-1] if conversation.events else None
        ev = evidence(conversation)
        if last is not None and last.kind == EventKind.TOOL_RESULT and (report := self._after_lookup(conversation)):
            return report
        if last is not None and last.kind == EventKind.TOOL_RESULT and (done := self._after_write(conversation)):
            return done
        if last is not None and last.kind == EventKind.TOOL_RESULT and self._unanswered_price_question(conversation):
            if (priced := self._price_answer(conversation, progress, ev)) is not None:
                return priced  # the reads a price needed are made: the answer
            asked = next(m.content for m in reversed(conversation.said("user")))
            if _PRICES.search(last.as_(ToolResultData).output) and isinstance(
                    reply := self._answer_question(conversation, asked, None), Say) and reply.intent == "answer":
                return reply  # what the look-up just made shows (the fares of the flights on the day said)
        if last is not None and last.kind == EventKind.MESSAGE and last.role == Role.USER:
            text = last.as_(MessageData).content
            if progress.offer is not None and progress.offer < len(gold) and progress.answer is not None:
                return self._on_answer(conversation, progress, progress.answer)
            if is_greeting(text):
                return Say("Hello! How can I help you today?", intent="greet")
            if self._no_to_paying(conversation, text):
                return Say("All right, I will not make that change. If you change your mind, just tell me.",
                           intent="skip")
            # the answer to "Which one would you like" names a variant by its options (or its id): no request
            choosing = choices.QUESTION in (conversation.last_said("agent") or MessageData()).content
            if not choosing and (lookup := self._lookup_as_given(conversation, text)) is not None:
                return lookup
            if tool_answers.asks_price(text) and (priced := self._price_answer(conversation, progress, ev)):
                return priced
            if (reply := self._answer_question(conversation, text, None)) is not None:
                if reply.intent == "answer_later" and progress.index < len(gold):
                    # Nothing in view tells the price yet: the look-ups the plan makes next come first (a flight
                    # search on the day said), and the question is answered from them.
                    step = self._plan_step(conversation, progress, gold[progress.index], ev)
                    if isinstance(step, CallTools):
                        return step
                return Say(reply.text, intent="answer")
            if not choosing and self._unrelated(conversation, text, ev):
                return Say("I'm sorry, I can't help with that: I can only help with "
                           f"{conversation.domain.title or conversation.domain.name} requests. "
                           "Is there something of that kind I can do for you?", intent="refuse")
            if progress.skipped and (back := self._come_back(conversation, progress, text)) is not None:
                return back
        if not any(not is_greeting(m.content) for m in conversation.said("user")):
            return Say("Hello! How can I help you today?", intent="greet")
        if (what := self._what_wanted(conversation)) is not None:
            return what
        while progress.index < len(gold):
            action = gold[progress.index]
            step = self._plan_step(conversation, progress, action, ev)
            if isinstance(step, Say) and step.intent == "ask" and self._unanswered_price_question(conversation):
                # asked what it costs, the look-ups made so far do not tell: said so, not passed over
                return Say(f"I can tell you the price once I have looked it up. {step.text}", intent="ask")
            if step is not None:
                return step
            progress.index += 1  # nothing to do for this one (cannot happen for a sound task); go on
        if not any(m.intent == "done" for m in conversation.said("agent")):
            summary = self._summary(conversation, ev)
            if (declined := _decline_other(conversation)) is not None:
                # a change asked for with the rest that it cannot make: said first, never passed over
                if summary.startswith(_LOOKED):
                    summary = "Nothing has been changed." + summary[len(_LOOKED):]
                summary = declined.text.replace(" Is there something else I can help you with?", "") + " " + summary
            if _goodbye(conversation) is not None:  # "bye": the closing words end with a goodbye, not a question
                summary = summary.replace("Is there anything else I can help you with?",
                                          "Thank you for contacting us, goodbye!")
            return Say(summary, intent="done")
        agent_said = [m.content for m in conversation.said("agent")]
        heard = conversation.said("user")[-1:]
        shown = tool_outputs(conversation)
        other_change = bool(_other_write(conversation))  # "cancel my trip to SFO": a change, not a question of it
        if heard and (unsaid := [
                o for o in self._sayable_outputs(conversation, ev) if not any(o in t for t in agent_said)
                and answer_asked_for(o, [heard[0].content], shown, beside=not other_change)]):
            # asked for after the closing words (`asked_for`): answered now, not met with "anything else?"
            return Say("The answer you asked for: " + " / ".join(unsaid) + ". Is there anything else I can help "
                       "you with?", intent="answer")
        return self._after_done(conversation)

    # -- the plan -----------------------------------------------------------------------------------
    def _plan_step(self, conversation: Conversation, progress: Progress, action: Action,
                   ev: Evidence) -> AgentAction | None:
        domain = conversation.domain
        if action.requestor == "user":
            # The user's own step on their device: what to do is the agent's instruction, not the user's data,
            # said in plain words (never a function's name), matched to the persona.
            return Say(self._device_step(conversation, action), intent="instruct")
        spec = domain.tool_map.get(action.name)
        if spec is not None and spec.is_write and not self._requested(conversation, action):
            if (bye := _goodbye(conversation)) is not None:
                return bye
            last = conversation.last_said("agent")
            made = any((s := domain.tool_map.get(c.name)) is not None and s.is_write
                       for c, ok in conversation.tool_calls() if ok and c.requestor != "user")
            if (declined := _decline_other(conversation)) is not None:
                return declined
            if last is not None and last.intent == "more" and last.content != _UNSURE:
                # never the same question twice in a row
                return Say(_UNSURE, intent="more")
            return Say(_MORE if made else "What can I do for you?", intent="more")
        if spec is not None and not spec.terminal and (which := self._which_record(conversation, action, ev)):
            return which  # one of several records of the person's that they have not singled out
        # An option of the person's (insurance: yes or no) is asked about with the write (`_unchosen`), never
        # looked for in their records first.
        missing = [leaf for leaf in ungrounded(action.kwargs, ev, is_money)
                   if not (_write_options(spec, leaf) and person_choices.question_for(leaf) is not None)]
        if missing:
            return self._bring_into_view(conversation, action, spec, missing[0], ev)
        index = conversation.task.actions.index(action)
        if spec is not None and not spec.is_write and not spec.terminal and (
                picked := self._picked_from_a_listing(conversation, action)):
            # A search the person never asked for, whose values only a list of everything shows (every airport):
            # making it would follow the task, not the person. Ask instead, once: a reply that still names
            # nothing it can look up leaves that look-up (never the same question again and again).
            ask = f"What would you like me to look up? I would need the {picked}."
            if ask in self._asked_since_last_step(conversation):
                return Say(f"I could not tell from that which {picked.removesuffix(' id')} to look up, so I will "
                           "leave that look-up and go on.", intent="giveup")
            return Say(ask, intent="ask")
        if spec is not None and spec.is_write and not (broken := domain.forbids(action.name, action.kwargs,
                                                                               conversation.env.state)):
            settled = self._settled(conversation, action)
            if isinstance(settled, Say):
                return settled  # which of a catalogue's choices (a product's variants) the person wants: asked
            action = settled  # as the person chose it: the policy is checked on that
            broken = domain.forbids(action.name, action.kwargs, conversation.env.state)
        if spec is not None and spec.is_write and broken:
            rule, why = broken[0]  # the policy as code forbids it: refuse, naming the rule, and go on
            return Say(f"I'm sorry, I cannot do that: {rule.sentence.rstrip('.')} ({why}; policy rule "
                       f"{rule.id}).", intent="giveup")
        ruled = any(r.tool == action.name for r in domain.rules)
        if spec is not None and (spec.is_write or ruled) and (first := self._policy_first(conversation, action, ev)):
            return first
        price = ""
        if spec is not None and spec.is_write and domain.confirm_writes:
            # What it will cost, from the domain's reads, made as real calls first (a search for the new fares).
            priced = self._quote_step(conversation, action, ev)
            if isinstance(priced, CallTools):
                return priced
            price = priced.sentence() if priced is not None else ""
        if spec is not None and spec.is_write and (choice := self._unchosen(conversation, action)) is not None:
            if choice.topic == "payment" and (profile := self._profile_read(conversation, ev)) is not None:
                # The person's payment methods are in their profile: look them up before asking, so that "the
                # card ending 0636" already said picks one.
                return CallTools([profile])
            if not choice.question:  # asked twice, none of the methods on file named: never one picked for them
                # the request left is named, so that nobody waits for it; so is a method they named that it is not
                outputs = tool_outputs(conversation)
                named = [m for m in person_choices.all_methods_on_file(outputs)
                         if person_choices.picked(m, _said_since(conversation, choice.leaf), outputs)]
                if len(named) == 1:
                    return Say(f"I'm sorry, I cannot make that change ({words(action.name)}) with the "
                               f"{person_choices.listed(named, outputs)}.", intent="giveup")
                return Say(f"I'm sorry: without the payment method you want I cannot go on with that request "
                           f"({words(action.name)}), so I will leave it.", intent="giveup")
            return Say(f"{price} {choice.question}".strip(), intent="ask")
        if spec is not None and spec.is_write and (other := _option_not_said(conversation, action, spec)):
            # the person asked for another option of this write ("two child tickets", "the saver rate") and never
            # for the task's: it is not put to them in its place
            return Say(f"I'm sorry, I cannot {words(action.name)} with {other} here, so I will leave that request.",
                       intent="giveup")
        if spec is not None and spec.is_write and domain.confirm_writes:
            return Say(proposal(action, tool_outputs(conversation), price), intent="confirm")
        outputs = self._sayable_outputs(conversation, ev)
        if spec is not None and spec.terminal and outputs and not any(
                m.intent in ("answer", "done") for m in conversation.said("agent")):
            return Say("Before I hand you over, the answer you asked for: " + " / ".join(outputs) + ".",
                       intent="answer")
        if spec is not None and spec.terminal:
            return Say(self._handover_offer(conversation, action, ev), intent="confirm")
        if spec is not None and not spec.is_write and _key(action.name, action.kwargs) in _which_reads(conversation):
            return None  # read already, to tell which record the person meant: its output is in view
        return CallTools([PlannedCall(action.name, dict(action.kwargs), f"gated_{index}_{len(conversation.events)}")])

    def _which_record(self, conversation: Conversation, action: Action, ev: Evidence) -> AgentAction | None:
        """The record this action is on is one of several the tools listed as the person's (the reservations
        of a profile) and the person has not named it: read each (one a move, at most `_MAX_RECORDS`), then go on
        only when what they said singles it out (`records.singled_out`); else ask which one they mean, naming
        each by what the reads showed. None when there is no such choice to make."""
        domain = conversation.domain
        outputs = tool_outputs(conversation)
        texts = [m.content for m in conversation.said("user")]
        spec = domain.tool_map.get(action.name)
        is_write = spec is not None and spec.is_write
        for table in domain.tables:
            key, value = table.key, action.kwargs.get(table.key)
            if key == domain.identity_argument or not isinstance(value, str) or ev.said_by_user(value):
                continue
            candidates = records.listed_with(outputs, table.name, value)
            reader = _reader(domain, key)
            if not candidates or reader is None:
                continue
            seen = self._records_read(conversation, reader.name, key)
            tried = {str(c.arguments.get(key)) for c, _ in conversation.tool_calls() if c.name == reader.name}
            unread = [c for c in candidates if c not in tried]
            if unread and len(candidates) <= _MAX_RECORDS:
                return CallTools([PlannedCall(reader.name, {key: unread[0]},
                                              f"{_WHICH}{len(conversation.events)}")])
            # the person named another of their records by its id: this one is never put in its place, even when
            # what they describe fits it (a route, a date): they are asked which one they mean
            named = [c for c in candidates if c != value and ev.said_by_user(c)] if is_write else []
            if not named and records.singled_out(value, seen, texts) or (
                    not is_write and any(records.singled_out(c, seen, texts) for c in candidates)):
                # a read of another of them changes nothing: the answer said is the one singled out
                continue
            entity = words(key.removesuffix("_id"))
            asked = [q for q in self._asked_since_last_step(conversation) if f"Which {entity} do you mean" in q]
            meant = named or ([c for c in candidates if c != value and records.singled_out(c, seen, texts)]
                              if is_write else [])
            if asked and meant:  # asked once, they said which one (its id, or what only it shows): not one it
                # can do this for, said so rather than asked again. Asked first even when their words already
                # point to one: an id said earlier may be of an earlier request (published retail task 0: "cancel
                # the other pending order" after a change to #W5073920), a description may fit one they did not
                # mean (published airline task 10)
                # (declined, not given up: the person may still come back to it for another of their records)
                what = write_words.everyday(spec) if spec is not None else words(action.name)
                return Say(f"I'm sorry, I cannot {what} for {entity} {meant[-1]} here, so I will "
                           "leave that request.", intent="skip")
            if len(asked) >= 2:
                return Say(f"I'm sorry: without the {entity} you mean I cannot go on with that request, so I will "
                           "leave it.", intent="giveup")
            ask = records.which_question(entity, candidates, seen)
            if named and records.singled_out(value, seen, texts):
                ask = f"You named {entity} {named[-1]}, but what you describe fits another one. {ask}"
            return Say(f"Sorry, I still need to know that. {ask}" if asked else ask, intent="ask")
        return None

    def _settled(self, conversation: Conversation, action: Action) -> Action | Say:
        """The write with each value that is one of a catalogue's choices (the new item among a product's
        variants) as the person's words pick it (`tauplay.sim.choices`); else the question which one they want
        (asked twice at most, then the write is left). Never the task's own choice unsaid."""
        asked: list[str] = []
        answers: list[str] = []
        for role, m in self._since_last_step(conversation):
            if role == Role.AGENT and choices.QUESTION in m.content and not m.content.startswith(_DEPENDS):
                asked.append(m.content)  # (the question again with a price question's answer is no new ask)
            elif role == Role.USER and asked:
                answers.append(m.content)
        texts = [m.content for m in conversation.said("user")]
        kwargs, unsettled = choices.settle(action.kwargs, tool_outputs(conversation), texts, answers,
                                           evidence(conversation).said_by_user)
        if unsettled is None:
            return Action(action.name, kwargs, action.requestor)
        if len(asked) >= 2:
            return Say("I'm sorry: without the one you would like I cannot go on with that request, so I will "
                       "leave it.", intent="giveup")
        ask = choices.question(unsettled.choices, unsettled.shown, unsettled.have)
        if unsettled.gone:
            return Say(f"I'm sorry, the one with {unsettled.gone} is not available. {ask}", intent="ask")
        return Say(f"Sorry, I still need to know that. {ask}" if asked else ask, intent="ask")

    def _as_chosen(self, conversation: Conversation, action: Action) -> Action:
        """The write as the person chose its values (`_settled`), or as the task holds it when nothing is chosen."""
        spec = conversation.domain.tool_map.get(action.name)
        settled = self._settled(conversation, action) if spec is not None and spec.is_write else action
        return settled if isinstance(settled, Action) else action

    @staticmethod
    def _since_last_step(conversation: Conversation) -> list[tuple[str, MessageData]]:
        """The messages since the agent's last write, skip or give-up (`_asked_since_last_step`'s stretch)."""
        tools = conversation.domain.tool_map
        out: list[tuple[str, MessageData]] = []
        for e in conversation.events:
            if e.kind == EventKind.TOOL_CALL and e.role == Role.AGENT:
                spec = tools.get(e.as_(ToolCallData).name)
                if spec is not None and spec.is_write:
                    out = []
            elif e.kind == EventKind.MESSAGE:
                m = e.as_(MessageData)
                if e.role == Role.AGENT and m.intent in ("skip", "giveup"):
                    out = []
                else:
                    out.append((e.role, m))
        return out

    @staticmethod
    def _records_read(conversation: Conversation, reader: str, key: str) -> dict[str, Any]:
        """id -> the parsed output of each successful read of one record of this kind."""
        return {call.arguments[key]: _json(output) for call, output in _answered_calls(conversation)
                if call.name == reader and isinstance(call.arguments.get(key), str)}

    def _picked_from_a_listing(self, conversation: Conversation, action: Action) -> str:
        """The name of an argument of this read whose value the user never said and no tool showed but a
        listing, i.e. a read that takes no argument and shows everything of a kind ('' when there is none)."""
        domain = conversation.domain
        said = evidence(conversation, extra=None)
        specific = Evidence(user=said.user, tools=[
            r.output for e in conversation.events if e.kind == EventKind.TOOL_RESULT
            for r in [e.as_(ToolResultData)] if not r.error
            and (domain.tool_map.get(r.name) is None or domain.tool_map[r.name].required)],
            known=said.known, amounts_of=money_amounts)  # the policy's numbers are in view too (a fee, a rate)
        listings = [_json(r.output) for e in conversation.events if e.kind == EventKind.TOOL_RESULT
                    for r in [e.as_(ToolResultData)] if not r.error and r.name in domain.tool_map
                    and not domain.tool_map[r.name].required]
        for leaf in leaves(action.kwargs):
            if isinstance(leaf.value, str) and not specific.grounded(leaf.value) \
                    and not any(_named_in(listing, leaf.value, said) for listing in listings):
                return words(leaf.name)
        return ""

    def _policy_first(self, conversation: Conversation, action: Action, ev: Evidence) -> AgentAction | None:
        """What the policy wants done before this write (a competent agent does it): identify the user, run the
        look-up a rule puts first. Only with values in view; otherwise the write goes on and the policy check
        says what was skipped."""
        domain = conversation.domain
        events = conversation.events
        calls = [(c, ok) for c, ok in conversation.tool_calls() if c.requestor != "user"]
        ran = {c.name for c, ok in calls if ok}
        made = {_key(c.name, c.arguments) for c, _ in calls}
        known: dict[str, Any] = {}
        for a in (action, *conversation.task.actions):
            for k, v in a.kwargs.items():
                known.setdefault(k, v)

        def lookup(name: str) -> PlannedCall | None:
            spec = domain.tool_map.get(name)
            if spec is None or any(p not in known for p in spec.required):
                return None
            args = {p: known[p] for p in spec.required}
            if ungrounded(args, ev) or _key(name, args) in made:
                return None
            return PlannedCall(name, args, f"gated_first_{len(events)}")

        if not is_identified(events, domain):
            for name in domain.identify_with:
                if (call := lookup(name)) is not None:
                    return CallTools([call])
            # An e-mail the user gave identifies them (the look-up takes it as said).
            emails = [m.group() for t in conversation.said("user") for m in [_EMAIL.search(t.content)] if m]
            for name in domain.identify_with:
                spec = domain.tool_map.get(name)
                if emails and spec is not None and spec.required == ["email"] \
                        and _key(name, {"email": emails[-1]}) not in made:
                    return CallTools([PlannedCall(name, {"email": emails[-1]}, f"gated_first_{len(events)}")])
            asked = " ".join(self._asked_since_last_step(conversation))
            producers = [domain.tool_map[t] for t in domain.identify_with if t in domain.tool_map]
            wanted = ([(domain.identity_argument, producers[0] if producers else None)] if domain.identity_argument
                      else [(p.required[0], p) for p in producers[:1] if p.required])
            for arg, producer in wanted:
                if not asked_for(words(arg), asked):
                    return Say(question(producer, Leaf((arg,), arg, None)), intent="ask")
        rule = next((r for r in domain.rules if r.tool == action.name), None)
        if rule is not None and not ran.intersection(rule.after):
            for name in rule.after:
                if (call := lookup(name)) is not None:
                    return CallTools([call])
        return None

    def _bring_into_view(self, conversation: Conversation, action: Action, spec: ToolSpec | None, leaf: Leaf,
                         ev: Evidence) -> AgentAction:
        asked = " ".join(self._asked_since_last_step(conversation))
        direct = question(spec, leaf)
        # One of a few options for a write (one way or round trip) is the person's to say: a record of theirs that
        # happens to show that option is not their answer, so none is read to find it.
        # (A hand-over's reason is the agent's to say.)
        options = [] if spec is None or spec.terminal else _write_options(spec, leaf)
        read = None if options else self._find_read(conversation, leaf.value, amount=is_money(leaf.name))
        if spec is not None and spec.is_write and _date_param(leaf.name) and isinstance(leaf.value, str) and (
                read is None or any(_date_param(k) for k in read.arguments)):
            # A new date of a write is the person's to say: never found by searching day after day until the
            # task's own day shows up (a read that itself takes a date is such a search).
            return self._date_not_said(conversation, action, leaf, ev)
        if read is not None:
            # A read the domain's rules put a step before (authenticate first) waits for that step.
            if any(r.tool == read.name for r in conversation.domain.rules) and (
                    first := self._policy_first(conversation, Action(read.name, read.arguments), ev)):
                return first
            return CallTools([read])
        label = words(leaf.name)
        again = f"Sorry, I still need to know the {label} to go on"
        asked_already = asked_for(label, asked) or direct in asked
        if options and asked_already and again not in asked and not self._said_unknown(conversation, direct):
            choices = [str(c).replace("_", " ") for c in options]
            return Say(f"{again}: {', '.join(choices[:-1])} or {choices[-1]}?" if len(choices) > 1 else f"{again}.",
                       intent="ask")
        if not asked_already and not self._said_unknown(conversation, direct):
            return Say(direct, intent="ask")
        # The user does not know it: ask for what a look-up of that field takes (a user id for an order id,
        # then an e-mail for the user id), nearest first.
        queue, seen = [leaf.name], {leaf.name}
        needed = self._task_fields(conversation)
        outputs = tool_outputs(conversation)
        while queue:
            field_name = queue.pop(0)
            for producer in conversation.domain.read_tools:
                if field_name not in producer.produces or producer.utility:
                    continue
                for name in producer.required:
                    if name in seen:
                        continue
                    seen.add(name)
                    # Only what this task needs is asked for (no reservation id for a new booking); a field
                    # it does not need may still be found through its own look-ups. Never what a tool already
                    # showed (the look-ups with it were tried), nor what the person said they do not know.
                    if name.endswith("_id") and (together := self._ask_instead_of_id(conversation, name)):
                        # an id a person rarely knows ("your user id"): what they know of themselves instead, once
                        if not any(m.content == together for m in conversation.said("agent")):
                            return Say(together, intent="ask")
                        queue.append(name)
                        continue
                    ask = question(producer, Leaf((name,), name, None))
                    if name in needed and not asked_for(words(name), asked) \
                            and not any(values_for(name, o) for o in outputs) \
                            and not self._said_unknown(conversation, ask):
                        return Say(ask, intent="ask")
                    queue.append(name)
        what = "transfer you to a human agent" if spec is not None and spec.terminal else "go on with that request"
        return Say(f"I'm sorry: without the {label} I cannot {what}, so I will leave it.",
                   intent="giveup")

    def _date_not_said(self, conversation: Conversation, action: Action, leaf: Leaf, ev: Evidence) -> AgentAction:
        """The write needs a day the person has not said: ask which day (once more at most, then leave it); a day
        they said that is not the write's is searched (one read on that day), and what it showed is said plainly
        with the answer that this change cannot be made for it. Never the write's own day unsaid."""
        users = [m.content for m in conversation.said("user")]
        outputs = tool_outputs(conversation)
        said = _days_said(conversation, users, outputs)
        asked = self._asked_since_last_step(conversation)
        flight = "flight" in action.name
        ask = "Which day would you like to fly instead?" if flight else question(
            conversation.domain.tool_map.get(action.name), leaf)
        if not said:
            if ask in asked and f"Sorry, I still need to know the day. {ask}" in asked:
                return Say("I'm sorry: without the day you want I cannot go on with that request, so I will leave "
                           "it.", intent="giveup")
            return Say(f"Sorry, I still need to know the day. {ask}" if ask in asked else ask, intent="ask")
        day = said[-1]
        made = {_key(c.name, c.arguments) for c, _ in conversation.tool_calls()}
        searched = [(c, out) for c, out in _answered_calls(conversation) if day in c.arguments.values()]
        if not searched:
            record = next((o for o in outputs for v in action.kwargs.values()
                           if isinstance(v, str) and _id_like(v) and f'"{v}"' in o), "")
            options = [(s, a) for s, a in self._candidates(conversation, outputs, ev, made)
                       if any(_date_param(k) and v == day for k, v in a.items())]
            options.sort(key=lambda sa: not all(f'"{v}"' in record for k, v in sa[1].items() if not _date_param(k)))
            if options:
                spec, args = options[0]
                return CallTools([PlannedCall(spec.name, args, f"gated_day_{len(conversation.events)}")])
        found = list(dict.fromkeys(str(v) for _, out in searched for k, vs in _index(out).items()
                                   if k.endswith("_number") for v in vs))
        shown = (f"For {day} I found: {', '.join(found[:12])}." if found else f"For {day} I found nothing I could "
                 "offer you.")
        return Say(f"{shown} I'm sorry, I cannot make that change for {day}.", intent="giveup")

    @staticmethod
    def _no_to_paying(conversation: Conversation, text: str) -> bool:
        """"no, I don't want to pay that" to the agent's question of how to pay (with the price beside it): a no to
        the change, not a payment to pick for the person. A no that names a method ("no, the card ending 8439")
        or answers with a question is not."""
        last = next((m for m in reversed(conversation.said("agent"))
                     if m.intent not in ("answer", "answer_later", "refuse")), None)
        if last is None or last.intent != "ask" or answer_kind(text) != "no":
            return False
        payment = person_choices.question_for(Leaf(("payment_id",), "payment_id", None)) or ""
        if payment not in last.content and person_choices.PAY_AGAIN not in last.content:
            return False
        return not re.search(r"\b(card|certificate|gift|paypal|ending|balance|voucher)\b", text, re.IGNORECASE)

    def _ask_instead_of_id(self, conversation: Conversation, name: str) -> str:
        """"Could you tell me your first name, last name and zip?": a look-up of this id by fields a person knows of
        themselves (none an id, none they said they do not know), asked together; "" when there is none."""
        everything = " ".join(m.content for m in conversation.said("agent"))  # a field asked before: not again
        for spec in conversation.domain.read_tools:
            if spec.utility or name not in spec.produces or len(spec.required) < 2:
                continue
            if any(r.endswith("_id") or asked_for(words(r), everything) for r in spec.required):
                continue
            fields = [words(r) for r in spec.required]
            return f"Could you tell me your {', '.join(fields[:-1])} and {fields[-1]}?"
        return ""

    @staticmethod
    def _requested(conversation: Conversation, action: Action, texts: list[str] | None = None) -> bool:
        """The user has asked for this write in words: its tool's name, or a word of it that not most tools
        share (`names_write`). Nothing else: not a value the write happens to carry (the user named the
        reservation to update its bags, not to cancel it), nor a reply to "anything else?" that names nothing
        (the agent acts on what is said, never on what the task holds). `texts`: these of their words only."""
        tools = conversation.domain.tool_map
        texts = [m.content for m in conversation.said("user")] if texts is None else texts
        if "book" in action.name.split("_") and any(_NEW_BOOKING.search(t) for t in texts):
            return True
        plain = [" ".join(w for w in normalize(t).split() if w not in _PLAIN) for t in texts]
        return names_write(plain, action.name, tools, loose=True,
                           everyday=conversation.domain.request_words.get(action.name, ()))

    @staticmethod
    def _said_unknown(conversation: Conversation, ask: str) -> bool:
        """The person answered this very question before by saying they do not know (asking again, for the
        next step, gets the same answer)."""
        events = [e for e in conversation.events if e.kind == EventKind.MESSAGE]
        for i, e in enumerate(events[:-1]):
            if e.role == Role.AGENT and e.as_(MessageData).content == ask:
                reply = events[i + 1]
                if reply.role == Role.USER and _UNKNOWN.search(reply.as_(MessageData).content):
                    return True
        return False

    @staticmethod
    def _asked_since_last_step(conversation: Conversation) -> list[str]:
        """The agent's questions since its last write, skip or give-up: a later action may need the same
        field with another value (a second `manage_service` with action "add")."""
        tools = conversation.domain.tool_map
        out: list[str] = []
        for e in conversation.events:
            if e.role != Role.AGENT:
                continue
            if e.kind == EventKind.TOOL_CALL:
                spec = tools.get(e.as_(ToolCallData).name)
                if spec is not None and spec.is_write:
                    out = []
            elif e.kind == EventKind.MESSAGE:
                m = e.as_(MessageData)
                if m.intent in ("skip", "giveup"):
                    out = []
                elif m.intent in ("ask", "resume"):
                    out.append(m.content)
        return out

    # -- looking ahead ------------------------------------------------------------------------------
    def _dry_run(self, conversation: Conversation, spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
        key = (conversation.env.hash, spec.name, canonical(arguments))
        if key in self._cache:
            return self._cache[key]
        out: str | None = None
        if not validate(arguments, spec.parameters):
            try:
                from tauplay.core.environment import render_output

                out = render_output(spec.func(conversation.env.state, **coerce(arguments, spec.parameters)))
            except Exception:  # a look-up that fails (unknown id) brings nothing into view
                out = None
        self._cache[key] = out
        return out

    def _candidates(self, conversation: Conversation, outputs: list[str], ev: Evidence,
                    made: set[tuple[str, str]]) -> list[tuple[ToolSpec, dict[str, Any]]]:
        """Read calls whose arguments are all in view (gold reads first, then one per combination of values
        seen for each required parameter)."""
        domain = conversation.domain
        # An output that is one bare value (a found user id) may feed any parameter.
        bare = [o.strip().strip('"') for o in outputs if not isinstance(_json(o), dict | list)
                and len(o.split()) == 1 and _id_like(o.strip().strip('"'))]
        users = [m.content for m in conversation.said("user")]
        tokens = [t for text in users for t in _TOKEN.findall(text) if _id_like(t)]
        plain_words = list(dict.fromkeys(w for text in users for w in re.findall(r"[A-Z][\w'-]+|\d{3,}", text)
                                         if w not in ("I", "I'm", "Hi", "Hello")))[-8:]
        gold_values: dict[str, list[Any]] = {}
        for a in conversation.task.actions:
            for k, v in a.kwargs.items():
                gold_values.setdefault(k, []).append(v)
        # The dates the person said come first for a date to look up, before any date a tool showed (their other
        # bookings'): "May 20th" is searched on May 20, never on the day of another trip that shows the flight.
        # A date said without its year is in the year of the dates in view, or of today's date in the policy.
        said_dates = _days_said(conversation, users, outputs)
        out: list[tuple[ToolSpec, dict[str, Any]]] = []
        seen: set[tuple[str, str]] = set(made)

        def add(spec: ToolSpec, args: dict[str, Any]) -> None:
            key = _key(spec.name, args)
            if key not in seen and ev.grounded(args):
                seen.add(key)
                out.append((spec, args))

        def against_said_dates(args: dict[str, Any]) -> bool:
            return bool(said_dates) and any(_date_param(k) and isinstance(v, str) and v not in said_dates
                                            for k, v in args.items())

        later: list[tuple[ToolSpec, dict[str, Any]]] = []
        for a in conversation.task.actions:
            spec = domain.tool_map.get(a.name)
            if spec is not None and not spec.is_write and not spec.terminal and a.requestor != "user":
                if against_said_dates(a.kwargs):
                    later.append((spec, dict(a.kwargs)))  # another day than the person said: only if nothing else
                else:
                    add(spec, dict(a.kwargs))
        for spec in domain.read_tools:
            if spec.utility or spec.terminal:
                continue
            if not spec.required:  # a catalogue or listing: nothing to fill in
                add(spec, {})
                continue
            options: list[list[Any]] = []
            for name in spec.required:
                values: list[Any] = list(said_dates) if _date_param(name) else []
                values += [v for v in gold_values.get(name, []) if isinstance(v, str | int)]
                for o in outputs:
                    values += values_for(name, o)
                values += bare
                if len(spec.required) == 1:
                    values += tokens
                elif not any(_date_param(p) for p in spec.required):
                    # a look-up by what a person knows of themselves ("Juan Lopez, zip 10055"): their words
                    values += plain_words
                options.append(list(dict.fromkeys(v for v in values if ev.grounded(v)))[:25])
            combos: list[dict[str, Any]] = [{}]
            for name, values in zip(spec.required, options, strict=True):
                combos = [{**c, name: v} for c in combos for v in values][:60]
            for args in combos:
                add(spec, args)
        for spec, args in later:
            add(spec, args)
        return out

    def _find_read(self, conversation: Conversation, target: Any, *, amount: bool = False) -> PlannedCall | None:
        """The first read of the shortest chain of reads (at most three) whose outputs bring `target` into
        view, or None."""
        made = {_key(c.name, c.arguments) for c, _ in conversation.tool_calls()}
        base = tool_outputs(conversation)
        users = [m.content for m in conversation.said("user")]
        known = [_policy(conversation)]
        # Level by level: the reads possible now, then those the outputs of the level before make possible;
        # each remembers the read of the first level it came from (the one to make now).
        level: list[tuple[tuple[ToolSpec, dict[str, Any]], str]] = []  # (root read, output)
        seen_outputs: list[str] = []
        budget = self.max_dry_runs
        tried: set[tuple[str, str]] = set(made)
        start = Evidence(user=users, tools=base, known=known, amounts_of=money_amounts)
        view = start
        # A later link of a chain that the domain's rules put after a step not made (authenticate first) is one the
        # chain cannot reach, unless its first read is that step: otherwise the first read is made for nothing (a
        # whole catalogue read before the person is even identified). As the first link it stays: that step is
        # then made first (`_bring_into_view`).
        ran = {c.name for c, ok in conversation.tool_calls() if ok and c.requestor != "user"}
        waits_for: dict[str, set[str]] = {}
        for rule in conversation.domain.rules:
            if not ran.intersection(rule.after):
                waits_for.setdefault(rule.tool, set()).update(rule.after)
        for _depth in range(3):
            found: list[tuple[tuple[ToolSpec, dict[str, Any]], str]] = []
            for spec, args in self._candidates(conversation, base + seen_outputs, view, tried):
                root = self._root(level, start, args) or (spec, args)
                if root[0] is not spec and spec.name in waits_for and root[0].name not in waits_for[spec.name]:
                    continue
                if budget <= 0:
                    return None
                budget -= 1
                tried.add(_key(spec.name, args))
                output = self._dry_run(conversation, spec, args)
                if output is None:
                    continue
                if self._shows(view, output, target, amount):
                    return PlannedCall(root[0].name, root[1], f"gated_read_{len(conversation.events)}")
                found.append((root, output))
            if not found:
                break
            level += found
            seen_outputs += [o for _, o in found]
            view = view.plus(*(o for _, o in found))
        return None

    @staticmethod
    def _root(level: list[tuple[tuple[ToolSpec, dict[str, Any]], str]], start: Evidence,
              args: dict[str, Any]) -> tuple[ToolSpec, dict[str, Any]] | None:
        """The first-level read whose output (with what was in view) grounds these arguments; None when they
        were in view already."""
        if not level:
            return None
        missing = [v for v in scalars(args) if not start.grounded(v)]
        if not missing:
            return None
        for root, output in level:
            if _alone(output).grounded(missing):
                return root
        return level[0][0]

    @staticmethod
    def _shows(view: Evidence, output: str, target: Any, amount: bool = False) -> bool:
        """`target` is in view once `output` is: a string in the output itself, a number possibly worked out
        with numbers already in view."""
        if all(isinstance(v, str) for v in scalars(target)):
            return _alone(output).grounded(target)
        return view.plus(output).grounded(target, amount=amount)

    # -- what the person says -----------------------------------------------------------------------
    def _on_answer(self, conversation: Conversation, progress: Progress, text: str) -> AgentAction:
        assert progress.offer is not None
        action = self._as_chosen(conversation, conversation.task.actions[progress.offer])
        kind = answer_kind(text)
        if kind == "yes":
            return CallTools([PlannedCall(action.name, dict(action.kwargs),
                                          f"gated_{progress.offer}_{len(conversation.events)}")])
        if kind == "no":
            return Say("All right, I will not make that change. If you change your mind, just tell me.",
                       intent="skip")
        outputs = tool_outputs(conversation)
        if kind == "question":
            spec = conversation.domain.tool_map.get(action.name)
            priced = self._quote_step(conversation, action, evidence(conversation)) \
                if tool_answers.asks_price(text) else None
            if isinstance(priced, CallTools):
                return priced  # the reads the price needs; the question is answered after them (`act`)
            if isinstance(priced, Quote) and priced.sentence():
                said = priced.sentence() + " "
            else:
                reply = self._answer_question(conversation, text, action.kwargs if spec and spec.is_write else None)
                said = (reply.text + " ") if isinstance(reply, Say) else ""
            return Say(f"{said}Nothing has changed yet: I make the change only after you say yes, exactly as "
                       f"described. {proposal(action, outputs)}", intent="confirm")
        if other := _another_id(conversation, text, action):
            # "The reservation id is I1D60D." to a proposal on another record: a no to this one, never a reason to
            # put the same proposal again
            return Say(f"All right, I will not make that change. I'm sorry, I cannot do it for {other} here. If you "
                       "change your mind, just tell me.", intent="skip")
        return Say(f"Sorry, I need a clear yes or no. {proposal(action, outputs, self._price(conversation, action))}",
                   intent="confirm")

    def _come_back(self, conversation: Conversation, progress: Progress, text: str) -> AgentAction | None:
        """The user returns to a write they declined, with a clear yes right after the decline or by naming it
        again (its tool's words): it is put again, in full, and made on the yes to that (a write never follows a
        yes to something else, such as "All right, I will not make that change")."""
        last_agent = conversation.last_said("agent")
        action = self._as_chosen(conversation, conversation.task.actions[progress.skipped[-1]])
        yes_again = answer_kind(text) == "yes" and last_agent is not None and last_agent.intent in ("skip", "done",
                                                                                                   "more")
        said = [w for w in normalize(text).split() if len(w) >= 3 and w not in _PLAIN]
        names = [w for w in normalize(words(action.name)).split() if len(w) > 3]
        spec = conversation.domain.tool_map.get(action.name)
        if any(_another_id(conversation, t, action) or _another_method(conversation, t, action)
               or _another_option(t, action, spec)
               for t in _said_since_proposal(conversation)):
            # another record of theirs named by its id, another option of the write ("basic economy" to a change
            # in economy) in reply to it or since: not this write come back to, the same as it was
            return None
        if yes_again or any(n.startswith(w) or w.startswith(n) for w in said for n in names):
            if spec is not None and (which := self._which_record(conversation, action, evidence(conversation))):
                # which of their records, first: never the task's taken for the one they mean (the plan is back on
                # this write, as after any come-back)
                return Say(which.text, intent="resume") if isinstance(which, Say) and which.intent == "ask" \
                    else which
            choice = self._unchosen(conversation, action)
            if choice is not None and choice.topic == "payment" and choice.question:
                # how to pay is still the person's to say: asked, never one of theirs picked for them
                return Say(f"All right. {choice.question}", intent="resume")
            return Say(proposal(action, tool_outputs(conversation), self._price(conversation, action)),
                       intent="confirm")
        return None

    def _lookup_as_given(self, conversation: Conversation, text: str) -> AgentAction | None:
        """An id the user names next to what it is ("reservation ABC123", "order #W1"), not yet looked up:
        look it up exactly as given, with the read that takes that id alone."""
        domain = conversation.domain
        made = {_key(c.name, c.arguments) for c, _ in conversation.tool_calls()}
        tools_seen = normalize(" ".join(tool_outputs(conversation)))
        gold = {normalize(str(v)) for a in conversation.task.actions for v in a.kwargs.values()}
        for spec in domain.read_tools:
            if len(spec.required) != 1 or spec.utility:
                continue
            param = spec.required[0]
            stem = param[:-3] if param.endswith("_id") else param
            if not param.endswith("id") or not stem:
                continue
            pattern = re.compile(rf"\b{re.escape(words(stem))}(?:\s+(?:id|number|code|is|was|no\.?))*\s*[:#]?\s*"
                                 r"(#?[A-Za-z0-9][\w.@-]*\w)", re.IGNORECASE)
            hashed = any(str(a.kwargs.get(param, "")).startswith("#") for a in conversation.task.actions)
            for m in pattern.finditer(text):
                token = m.group(1)
                if hashed and not token.startswith("#") and text[:m.start(1)].rstrip().endswith("#"):
                    token = "#" + token  # "order #W6375104": the '#' is part of the id as said
                norm = normalize(token)
                if not _id_like(token) or norm in gold or f" {norm} " in f" {tools_seen} ":
                    continue
                if _key(spec.name, {param: token}) in made:
                    continue
                return CallTools([PlannedCall(spec.name, {param: token}, f"gated_lookup_{len(conversation.events)}")])
        # an e-mail the person gives is looked up as they said it, even when it is not the one the task holds (the
        # failed look-up is told them, `_after_lookup`), never passed over for the one the agent secretly knows
        for spec in domain.read_tools:
            if len(spec.required) != 1 or "email" not in spec.required[0] or spec.utility:
                continue
            for token in _EMAIL.findall(text):
                norm = normalize(token)
                if norm in gold or f" {norm} " in f" {tools_seen} " or _key(spec.name, {spec.required[0]: token}) in made:
                    continue
                return CallTools([PlannedCall(spec.name, {spec.required[0]: token},
                                              f"gated_lookup_{len(conversation.events)}")])
        return None

    def _after_lookup(self, conversation: Conversation) -> AgentAction | None:
        """Report a failed look-up of an id the user gave; any other failed call goes on with the plan."""
        events = conversation.events
        result = events[-1].as_(ToolResultData)
        if not result.error:
            return None
        call = next((e.as_(ToolCallData) for e in reversed(events) if e.kind == EventKind.TOOL_CALL
                     and e.as_(ToolCallData).call_id == result.call_id), None)
        if call is None or not call.call_id.startswith("gated_lookup_"):
            return None
        value = next(iter(call.arguments.values()), "")
        what = words(next(iter(call.arguments), "id"))
        return Say(f"I could not find the {what} {value}: the look-up says \"{result.output}\". "
                   f"Could you check the {what}?", intent="not_found")

    def _unrelated(self, conversation: Conversation, text: str, ev: Evidence) -> bool:
        """A request that shares no word with the domain (its tools, their parameters, its tables) nor any
        value in view."""
        if not _REQUEST.search(text):
            return False
        domain = conversation.domain
        vocab = set(_SERVICE_WORDS)
        for spec in domain.tools:
            vocab.update(w for w in normalize(words(spec.name)).split() if len(w) > 2)
            for p in spec.parameters.get("properties", {}):
                vocab.update(w for w in normalize(words(p)).split() if len(w) > 2)
        for table in domain.tables:
            vocab.update(w for w in normalize(words(table.name)).split() if len(w) > 2)
        vocab |= {v[:-1] for v in vocab if v.endswith("s")}
        said = [w for w in normalize(text).split() if len(w) >= 4 and w.isalpha() and w not in _PLAIN]
        if not said or any(w in vocab or w.rstrip("s") in vocab for w in said):
            return False
        if any(loosely_stated(text, p, least=1) for ps in domain.request_words.values() for p in ps):
            return False  # the domain's everyday words for one of its changes ("a checked bag")
        gold = [v for a in conversation.task.actions for v in a.kwargs.values() if isinstance(v, str)]
        return not any(ev.said_by_user(v) and normalize(v) in normalize(text) for v in gold)

    def _what_wanted(self, conversation: Conversation) -> Say | None:
        """The person asked for something without saying what ("I want to change something on my booking"), and
        nothing they said since tells: ask what they want done (once), before any question of the task's own."""
        texts = [m.content for m in conversation.said("user")]
        # a sentence that asks through a vague word and says nothing else ("I forgot the id of my reservation to
        # SFO" says what it is about)
        vague = [s for t in texts for s in re.split(r"(?<=[.!?;:])\s+", t) if _VAGUE.search(s)
                 and not _STATUS.search(s) and not any(
            len(w) >= 3 and w.isalpha() and w not in _PLAIN and w not in _VAGUE_WORDS for w in normalize(s).split())]
        if not vague or any(m.intent == "what" for m in conversation.said("agent")):
            return None
        domain = conversation.domain
        vocab = {w for spec in domain.tools for w in normalize(words(spec.name)).split() if len(w) > 3}
        vocab |= {w for spec in domain.tools for p in spec.parameters.get("properties", {})
                  for w in normalize(words(p)).split() if len(w) > 3}
        vocab -= _VAGUE_WORDS
        for text in texts:
            said = [w.rstrip("s") for w in normalize(text).split()]
            if any(w in vocab or w + "s" in vocab for w in said) or dates_said([text], [2000]) or any(
                    loosely_stated(text, p, least=1) for ps in domain.request_words.values() for p in ps):
                return None  # a word of what the domain does, a date: something to go on
        m = next((m for m in _VAGUE.finditer(vague[-1]) if m.group("thing")), None)
        verb = next((v for v in ("change", "modify", "update", "fix", "edit") if re.search(rf"\b{v}\b", vague[-1], re.I)),
                    "")
        thing = (m.group("thing") or "").lower() if m else ""
        if verb and thing:
            ask = f"Sure. What would you like to {verb} on your {thing}?"
        elif thing:
            ask = f"Sure. What would you like me to do with your {thing}?"
        else:
            ask = "Sure. What would you like me to do for you?"
        return Say(ask, intent="what")

    # -- speaking for what it does (issue 25) ------------------------------------------------------------
    @staticmethod
    def _task_fields(conversation: Conversation) -> set[str]:
        """The fields this task's calls take, and what identifies a user: all the agent may ask a person for."""
        domain = conversation.domain
        out = {leaf.name for a in conversation.task.actions for leaf in leaves(a.kwargs)}
        out |= {k for a in conversation.task.actions for k in a.kwargs}
        for name in domain.identify_with:
            if (spec := domain.tool_map.get(name)) is not None:
                out |= set(spec.required)
        if domain.identity_argument:
            out.add(domain.identity_argument)
        return out | {"email"}

    def _profile_read(self, conversation: Conversation, ev: Evidence) -> PlannedCall | None:
        """The look-up of the user's own record (the domain's identifying read) with values in view, when it has
        not been made yet, shows the person's payment methods (a look-up that finds only a user id is no such read,
        nor is any read once a profile that lists them is in view: it would be made for nothing)."""
        domain = conversation.domain
        made = {_key(c.name, c.arguments) for c, _ in conversation.tool_calls()}
        outputs = tool_outputs(conversation)
        if person_choices.all_methods_on_file(outputs):
            return None
        for name in domain.identify_with:
            spec = domain.tool_map.get(name)
            if spec is None or not spec.required:
                continue
            options = [[v for o in outputs for v in values_for(p, o) if ev.grounded(v)] for p in spec.required]
            if not all(options):
                continue
            args = {p: values[0] for p, values in zip(spec.required, options, strict=True)}
            if _key(name, args) not in made and person_choices.all_methods_on_file(
                    [self._dry_run(conversation, spec, args) or ""]):
                return PlannedCall(name, args, f"gated_first_{len(conversation.events)}")
        return None

    def _unchosen(self, conversation: Conversation, action: Action) -> person_choices.Choice | None:
        """A value of this write that is the person's to choose (payment and its split, bags, insurance) and
        that the person has not spoken to yet: the agent asks rather than proposes it."""
        users = [m.content for m in conversation.said("user")]
        outputs = tool_outputs(conversation)
        asked = " ".join(self._asked_since_last_step(conversation))
        return person_choices.unchosen(action.kwargs, users, outputs, asked)

    @staticmethod
    def _handover_offer(conversation: Conversation, action: Action, ev: Evidence) -> str:
        """Before a transfer: why (this is beyond what the agent may do itself), the note that goes with it (when
        everything in it is in view), and a question, so that nobody is handed over without a word."""
        asked = any(re.search(r"\b(human|person|someone|representative|supervisor|manager)\b", m.content, re.I)
                    for m in conversation.said("user"))
        note = next((v for k, v in action.kwargs.items() if k in ("summary", "reason", "note")
                     and isinstance(v, str)), "")
        ids = [t for t in _TOKEN.findall(note) if _id_like(t)]
        shown = f' with this note: "{note}"' if note and all(ev.grounded(t) for t in ids) else ""
        why = ("You asked for a human agent." if asked
               else "I'm sorry: this is not something I can do for you myself under our policy.")
        return (f"{why} I can transfer you to a human agent{shown}, who can take it from here. "
                "Shall I transfer you now? Please answer yes or no.")

    def _device_step(self, conversation: Conversation, action: Action) -> str:
        spec = conversation.domain.user_tool_map.get(action.name)
        task = conversation.task
        persona = str(task.tau2.user_scenario.get("persona") or "") if task.tau2 is not None else ""
        if spec is None:
            return f"On your device, please {words(action.name)}. Then tell me what it shows."
        return device_steps.instruction(spec, action.kwargs, persona)

    # -- what a write will cost (Domain.quote) -------------------------------------------------------------
    @staticmethod
    def _seen_calls(conversation: Conversation) -> list[SeenCall]:
        calls = {e.as_(ToolCallData).call_id: e.as_(ToolCallData) for e in conversation.events
                 if e.kind == EventKind.TOOL_CALL}
        out = []
        for e in conversation.events:
            if e.kind != EventKind.TOOL_RESULT or (r := e.as_(ToolResultData)).error:
                continue
            call = calls.get(r.call_id)
            if call is not None:
                parsed = _json(r.output)
                out.append(SeenCall(call.name, call.arguments, r.output if parsed is None else parsed))
        return out

    def _quote_step(self, conversation: Conversation, action: Action, ev: Evidence) -> CallTools | Quote | None:
        """The reads the domain's quote of this write still needs (values in view, not made before), as real
        calls; else the quote with its amount; None when the domain prices no such write or cannot now."""
        hook = conversation.domain.quote
        if hook is None:
            return None
        found = hook(action.name, action.kwargs, self._seen_calls(conversation))
        if found is None:
            return None
        if not found.needs:
            return found if found.amount is not None else None
        made = {_key(c.name, c.arguments) for c, _ in conversation.tool_calls()}
        reads = {t.name for t in conversation.domain.read_tools}
        todo = [r for r in found.needs if r.name in reads and _key(r.name, r.arguments) not in made
                and not ungrounded(r.arguments, ev)]
        if not todo:
            return None  # made already, and still no price: none is said
        read = todo[0]  # one call a turn (the policy's rule): the next read comes on the next move
        return CallTools([PlannedCall(read.name, dict(read.arguments), f"gated_quote_{len(conversation.events)}")])

    def _price(self, conversation: Conversation, action: Action) -> str:
        """The price sentence of this write when the reads made so far give it ("" otherwise)."""
        priced = self._quote_step(conversation, action, evidence(conversation))
        return priced.sentence() if isinstance(priced, Quote) else ""

    def _write_in_hand(self, conversation: Conversation, progress: Progress) -> Action | None:
        """The write on offer, or the next write of the plan the person has asked for."""
        gold = conversation.task.actions
        tools = conversation.domain.tool_map
        if progress.offer is not None:
            return gold[progress.offer]
        for action in gold[progress.index:]:
            spec = tools.get(action.name)
            if spec is not None and spec.is_write and action.requestor != "user":
                return action if self._requested(conversation, action) else None
        return None

    def _price_answer(self, conversation: Conversation, progress: Progress, ev: Evidence) -> AgentAction | None:
        """"How much will it cost?" before the yes: the price of the write in hand, after the reads it needs
        (made as real calls); then the question the agent had asked, again. None when no price can be said."""
        action = self._write_in_hand(conversation, progress)
        if action is None or ungrounded(action.kwargs, ev, is_money):
            return None  # a price of values the person has not seen would tell them the plan, not the tools
        spec = conversation.domain.tool_map.get(action.name)
        if spec is not None and spec.is_write:
            settled = self._settled(conversation, action)
            if isinstance(settled, Say):  # the price of the task's choice would tell them which one it is
                ask = settled.text.removeprefix("Sorry, I still need to know that. ")
                return Say(f"{_DEPENDS} {ask}", intent=settled.intent)
            action = settled
        priced = self._quote_step(conversation, action, ev)
        if isinstance(priced, CallTools) or priced is None:
            return priced
        sentence = priced.sentence()
        if not sentence:
            return None
        last = conversation.last_said("agent")
        if last is not None and last.intent == "ask" and choices.QUESTION not in last.content:
            # (the question which one they want was answered with the price question: not asked again)
            question = last.content.removeprefix(sentence).strip()
            return Say(f"{sentence} {question}", intent="ask")
        return Say(f"{sentence} Nothing has changed yet.", intent="answer")

    @staticmethod
    def _unanswered_price_question(conversation: Conversation) -> bool:
        """The person's last words ask what something costs, and the agent has only made calls since."""
        for e in reversed(conversation.events):
            if e.kind == EventKind.MESSAGE:
                return e.role == Role.USER and tool_answers.asks_price(e.as_(MessageData).content)
        return False

    def _after_write(self, conversation: Conversation) -> AgentAction | None:
        """A write of its own just went through: say so in words ("Done: ...")."""
        events = conversation.events
        result = events[-1].as_(ToolResultData)
        spec = conversation.domain.tool_map.get(result.name)
        if result.error or result.by_user or spec is None or not spec.is_write:
            return None
        call = next((e.as_(ToolCallData) for e in reversed(events) if e.kind == EventKind.TOOL_CALL
                     and e.as_(ToolCallData).call_id == result.call_id), None)
        if call is None:
            return None
        return Say(f"Done: {describe_action(Action(call.name, call.arguments), tool_outputs(conversation))}.",
                   intent="reported")

    def _answer_question(self, conversation: Conversation, text: str,
                         offer: dict[str, Any] | None) -> Say | None:
        """A simple question answered from what the tools returned, or with what a look-up would need."""
        if not tool_answers.is_question(text):
            return None
        if re.search(r"\b(?:cards?|payment methods?|gift cards?|certificates?|ways? to pay)\b", text, re.IGNORECASE) and \
                re.search(r"\b(?:file|have|my|got|saved)\b", text, re.IGNORECASE) and not tool_answers.asks_price(text):
            outputs = tool_outputs(conversation)
            # the person's own payment methods, as their profile showed them
            if on_file := person_choices.all_methods_on_file(outputs):
                return Say(f"On file you have: {person_choices.listed(on_file, outputs, 'and')}.", intent="answer")
        if (items := _items_asked(conversation, text)) is not None:
            return Say(items, intent="answer")
        # "No insurance, thanks. What could go wrong?": only the sentences that ask are the question
        asking = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if "?" in s]
        text = " ".join(asking) or text
        outputs = tool_outputs(conversation)
        found = tool_answers.answer(text, outputs, offer, _policy(conversation))
        if found is None:
            return None
        if not found:  # a topic nothing in view answers yet: what a look-up would need ("answer_later")
            return Say(tool_answers.what_it_needs(text, conversation.domain.read_tools), intent="answer_later")
        return Say(found, intent="answer")

    # -- words at the end -----------------------------------------------------------------------------
    def _sayable_outputs(self, conversation: Conversation, ev: Evidence) -> list[str]:
        """The task's required answers that a tool has shown (an agent cannot say what it has not seen)."""
        # a number said as an answer is worked out from amounts only (never from dates and ids in view); it is said
        # only to a person who asked for it in words (`asked_for`), never because the task holds it
        # (or the id of what a change they asked for made: a ticket, a booking, told as the change is)
        texts = [m.content for m in conversation.said("user")]
        shown = tool_outputs(conversation)
        tools = conversation.domain.tool_map
        made = [out for call, out in _answered_calls(conversation)
                if (spec := tools.get(call.name)) is not None and spec.is_write]
        return [o for o in conversation.task.outputs
                if (ev.grounded(o, amount=True) or ev.grounded(_number(o), amount=True))
                and (answer_asked_for(o, texts, shown, beside=not _other_write(conversation)) or (not re.fullmatch(r"[\d.,-]+", o) and any(o in out for out in made)))
                and not self._one_of_several(conversation, o, ev)]

    def _one_of_several(self, conversation: Conversation, value: str, ev: Evidence) -> bool:
        """`value` is the id of one of several records the tools listed as the person's, and neither they named
        it nor what they said singles it out: saying it as the answer would pick it for them."""
        domain = conversation.domain
        if ev.said_by_user(value):
            return False
        outputs = tool_outputs(conversation)
        texts = [m.content for m in conversation.said("user")]
        for table in domain.tables:
            candidates = records.listed_with(outputs, table.name, value)
            reader = _reader(domain, table.key)
            if candidates and reader is not None:
                seen = self._records_read(conversation, reader.name, table.key)
                return not records.singled_out(value, seen, texts)
        return False

    def _record_singled_out(self, conversation: Conversation, ev: Evidence) -> str:
        """"The reservation you asked about is 2O29IC (DFW to DEN on 2024-05-20).": a task's answer that is one of
        the person's records kept back (`_one_of_several`) because they singled out another one: that one, by its
        id and what its read showed ("" when they singled out none)."""
        domain = conversation.domain
        outputs = tool_outputs(conversation)
        texts = [m.content for m in conversation.said("user")]
        for value in conversation.task.outputs:
            if not self._one_of_several(conversation, value, ev):
                continue
            for table in domain.tables:
                candidates = records.listed_with(outputs, table.name, value)
                reader = _reader(domain, table.key)
                if not candidates or reader is None:
                    continue
                seen = self._records_read(conversation, reader.name, table.key)
                meant = [c for c in candidates if c != value and records.singled_out(c, seen, texts)]
                if len(meant) == 1:
                    about = records.summary(seen.get(meant[0]))
                    entity = words(table.key.removesuffix("_id"))
                    return f"The {entity} you asked about is {meant[0]}" + (f" ({about})." if about else ".")
        return ""

    def _summary(self, conversation: Conversation, ev: Evidence) -> str:
        """The closing words: the writes not yet confirmed in words (each one said "Done: ..." as it went
        through, and is not said again), the steps it refused or could not do, the answers it may say."""
        outputs = self._sayable_outputs(conversation, ev)
        reported = self._reported(conversation)
        refused = self._refusals(conversation)
        left = _not_done(conversation)
        if not reported and not refused:
            said = done_summary(conversation, outputs)
            if (other := self._record_singled_out(conversation, ev)) and said.startswith(_LOOKED):
                said = other + said[len(_LOOKED):]  # what they asked about, not a bare "I have looked into it"
            elif (status := self._status_asked(conversation)) and said.startswith(_LOOKED):
                said = status + said[len(_LOOKED):]  # "where is my order?": how it stands, from its read
            elif left and said.startswith(_LOOKED):
                said = "Nothing has been changed." + said[len(_LOOKED):]  # never "looked into it" after a no
            return _with_not_done(said, left)
        tools = conversation.domain.tool_map
        made = {r.call_id for e in conversation.events if e.kind == EventKind.TOOL_RESULT
                for r in [e.as_(ToolResultData)] if not r.error and not r.by_user}
        calls = [c for e in conversation.events if e.kind == EventKind.TOOL_CALL and e.role == Role.AGENT
                 for c in [e.as_(ToolCallData)] if c.call_id in made
                 and (spec := tools.get(c.name)) is not None and spec.is_write]
        fresh = [c for c in calls if c.call_id not in reported]
        parts = []
        if fresh:
            seen = tool_outputs(conversation)
            parts.append("Done: " + "; ".join(describe_action(Action(c.name, c.arguments), seen) for c in fresh) + ".")
        elif calls:
            parts.append("The change" + ("s" if len(calls) > 1 else "") + " I confirmed above "
                         + ("are" if len(calls) > 1 else "is") + " made.")
        if refused:
            # what stood in the way, in the words said then (never the tool's name)
            why = "; ".join(dict.fromkeys(r.reason if r.policy else "without " + r.reason.removeprefix("I would need ")
                                          for r in refused))
            parts.append(f"As I said, I could not do that ({why}).")
        if outputs:
            parts.append("The answer you asked for: " + " / ".join(outputs) + ".")
        parts.append("Is there anything else I can help you with?")
        return _with_not_done(" ".join(parts), left)

    @staticmethod
    def _status_asked(conversation: Conversation) -> str:
        """"Order #W1039431: processed: Tablet, ... (tracking number 200236167378).": a record the person named by
        its id and asked how it stands ("where is my order #W1039431?"), from its read; "" when they asked no such
        thing, or named no record that was read."""
        texts = [m.content for m in conversation.said("user")]
        if not any(_STATUS.search(t) for t in texts):
            return ""
        domain = conversation.domain
        said = " ".join(normalize(t) for t in texts)
        for table in domain.tables:
            reader = _reader(domain, table.key)
            if reader is None:
                continue
            read = GatedAgent._records_read(conversation, reader.name, table.key)
            named = [rid for rid in read if normalize(rid) and f" {normalize(rid)} " in f" {said} "]
            if len(named) != 1:
                continue
            record = read[named[0]]
            about = records.summary(record)
            tracking = sorted({str(v) for leaf in leaves(record if isinstance(record, dict) else {})
                               if "tracking" in str(leaf.name) for v in [leaf.value] if v is not None})
            track = f" (tracking number {', '.join(tracking)})" if tracking else ""
            entity = words(table.key.removesuffix("_id")).capitalize()
            return f"{entity} {named[0]}: {about or 'found'}{track}."
        return ""

    @staticmethod
    def _reported(conversation: Conversation) -> set[str]:
        """The call ids of the writes it has already confirmed in words ("Done: ..." right after the call)."""
        out: set[str] = set()
        last_call: str | None = None
        for e in conversation.events:
            if e.kind == EventKind.TOOL_RESULT:
                last_call = e.as_(ToolResultData).call_id
            elif e.kind == EventKind.MESSAGE and e.role == Role.AGENT:
                if e.as_(MessageData).intent == "reported" and last_call is not None:
                    out.add(last_call)
                last_call = None
        return out

    @staticmethod
    def _refusals(conversation: Conversation) -> list[Refusal]:
        """Each write it refused (a policy rule) or had to leave (a value nobody could give), in order: each
        give-up moves the plan past one step (`read_progress`)."""
        gold = conversation.task.actions
        texts = [m.content for m in conversation.said("agent") if m.intent == "giveup"]
        if not texts:
            return []
        tools = conversation.domain.tool_map
        out = []
        for i, text in zip(sorted(read_progress(conversation).gave_up), texts, strict=False):
            spec = tools.get(gold[i].name) if i < len(gold) else None
            if spec is None or not spec.is_write:
                continue  # a look-up left is no step of the person's
            rule = re.search(r"^I'm sorry, I cannot do that: (.*policy rule [\w-]+\))\.$", text)
            need = re.search(r"without the (.+?) I cannot", text)
            day = re.search(r"I cannot make that change for (\S+)\.$", text)
            method = re.search(r"I cannot make that change \(.*?\) with the (.+)\.$", text)
            record = re.search(r"I cannot .+ (?:for|with) (.+) (\S+) here, so I will leave that request\.$", text)
            if record:
                out.append(Refusal(gold[i].name, f"I would need another {record.group(1)} than {record.group(2)}",
                                   False))
            elif method:
                out.append(Refusal(gold[i].name, f"I would need another payment method than the {method.group(1)}",
                                   False))
            elif day:
                out.append(Refusal(gold[i].name, f"I would need another day than {day.group(1)}", False))
            elif rule:
                out.append(Refusal(gold[i].name, rule.group(1), True))
            else:
                out.append(Refusal(gold[i].name, f"I would need the {need.group(1) if need else 'details'}", False))
        return out

    def _after_done(self, conversation: Conversation) -> AgentAction:
        """After its closing words, a reply to what the person says next that is neither a request it can act
        on nor a question it can answer: a step it refused is explained again (the answer does not change, and
        it says so), never a confirmation already given; otherwise it says everything asked for is done,
        without asking the same question twice in a row."""
        agent = conversation.said("agent")
        closed = max((i for i, m in enumerate(agent) if m.intent == "done"), default=0)
        since = sum(1 for m in agent[closed:] if m.intent == "held")
        last_words = "I have done all I can for you today. If there is nothing else, we can end the conversation here."
        if (bye := _goodbye(conversation)) is not None:
            return bye
        if (declined := _decline_other(conversation)) is not None:
            return declined
        refused = self._refusals(conversation)
        if refused:
            r = refused[-1]
            what = "do that"  # what was asked for, never the tool's name
            if r.policy:
                variants = [f"I understand, but I cannot {what}: {r.reason}. The rest of what you asked for is "
                            "done. Is there anything else I can help you with?",
                            f"I'm sorry, my answer stays the same: our policy does not allow me to {what}, and I "
                            "cannot make an exception. Is there anything else I can help you with?"]
            else:
                variants = [f"I understand, but I cannot {what} yet: {r.reason}. If you can find it, tell me and "
                            "I will do it. Is there anything else I can help you with?",
                            f"I'm sorry, I still cannot {what}: {r.reason}. Is there anything else I can help you "
                            "with?"]
            variants.append(last_words)
            return Say(variants[min(since, len(variants) - 1)], intent="held")
        last = agent[-1] if agent else None
        text = "Is there anything else I can help you with?"
        if last is not None and last.content == text:
            if left := _not_done(conversation):  # a request declined or left is no "everything is done"
                return Say(_with_not_done("That is all I could do.", left).replace(
                    " Is there anything else I can help you with?", "")
                    + " If there is something else, just tell me what it is.", intent="held")
            return Say("Everything you asked for is done. If there is something else, just tell me what it is.",
                       intent="held")
        if last is not None and last.intent == "held":
            return Say(last_words, intent="held")
        return Say(text, intent="more")


def _said_since(conversation: Conversation, leaf: Leaf) -> list[str]:
    """What the person said since the agent first asked them for this value for the step it is on (the answers to
    that question: a card named earlier for another change is not one)."""
    ask = person_choices.question_for(leaf) or ""
    out: list[str] = []
    asked = False
    for e in conversation.events:
        if e.kind != EventKind.MESSAGE:
            continue
        m = e.as_(MessageData)
        if e.role == Role.AGENT and m.intent in ("reported", "skip", "giveup"):
            out, asked = [], False  # a step done or left: its answers were for it
        elif e.role == Role.AGENT and ask and ask in m.content:
            asked = True
        elif e.role == Role.USER and asked:
            out.append(m.content)
    return out


def _another_id(conversation: Conversation, text: str, action: Action) -> str:
    """Another of the person's records of the kind this write is on (listed beside its own, as a profile's
    reservations are) that they name by its id ("" when none): in reply to a proposal on one, a no to it."""
    outputs = tool_outputs(conversation)
    tokens = {normalize(t): t for t in _TOKEN.findall(text) if _id_like(t)}
    for table in conversation.domain.tables:
        value = action.kwargs.get(table.key)
        if not isinstance(value, str):
            continue
        for candidate in records.listed_with(outputs, table.name, value):
            if candidate != value and normalize(candidate) in tokens:
                return candidate
    return ""


def _another_method(conversation: Conversation, text: str, action: Action) -> str:
    """Another of the person's payment methods on file than this write's, that these words single out ("the visa
    ending 8854"; "" when none)."""
    if not any(person_choices.is_payment(leaf) for leaf in leaves(action.kwargs)):
        return ""
    outputs = tool_outputs(conversation)
    carried = set(map(str, scalars(action.kwargs)))
    for method in person_choices.all_methods_on_file(outputs):
        if method not in carried and person_choices.picked(method, [text], outputs):
            return method
    return ""


def _another_option(text: str, action: Action, spec: ToolSpec | None) -> str:
    """An option of this write's own list ("basic economy" of the cabins) the person says that the write does not
    take ("" when none)."""
    said = f" {normalize(text)} "
    for leaf in leaves(action.kwargs):
        if person_choices.question_for(leaf) is not None:
            continue  # yes or no to insurance: a yes is no other option
        if other := _other_option_said(leaf, spec, said):
            return other
    return ""


def _other_option_said(leaf: Leaf, spec: ToolSpec | None, said: str) -> str:
    """An option of this value's own list other than its own that these words (normalized, padded) say."""
    for option in param_schema(spec, leaf.path).get("enum") or []:
        if option != leaf.value and len(str(option)) > 2 and f" {normalize(words(str(option)))} " in said:
            return str(option)
    return ""


def _option_not_said(conversation: Conversation, action: Action, spec: ToolSpec) -> str:
    """"ticket type child": an option of this write's own list the person said for a value of theirs that the write
    holds another option for, which they never said ("" when none). Options a person is asked about anyway (yes or
    no to insurance) are not looked at."""
    said = " " + " ".join(normalize(m.content) for m in conversation.said("user")) + " "
    for leaf in leaves(action.kwargs):
        options = [str(o) for o in param_schema(spec, leaf.path).get("enum") or []]
        if str(leaf.value) not in options or person_choices.question_for(leaf) is not None:
            continue
        if f" {normalize(words(str(leaf.value)))} " in said:
            continue
        if other := _other_option_said(leaf, spec, said):
            return f"{words(str(leaf.name))} {words(other)}"
    return ""


def _said_since_proposal(conversation: Conversation) -> list[str]:
    """The person's words since the agent last put a write to them."""
    out: list[str] = []
    for e in conversation.events:
        if e.kind != EventKind.MESSAGE:
            continue
        m = e.as_(MessageData)
        if e.role == Role.AGENT and m.intent == "confirm":
            out = []
        elif e.role == Role.USER:
            out.append(m.content)
    return out


_NOT = re.compile(r"\b(?:not|no|never|don'?t|doesn'?t|won'?t|without|nothing)\b", re.IGNORECASE)


def _other_write(conversation: Conversation) -> str:
    """"change the checked bags of a reservation": a change the person's last words ask for (the domain's words for a write,
    `GatedAgent._requested`'s way of hearing it) that no gold action makes; "" when they ask for none, or only in
    words that say what they do not want ("change nothing", "don't cancel it")."""
    last = conversation.events[-1] if conversation.events else None
    texts = [m.content for m in conversation.said("user")]
    if not texts or (last is not None and last.kind == EventKind.MESSAGE and last.role == Role.AGENT):
        return ""
    domain = conversation.domain
    planned = {a.name for a in conversation.task.actions}
    sentences = [s for s in re.split(r"(?<=[.!?;])\s+", texts[-1]) if s and not _NOT.search(s)]
    plain = [" ".join(w for w in normalize(s).split() if w not in _PLAIN) for s in sentences]
    names = [t.name for t in domain.tools]
    for spec in domain.tools:
        if not spec.is_write or spec.name in planned or spec.terminal:
            continue
        if names_write(plain, spec.name, names, loose=True, everyday=domain.request_words.get(spec.name, ())):
            return write_words.everyday(spec)
    return ""


_CANNOT = re.compile(r"^(?:All right, I will not make that change\. )?I'm sorry, I cannot (.+?) (?:for you )?here\b")


def _not_done(conversation: Conversation) -> list[str]:
    """What the person asked for that was not done, in everyday words, oldest first: each planned write they said
    no to and never came back to, each change declined as not one the agent can do here."""
    gold = conversation.task.actions
    tools = conversation.domain.tool_map
    proposed = [m.content for m in conversation.said("agent") if m.intent == "confirm"]
    out = [f"{write_words.everyday(spec)} (you said no)" for j in sorted(read_progress(conversation).skipped)
           if j < len(gold) and (spec := tools.get(gold[j].name)) is not None and spec.is_write
           and any(f"{_ABOUT_TO}{words(gold[j].name)} (" in text for text in proposed)]
    for m in conversation.said("agent"):
        if m.intent in ("skip", "more", "giveup") and (found := _CANNOT.match(m.content)):
            out.append(found.group(1))
    return list(dict.fromkeys(out))


def _with_not_done(said: str, left: list[str]) -> str:
    """The closing words with what was not done said before the offer of more (briefly, once)."""
    if not left:
        return said
    note = "Not done: " + "; ".join(left) + "."
    offer = "Is there anything else I can help you with?"
    if said.endswith(offer):
        return f"{said[:-len(offer)]}{note} {offer}"
    return f"{said} {note}"


def _decline_other(conversation: Conversation) -> Say | None:
    """A change the person asked for that this conversation does not plan: said plainly, by what they asked
    (`_other_write`), never a bare "What can I do for you?" as if they had said nothing; None when they asked for
    none, or it was just said."""
    other = _other_write(conversation)
    last = conversation.last_said("agent")
    if not other or (last is not None and other in last.content):
        return None
    return Say(f"I'm sorry, I cannot {other} for you here. Is there something else I can help you with?",
               intent="more")


def _answered_calls(conversation: Conversation) -> list[tuple[ToolCallData, str]]:
    """Each call that went through, with its output, in order."""
    calls = {e.as_(ToolCallData).call_id: e.as_(ToolCallData) for e in conversation.events
             if e.kind == EventKind.TOOL_CALL}
    return [(calls[r.call_id], r.output) for e in conversation.events if e.kind == EventKind.TOOL_RESULT
            for r in [e.as_(ToolResultData)] if not r.error and r.call_id in calls]


def _reader(domain: Domain, key: str) -> ToolSpec | None:
    """The read that takes one record's key alone (get_order_details for `order_id`), if the domain has one."""
    return next((t for t in domain.read_tools if t.required == [key] and not t.utility), None)


def _days_said(conversation: Conversation, users: list[str], outputs: list[str]) -> list[str]:
    """The days the person said, a day without its year taking the years of the dates in view (tools, policy)."""
    years = [int(y) for o in [*outputs, _policy(conversation)] for y in re.findall(r"\b(20\d\d)-\d\d-\d\d\b", o)]
    return dates_said(users, years)


def _which_reads(conversation: Conversation) -> set[tuple[str, str]]:
    """The reads made to tell which record the person means (`GatedAgent._which_record`) that went through."""
    ok = {r.call_id for e in conversation.events if e.kind == EventKind.TOOL_RESULT
          for r in [e.as_(ToolResultData)] if not r.error}
    return {_key(c.name, c.arguments) for e in conversation.events if e.kind == EventKind.TOOL_CALL
            for c in [e.as_(ToolCallData)] if c.call_id.startswith(_WHICH) and c.call_id in ok}


def _items_asked(conversation: Conversation, text: str) -> str | None:
    """"Which camera exactly is in my order?": the items of the person's records the tools showed whose name has a
    word of the question ("In order #W1046567: Digital Camera (resolution 24MP, zoom 10x, storage CF card)."), or
    None when no item read has such a name."""
    asked = {w.rstrip("s") for w in normalize(" ".join(s for s in re.split(r"(?<=[.!?])\s+", text) if "?" in s)
                                              or text).split() if len(w) >= 4 and w.isalpha() and w not in _PLAIN}
    if not asked:
        return None
    found: dict[str, list[str]] = {}
    for e in conversation.events:
        if e.kind != EventKind.TOOL_RESULT or (r := e.as_(ToolResultData)).error:
            continue
        data = _json(r.output)
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            continue
        record = next((f"{words(k.removesuffix('_id'))} {v}" for k, v in data.items()
                       if k.endswith("_id") and k != "user_id" and isinstance(v, str)), "what I looked up")
        for item in data["items"]:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            if not asked & {w.rstrip("s") for w in normalize(item["name"]).split()}:
                continue
            options = item.get("options")
            shown = ", ".join(f"{words(k)} {v}" for k, v in options.items() if isinstance(v, str | int | float)) \
                if isinstance(options, dict) else ""
            said = f"{item['name']} ({shown})" if shown else item["name"]
            if said not in found.setdefault(record, []):
                found[record].append(said)
    if not found:
        return None
    return " ".join(f"In {record}: {', '.join(names)}." for record, names in found.items())


def _goodbye(conversation: Conversation) -> Say | None:
    """The person's last words close the conversation ("bye", "that's all, thanks"): a goodbye, not a question."""
    last = conversation.events[-1] if conversation.events else None
    if last is None or last.kind != EventKind.MESSAGE or last.role != Role.USER:
        return None
    if not _BYE.match(last.as_(MessageData).content):
        return None
    return Say("You're welcome. Thank you for contacting us, goodbye!", intent="bye")


def _said_name(said: Evidence, name: str) -> bool:
    """The user said this name, or its plural ("Action Cameras" for the listing's "Action Camera")."""
    return any(said.said_by_user(form) for form in (name, name + "s", name + "es"))


def _named_in(listing: Any, value: str, said: Evidence) -> bool:
    """A listing's entry for `value` is one the user named in their words ("Denver" for DEN in
    {"DEN": "Denver", ...}): the listing turns what the user said into the value."""
    if isinstance(listing, dict):
        entry = listing.get(value)
        if entry is not None and isinstance(entry, str | int | float) and _said_name(said, str(entry)):
            return True
        if any(str(v) == value and _said_name(said, str(k)) for k, v in listing.items()):
            return True  # {"T-Shirt": "9523456873"}: the user named the kind
        return any(_named_in(v, value, said) for v in listing.values() if isinstance(v, dict | list))
    if isinstance(listing, list):
        for item in listing:
            if isinstance(item, dict) and value in (str(v) for v in item.values()):
                if any(isinstance(v, str) and v != value and said.said_by_user(v) for v in item.values()):
                    return True
            elif isinstance(item, dict | list) and _named_in(item, value, said):
                return True
    return False


def _number(text: str) -> Any:
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return text
