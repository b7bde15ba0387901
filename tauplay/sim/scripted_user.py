"""The offline scripted user: deterministic, no model.

It opens with its request and tells the rest of its task a sentence at a time (turned into the first person),
without the ids and codes its instruction holds (`tauplay.sim.withheld`: it gives them when asked), then,
asked for anything else, each change its goal still holds in its tool's words ("I would also like you to send
certificate", `unnamed_write`); all in the tone of its emotion condition; holds back its credential ("Use X
for authentication") until asked; answers the agent's questions from what its instruction states (`answer_question`: ids, names, dates, an
e-mail, one of the choices the question offers) and says it does not know otherwise; says yes only to a
proposed write its goal holds and corrects one it does not (`judge_proposal`; a change named in everyday words,
"I can cancel your plan", by `tauplay.sim.change_words`); asks for a human when the agent refuses and the task
says to, and otherwise asks why once ("Why not? I want to pay my bill.", `refusal_reply`); in a dual-control domain, does on its own device what the agent asks for in a
tool's name (`toggle_roaming()`, `grant_app_permission(app_name="messaging", permission="sms")`) and then says
what it showed; ends with ###STOP### as soon as its goal is reached (`goal_reached`: the database is as the
gold actions leave it and every required answer was given); and gives up with ###UNSATISFIED### after as many
fruitless replies as its patience allows. Each decision is a plain function of the conversation, so a layer of
behaviours can wrap one: a RUSE-style behaviour (`ScriptedUser(behavior)`, tauplay.core.behavior) is asked at
the opening, before the usual reply, on a proposal, on a refusal and for the next fact (tauplay.sim.behavior);
without one every hook leaves the user as described here. Its progress is read from the event stream (the intent saved with each of its
messages), so a resumed session continues the same way.
A domain may bring its own offline user instead (`Domain.scripted_user`: the escape domain's narrator);
the kind stays `scripted`, so saved sessions and `--user scripted` mean the same everywhere.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.behavior import Behavior, with_behavior
from tauplay.core.callsyntax import CallSyntaxError, parse_call
from tauplay.core.db import canonical
from tauplay.core.emotions import EmotionCondition, patience
from tauplay.core.events import MessageData, ToolResultData
from tauplay.core.grounding import (
    Evidence,
    contains,
    leaves,
    loosely_stated,
    names_write,
    needs_grounding,
    normalize,
    words,
)
from tauplay.core.tasks import Action, Task
from tauplay.core.tools import ToolSpec
from tauplay.core.transcript import tool_calls
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN, EventKind, Role
from tauplay.sim import change_words, choices, preference_answers, proposal_values
from tauplay.sim.action_words import described_id
from tauplay.sim.behavior import BehaviorLayer
from tauplay.sim.device_steps import step_asked
from tauplay.sim.oracle import tool_outputs
from tauplay.sim.participants import Conversation, PlannedCall, UserReply
from tauplay.sim.withheld import without_ids

# -- turning the task's second-person instruction into what the customer says ---------------------------

_SWAPS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bUse (\S+) for authentication\.?", re.IGNORECASE), r"My user id is \1."),
    # "You mobile data is not working" (a published instruction's typo for "Your"): a noun after it is owned.
    (re.compile(r"\byou (?=(?:mobile|cell|phone|internet|data|account|sim|device|"
                r"reservation|reservations|flight|flights|booking|card|subscription)\b)", re.IGNORECASE),
     "your "),
    (re.compile(r"\byou are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou're\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou've\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byou'd\b", re.IGNORECASE), "I'd"),
    (re.compile(r"\byou'll\b", re.IGNORECASE), "I'll"),
    (re.compile(r"\byou were\b", re.IGNORECASE), "I was"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\b(both|all|each|either|neither|none|some|any|most|two|three|four) of you\b", re.IGNORECASE), r"\1 of us"),
    (re.compile(r"\b(to|for|with|at|from|about|of|give|tell|help|let|send|call|email|show|ask|asks|contact|charge|"
                r"refund|book|remind)\s+you\b", re.IGNORECASE), r"\1 me"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
    (re.compile(r"\bthe agent's\b", re.IGNORECASE), "your"),
    (re.compile(r"\bthe agent\b", re.IGNORECASE), "you"),
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
# A dot after these does not end a sentence ("Dr. Smith", "e.g. a window seat", "No. 5").
_ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "mt", "ft", "no", "nos", "vs", "etc",
                            "e.g", "i.e", "a.m", "p.m", "inc", "ltd", "co", "corp", "dept", "apt", "ave", "blvd",
                            "rd", "approx", "est", "min", "max", "fig", "u.s", "u.k", "jan", "feb", "mar", "apr",
                            "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"})
_AUTH = re.compile(r"^(?:use (\S+?)\.? for authentication|identify yourself with (?:your )?"
                   r"(?:e-?mail(?: address)?|user id|phone(?: number)?|account(?: number)?)?\s*(\S+?))\.?$",
                   re.IGNORECASE)
# An instruction's imperative to the user is said as the user would say it to the agent: "Ask for the card to be
# locked" -> "I'd like the card to be locked", "Ask what the balance is" -> "I'd like to know what the balance
# is", "Ask the agent to remove ..." -> "Please remove ...", "Tell the agent that ..." -> "...".
_IMPERATIVES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^ask (?:the agent |them )?for\s+", re.IGNORECASE), "I'd like "),
    (re.compile(r"^ask (?:the agent|them) to\s+", re.IGNORECASE), "Please "),
    (re.compile(r"^ask to\s+", re.IGNORECASE), "I'd like to "),
    (re.compile(r"^ask (?:the agent |them )?(?=(?:what|which|how|whether|who|when|where|if|why)\b)", re.IGNORECASE),
     "I'd like to know "),
    (re.compile(r"^ask (?:the agent |them )?about\s+", re.IGNORECASE), "I'd like to ask about "),
    (re.compile(r"^tell (?:the agent|them)(?: that)?\s+", re.IGNORECASE), ""),
    (re.compile(r"^ask (?:the agent |them )?", re.IGNORECASE), "I'd like to ask "),
]
# Rules for how the user plays, not things to say ("Ask clarifying questions if unsure about their answers.").
_PLAY_RULE = re.compile(r"^ask (?:clarifying |follow-up )?questions\b", re.IGNORECASE)


_CLAUSE = re.compile(r"([;:]\s+|,\s+(?:and\s+|then\s+)?|\s+then\s+|\s+and\s+)")


def spoken(sentence: str) -> str:
    """An instruction's imperative sentence as the user's own request (`_IMPERATIVES`), at its start or a
    clause's ("...; ask what it costs first"); others unchanged."""
    pieces = _CLAUSE.split(sentence)  # clause, separator, clause, ...
    for i in range(0, len(pieces), 2):
        for pattern, repl in _IMPERATIVES:
            if pattern.match(pieces[i]):
                said = pattern.sub(repl, pieces[i], count=1)
                pieces[i] = said if i == 0 or said.startswith("I'") else said[0].lower() + said[1:]
                break
    return "".join(pieces)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`: a break after . ! or ? followed by a capital, except after a title or an
    abbreviation (Dr., e.g., a.m.) or a single initial; decimals and ids hold no break (no space follows)."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE.finditer(text):
        before = text[start:m.start()]
        word = before.rsplit(None, 1)[-1] if before.split() else ""
        bare = word.rstrip(".").lstrip("(\"'").lower()
        if word.endswith(".") and (bare in _ABBREVIATIONS or (len(bare) == 1 and bare.isalpha())):
            continue
        out.append(text[start:m.start()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


def first_person(text: str) -> str:
    for pattern, repl in _SWAPS:
        text = pattern.sub(repl, text)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def disclosure_parts(task: Task) -> list[str]:
    """The goal as the messages that reveal it, in order. Conditional sentences ("If the agent ...") are
    rules for the user, not things to say; an opening "You are <name>" sentence goes with the request."""
    sentences = split_sentences(" ".join(task.goal.split()))
    # Rules for the user, and the credential it gives only when asked for it.
    sentences = [spoken(s) for s in sentences if not s.lower().startswith("if ") and not _AUTH.match(s)
                 and not _PLAY_RULE.match(s)]
    if not sentences:
        return ["I need some help."]
    if len(sentences) > 1 and re.match(r"you are [A-Z]", sentences[0], re.IGNORECASE):
        sentences = [sentences[0] + " " + sentences[1], *sentences[2:]]
    return [first_person(s) for s in sentences]


# -- tone -------------------------------------------------------------------------------------------------

_FEELING = {  # family -> (mild, moderate, intense) remark
    "anger": ("This is a bit annoying.", "Honestly, this is frustrating.", "I am really fed up with all this."),
    "fear": ("I'm a little nervous about this.", "I'm quite worried about this.",
             "I'm really scared this will go wrong."),
    "disgust": ("Not a fan of how this works.", "Frankly, the way this is handled is off-putting.",
                "The way this is run is appalling."),
    "sadness": ("It's a bit of a letdown.", "This has been really disappointing.",
                "I don't even expect this to work anymore."),
    "enjoyment": ("Good day so far.", "I'm in a great mood today!", "I'm so excited, this is wonderful!"),
}
_OPEN = {"warm": "Hi there!", "neutral": "Hello.", "cold": ""}
_YES = {"warm": ("Yes, please go ahead. Thank you!", "Yes please, that's right. Thanks!"),
        "neutral": ("Yes, go ahead.", "Yes, that's right."),
        "cold": ("Yes. Do it.", "Yes.")}
_URGE = {"low": "", "moderate": "", "high": "Please be quick."}
_DOUBT = {"skeptical": "And please double-check it.", "cautious": "", "trusting": ""}
_CLOSE = {
    "anger": {"warm": "Okay, finally. Thank you.", "neutral": "Fine, that's sorted then.", "cold": "Fine. That's all."},
    "fear": {"warm": "Oh, what a relief. Thank you so much!", "neutral": "Okay, that's a relief. Thanks.",
             "cold": "Okay. That's all."},
    "disgust": {"warm": "Alright, that will do. Thanks.", "neutral": "That will do.", "cold": "Fine. Done."},
    "sadness": {"warm": "Okay. Thank you for your help.", "neutral": "Alright. Thanks, I suppose.",
                "cold": "Alright. That's it."},
    "enjoyment": {"warm": "Wonderful, thank you so much!", "neutral": "Great, thanks!", "cold": "Great. That's all."},
}
_NUDGE = {"low": ("That's all I know. Could you help me with it?", "Is there a way you can sort this out?"),
          "moderate": ("That's everything I have. Can you take care of it?", "So, can you do it or not?"),
          "high": ("I've told you everything. Please just do it now.", "I don't have time for this. Do it now.")}
_GIVE_UP = {"anger": "Forget it. This is useless.", "fear": "I can't deal with this. Never mind.",
            "disgust": "Unbelievable. I'm done here.", "sadness": "Never mind. I'll sort it out some other way.",
            "enjoyment": "Oh well, never mind then."}
_ESCALATE = {"warm": "In that case, could I please speak to a human agent?",
             "neutral": "Then I'd like to speak to a human agent.", "cold": "Then get me a human agent."}

_CONFIRM_ASK = re.compile(r"\b(confirm|go ahead|proceed|shall i|should i|do you want me to|would you like me to|"
                          r"yes or no|is that correct|is that right|sound good|sounds good)\b|"
                          r"\b(ok|okay|alright|all right)\s*\?", re.IGNORECASE)
_REFUSAL = re.compile(r"\b(cannot|can't|can not|unable|not able|not allowed|not eligible|not permitted|"
                      r"against (?:our|the) policy)\b", re.IGNORECASE)
_INTENSITY_INDEX = {"mild": 0, "moderate": 1, "intense": 2}


class Tone:
    """The phrases of one emotion condition (a neutral, mildly calm customer without one)."""

    def __init__(self, condition: EmotionCondition | None) -> None:
        self.c = condition or EmotionCondition("enjoyment", "peace", "mild", "neutral", "moderate", "cautious")

    def _join(self, *parts: str) -> str:
        return " ".join(p for p in parts if p)

    def feeling(self) -> str:
        return _FEELING[self.c.family][_INTENSITY_INDEX[self.c.intensity]]

    def opening(self, request: str) -> str:
        return self._join(_OPEN[self.c.politeness], self.feeling(), request, _URGE[self.c.urgency])

    def disclose(self, part: str, n: int) -> str:
        # A strong feeling shows every other message, a moderate one every third, a mild one never again.
        every = {"intense": 2, "moderate": 3, "mild": 0}[self.c.intensity]
        remark = self.feeling() if every and n % every == 0 else ""
        return self._join(remark, part, _URGE[self.c.urgency] if n % 2 == 0 else "")

    def yes(self, n: int) -> str:
        options = _YES[self.c.politeness]
        return self._join(options[n % len(options)], _DOUBT[self.c.trust] if n % 2 else "")

    def close(self) -> str:
        return _CLOSE[self.c.family][self.c.politeness]

    def nudge(self, n: int) -> str:
        options = _NUDGE[self.c.urgency]
        return options[n % len(options)]

    def give_up(self) -> str:
        return _GIVE_UP[self.c.family]

    def escalate(self) -> str:
        return _ESCALATE[self.c.politeness]


def requested_user_call(text: str, tools: dict[str, ToolSpec]) -> PlannedCall | None:
    """The first of the user's tools the agent's message asks for: `name(arg=...)` read as a call (data, never
    evaluated), or the bare name of a tool that needs no arguments."""
    for name in sorted(tools, key=len, reverse=True):
        spec = tools[name]
        for m in re.finditer(rf"\b{re.escape(name)}\b", text):
            rest = text[m.end():]
            if rest.lstrip().startswith("("):
                depth, end = 0, None
                for i, ch in enumerate(rest):
                    depth += ch == "("
                    depth -= ch == ")"
                    if depth == 0 and ch == ")":
                        end = i
                        break
                if end is None:
                    continue
                try:
                    call = parse_call(name + rest[:end + 1], list(spec.parameters.get("properties", {})))
                except CallSyntaxError:
                    continue
                return PlannedCall(call.name, call.arguments)
            if not spec.required:
                return PlannedCall(name, {})
    return None


def device_reply(conversation: Conversation) -> UserReply | None:
    """Dual control: act on the device when the agent's last message asks for one of the user's tools, and once
    the call is made, say what it showed. None when the agent asked for nothing on the device."""
    events = conversation.events
    last = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind == EventKind.MESSAGE
                 and events[i].role == Role.AGENT), None)
    if last is None:
        return None
    mine = [r for e in events[last + 1:] if e.kind == EventKind.TOOL_RESULT
            for r in [e.as_(ToolResultData)] if r.by_user]
    if mine:
        return UserReply("Done. " + "; ".join(f"{r.name} shows: {r.output}" for r in mine), "report")
    text = events[last].as_(MessageData).content
    tools = conversation.domain.user_tool_map
    call = requested_user_call(text, tools)
    if call is None and (step := step_asked(text, tools)) is not None:  # a step asked for in plain words
        call = PlannedCall(step[0], step[1])
    return UserReply("", "act", calls=(call,)) if call is not None else None


def asks_to_confirm(message: MessageData | None) -> bool:
    if message is None:
        return False
    if message.intent == "confirm":
        return True
    if message.intent == "ask":
        return False
    # "How many bags do you want in total, and which payment method should I use?" asks for values: no yes/no
    asks = [q for q in split_sentences(message.content) if "?" in q]
    if asks and all(_VALUE_ASK.search(q) and not re.search(r"\byes or no\b", q, re.IGNORECASE) for q in asks):
        return False
    return "?" in message.content and bool(_CONFIRM_ASK.search(message.content))


_VALUE_ASK = re.compile(r"^\W*(?:and\s+)?(?:which|what|how many|how much|how would|how do|when|where)\b|"
                        r"\b(?:and|,)\s+(?:which|what|how many)\b", re.IGNORECASE)


# -- the decisions (each a plain function of the conversation, so a behaviour layer can wrap one) ----------

def pending_actions(conversation: Conversation) -> list[Action]:
    """The gold actions the agent has not yet made (a successful call with the same arguments), in order."""
    done = [(c.name, canonical(c.arguments)) for c, ok in conversation.tool_calls() if ok]
    out = []
    for action in conversation.task.actions:
        key = (action.name, canonical(action.kwargs))
        if key in done:
            done.remove(key)
        else:
            out.append(action)
    return out


def _instruction_view(task: Task) -> Evidence:
    return Evidence(user=[task.goal])


def knows(task: Task, value: Any) -> bool:
    """The user can say `value`: its instruction states it (matched as a person reads, see core.grounding)."""
    if _instruction_view(task).said_by_user(value):
        return True
    return isinstance(value, str) and loosely_stated(task.goal, value)


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+\w")


def _say_value(value: Any) -> str:
    if isinstance(value, str):
        return value.replace("_", " ") if re.fullmatch(r"[a-z]+(_[a-z]+)+", value) else value
    return str(value)


# Words that make a question about an entity a question about its id ("which reservation", "the order number").
_ID_WORDS = ("id", "ids", "number", "numbers", "code", "reference", "confirmation", "no")
# "Which reservation had the cancelled flight?", "Which order do you mean: ...?": a question about a record the
# user has (not "which flight do you want", a choice still to make).
_ID_ASKS = re.compile(r"\b(which|whose)\s+(?:one\s+of\s+(?:your|the)\s+)?([a-z]+)\s+"
                      r"(?:had|has|is|was|were|are|did|does|contains|holds|got|do you mean)\b", re.IGNORECASE)


def _asks_for(leaf_name: str, said: str) -> bool:
    """The question (normalized, padded) is about this parameter: its name in words ("reservation id"), or for
    an id its entity with a word for an id or a "which" before it ("reservation number", "which reservation")."""
    name = normalize(words(leaf_name))
    if f" {name} " in said:
        return True
    parts = name.split()
    if len(parts) < 2 or parts[-1] not in ("id", "ids", "number", "code"):
        return False
    entity = " ".join(parts[:-1])
    ids = "|".join(_ID_WORDS)
    for name in (entity, *_ALIASES.get(entity, ())):
        if re.search(rf" {re.escape(name)}s? ({ids}) ", said) or \
                re.search(rf" ({ids}) (?:of|for) (?:the |that |this |your |my )?{re.escape(name)}s? ", said):
            return True
    return any(m.group(2).rstrip("s") == entity.split()[-1] for m in _ID_ASKS.finditer(said))


# Other words a person uses for the same record ("the booking code" is the reservation's id).
_ALIASES = {"reservation": ("booking",), "order": ("purchase",)}


def answer_question(conversation: Conversation, text: str) -> UserReply | None:
    """`_answer_one`, and when the question also asks for the user's own id or e-mail ("What is your user id and
    the reservation number?"), that too: a person answers both parts of a question, not the first alone."""
    reply = _answer_one(conversation, text)
    paid = _payment_asked(conversation, " ".join(q for q in split_sentences(text) if "?" in q) or text,
                          pending_actions(conversation))
    if paid is not None and (reply is None or (reply.intent == "answer" and paid.text not in reply.text)):
        # "How many bags ..., and which payment method should I use?": both parts answered
        if reply is None and (rest := re.split(r",?\s+and\s+(?=which|what|how)", text, maxsplit=1)[0]) != text:
            # the other part of the question ("How many bags do you want in total"), from the instruction
            other = _answer_or_say_unknown(conversation, disclosure_parts(conversation.task), rest.rstrip("?") + "?")
            reply = other if other is not None and other.intent == "answer" else None
        # the sentence naming the payment may be the other part's answer too (said once, with its id)
        reply = paid if reply is None or without_ids(paid.text) in reply.text \
            else UserReply(f"{reply.text} {paid.text}", "answer")
    if reply is None or reply.intent != "answer":
        return reply
    extra = []
    for pattern, ask in ((r"\buser[ _]?id\b", "What is your user id?"), (r"\be-?mail\b", "What is your email?")):
        if re.search(pattern, text, re.IGNORECASE) and not re.search(pattern, reply.text, re.IGNORECASE):
            more = _answer_one(conversation, ask)
            if more is not None and more.intent == "answer" and more.text not in reply.text:
                extra.append(more.text)
    return UserReply(" ".join([reply.text, *extra]), "answer") if extra else reply


def choice_answer(conversation: Conversation, text: str) -> UserReply | None:
    """"Which one would you like instead of yours (...): 1615379700 (size 10, synthetic), ... ?": the one its
    instruction describes among those on offer (listed, or available), in the instruction's own words ("The one with size 10, synthetic,
    waterproof."), never picked by the task's id; "I'm not sure" when its instruction singles none out. None when
    the agent asked no such question."""
    if choices.QUESTION not in text:
        return None
    outputs = tool_outputs(conversation)
    table = next((t for token in re.findall(r"\b\w{4,}\b", text) if (t := choices.variants(outputs, token))), {})
    listed = choices.asked(text, table)
    if not listed:
        return None
    have = choices.replaced(text, table)
    # what it wants, among every one on offer (a long list shows only some): never the one it has
    pool = {k: v for k, v in table.items() if (k in listed or (isinstance(v, dict) and v.get("available") is True))
            and (not have or v.get("options") != have)}
    goal = conversation.task.goal
    ranked = choices.best(pool, [goal], have)
    said = choices.described(pool, ranked[0], goal, have) if len(ranked) == 1 else ""
    if said:
        return UserReply(f"The one with {said}.", "answer")
    return UserReply("I'm not sure which one; I don't know more than I told you.", "unknown")


def _answer_one(conversation: Conversation, text: str) -> UserReply | None:
    """Answer what the agent asks from the instruction: the gold values of the asked-for parameter that the
    instruction states (the action the question names first; an id already given is given again, once asked is
    enough); "I don't know" for one it does not state. None when the message asks for no parameter this user
    has a goal for."""
    task = conversation.task
    text = " ".join(s for s in split_sentences(text) if "?" in s) or text  # what is asked, not the preamble
    said = f" {normalize(text)} "
    tools = conversation.domain.tool_map
    pending = pending_actions(conversation)
    named = [a for a in pending if f" {normalize(words(a.name))} " in said]
    done = [a for a in task.actions if a not in pending]
    # Among the rest, first the one its last words were about ("for a pending order, change the shipping address to
    # 6495 Jefferson Avenue ...": asked "Which order do you mean?", it names that change's order)
    last = conversation.said("user")
    told = normalize(last[-1].content) if last else ""
    # (a change its last words ask for by name first: "I want to cancel my reservation ..." is about the
    # cancellation, whatever other change shares a word of it, such as its cabin; of several it asked for at once,
    # the first it wants done, as a person answers for the first change of their list, not the most detailed)
    asked = [a for a in pending if last and tools.get(a.name) is not None and tools[a.name].is_write
             and names_write([last[-1].content], a.name, tools)]
    rest = sorted((a for a in pending if a not in named), key=lambda a: (
        asked.index(a) if a in asked else len(asked),
        -sum(1 for leaf in leaves(a.kwargs) if isinstance(leaf.value, str) and len(normalize(leaf.value)) >= 3
             and contains(told, leaf.value))))
    order = named + rest + done
    for action in order:
        found: list[Any] = []
        label = ""
        for leaf in leaves(action.kwargs):
            name = normalize(words(leaf.name))
            if not needs_grounding(leaf) or not _asks_for(leaf.name, said):
                continue
            if label and name != label:
                continue
            label = name
            if leaf.value not in found:
                found.append(leaf.value)
        if label:
            # A value the instruction states, or one of the choices the question offers (its goal picks it).
            known = [v for v in found if knows(task, v) or (isinstance(v, str) and len(v) > 2
                                                             and f" {normalize(v)} " in said
                                                             and (" one of " in said or " or " in said))]
            if known:
                shown = " and ".join(_say_value(v) for v in known)
                return UserReply(f"The {label} is {shown}." if len(known) == 1 else f"The {label}s are {shown}.",
                                 "answer")
            spec = tools.get(action.name)
            if spec is not None and not spec.is_write and action is not order[0]:
                continue
            if action in done:
                continue
            return UserReply(f"I'm sorry, I don't know the {label}.", "unknown")
    user_id = task.known_info.get("user_id") or task.user_id
    if (by_name := _name_asked(task, text)) is not None:
        return by_name
    if re.search(r"\be-?mail\b", text, re.IGNORECASE):
        m = _EMAIL.search(task.goal)
        return UserReply(f"My email is {m.group()}." if m else "I'm sorry, I don't know my email address.",
                         "answer" if m else "unknown")
    if re.search(r"\buser[ _]?id\b", text, re.IGNORECASE):
        if user_id and "@" not in user_id and knows(task, user_id):
            return UserReply(f"My user id is {user_id}.", "answer")
        return UserReply("I'm sorry, I don't know my user id.", "unknown")
    if m := _ASKS_FOR.search(text):
        return UserReply(f"I'm sorry, I don't know the {m.group(1).strip()}.", "unknown")
    return None


_PAY_ASK = re.compile(r"\b(?:pay|paying|payment|card|charge)\b", re.IGNORECASE)


def _payment_asked(conversation: Conversation, text: str, pending: list[Action]) -> UserReply | None:
    """"How would you like to pay?": the payment method of the next write, in the words the tools showed it
    ("visa credit card ending 1530"), when the instruction names it (its last digits or its kind); "I don't know"
    when the instruction does not say; None when not asked about a payment (or the write splits one)."""
    if not _PAY_ASK.search(text):
        return None
    task = conversation.task
    tools = conversation.domain.tool_map
    for action in pending:
        spec = tools.get(action.name)
        if spec is None or not spec.is_write:
            continue
        ids = [leaf.value for leaf in leaves(action.kwargs) if isinstance(leaf.value, str)
               and "payment" in " ".join(str(p) for p in leaf.path if isinstance(p, str))]
        if len(ids) != 1:
            return None
        shown = described_id(ids[0], tool_outputs(conversation))
        if shown is None:  # no tool has shown it yet: the instruction's own words about paying
            told = next((t for t in split_sentences(task.goal) if _PAY_ASK.search(t)), None)
            return UserReply(first_person(told), "answer") if told else \
                UserReply("I'm sorry, I don't know which payment method to use.", "unknown")
        goal = normalize(task.goal)
        digits = re.findall(r"\d{4}", shown)
        kind = next((k for k in ("gift card", "certificate", "paypal", "credit card") if k in shown.lower()), "")
        if (digits and all(d in goal.split() for d in digits)) or (not digits and kind and kind in goal):
            return UserReply(f"Please use my {shown}.", "answer")
        return UserReply("I'm sorry, I don't know which payment method to use.", "unknown")
    return None


# The person the instruction is about: "You are Emma Martin", "assisting Yusuf Gonzalez", "My name is ...".
_NAMED = re.compile(r"\b(?:you are|i am|assisting|helping|my name is|your name is|name is)\s+"
                    r"((?-i:[A-Z][a-z'-]+))\s+((?-i:[A-Z][a-z'-]+))", re.IGNORECASE)
_NAME_ASK = re.compile(r"\b(first|last|full|sur|given|family)?\s*name\b", re.IGNORECASE)


def _name_asked(task: Task, text: str) -> UserReply | None:
    """A question for the user's first, last or full name: from the instruction when it names the person."""
    m = _NAME_ASK.search(text)
    if m is None or re.search(r"\b(product|item|app|file|user\s*name|username)\s+name\b", text, re.IGNORECASE):
        return None
    who = _NAMED.search(task.goal) or _NAMED.search(str(task.known_info.get("name") or ""))
    kind = (m.group(1) or "full").lower()
    label = {"first": "first name", "given": "first name", "last": "last name", "sur": "last name",
             "family": "last name"}.get(kind, "name")
    if who is None:
        return UserReply(f"I'm sorry, I don't know the {label}.", "unknown")
    first, last = who.group(1), who.group(2)
    if re.search(r"\bfirst\b", text, re.IGNORECASE) and re.search(r"\blast\b", text, re.IGNORECASE):
        return UserReply(f"My first name is {first} and my last name is {last}.", "answer")
    value = {"first name": first, "last name": last}.get(label, f"{first} {last}")
    return UserReply(f"My {label} is {value}.", "answer")


# Questions that ask what the user wants at all (the user tells its story), not for one thing.
_OPEN_QUESTION = re.compile(r"\b(anything else|something else|what else|how (?:can|may|could) i (?:help|assist)|"
                            r"what can i (?:do|help)|what (?:do|would) you (?:need|like)|what brings you|"
                            r"how can i be of|what is (?:the|your) (?:issue|problem)|what seems to be)\b",
                            re.IGNORECASE)


def _specific_question(text: str) -> str:
    """The question sentences of an agent's message that ask for one thing ("Which reservation had the
    cancelled flight?"), not what the user wants at all; "" when there is none."""
    asked = [s for s in split_sentences(text) if "?" in s and not _OPEN_QUESTION.search(s)]
    if not asked or any(_OPEN_QUESTION.search(s) for s in split_sentences(text) if "?" in s):
        return ""
    return " ".join(asked)


def _answer_or_say_unknown(conversation: Conversation, parts: list[str], agent_text: str,
                           behaved: bool = False) -> UserReply | None:
    """A question for one thing that names no parameter: the fact of the instruction it is about (the most
    words in common), else "I don't know" — never the next item of the story in its place."""
    question = _specific_question(agent_text)
    if not question or asks_to_confirm(conversation.last_said("agent")):
        return None
    asked = {w for w in normalize(question).split() if len(w) > 3} - _COMMON_QUESTION_WORDS
    if not asked:
        return None  # "Anything more?": an open question after all
    # "How many passengers ...?": a fact that says nothing of passengers does not answer it.
    focus = re.search(r"\bhow (?:many|much)\s+([a-z]+)", question, re.IGNORECASE)
    # "What was the date of the cancelled flight?": only a fact that holds a date answers it
    thing = re.search(r"\bwhat(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the|your)\s+([a-z]+)\s+of\b", question,
                      re.IGNORECASE)
    best, best_score = None, 0
    for part in parts:
        shown = {w for w in normalize(without_ids(part)).split() if len(w) > 3}
        if focus and not any(w.rstrip("s") == focus.group(1).lower().rstrip("s") for w in normalize(part).split()):
            continue
        if thing and not _holds(part, thing.group(1).lower()):
            continue
        score = len(asked & shown)
        if score > best_score:
            best, best_score = part, score
    if best is not None:
        said = [m.content for m in conversation.said("user")]
        fact = without_ids(best)
        if not any(fact in t for t in said):
            # An untold fact: a behaviour decides how it is told (minimal: the one asked about); without one
            # it is told now, out of the story's order.
            return None if behaved else UserReply(fact, "answer")
        return UserReply(f"As I said: {fact}", "answer")
    return UserReply("I'm sorry, I don't know that.", "unknown")


_DATE_IN = re.compile(r"\b\d{4}-\d\d-\d\d\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
                      re.IGNORECASE)


def _holds(part: str, thing: str) -> bool:
    """A fact of the instruction holds the thing asked about: a date for "the date" (or "the day"), else the word."""
    if thing in ("date", "day"):
        return bool(_DATE_IN.search(part))
    return any(w.rstrip("s") == thing.rstrip("s") for w in normalize(part).split())


_COMMON_QUESTION_WORDS = frozenset("what which when where could would should have your there this that with "
                                   "please tell know like want need about from into them they does were been "
                                   "anything something more else help today other further okay right sure then "
                                   "again going".split())


_ASKS_FOR = re.compile(r"\b(?:tell me|what is|what's|provide|give me|share)\s+(?:the|your)\s+([a-z][a-z ]{1,40}?)"
                       r"\s*(?:\?|\(|,|$)", re.IGNORECASE)


def _verb(tool: str) -> str:
    return tool.split("_", 1)[0]


_HANDOVER = re.compile(r"\btransfer you\b|\bhand you over\b", re.IGNORECASE)


def _proposal_part(text: str, names: list[str]) -> str:
    """The proposal itself: from the first sentence that names the write (its tool's words or verb) on, not
    what the agent said before it ("Your order has a T-Shirt and a Cycling Helmet. I will return the T-Shirt.")."""
    sentences = split_sentences(text)
    start = next((i for i, sentence in enumerate(sentences)
                  if any(f" {normalize(n)} " in f" {normalize(sentence)} " or n in sentence for n in names)), 0)
    # What it leaves out is not part of it: "..., and you keep the Cycling Helmet", "not the helmet".
    pieces = _PIECE.split(" ".join(sentences[start:]))  # text, separator, text, ...
    return "".join(p for i, p in enumerate(pieces) if i % 2 or not _LEFT_OUT.search(p))


_PIECE = re.compile(r"([,;:.!?()]\s+|\s+(?:and|but|while)\s+)", re.IGNORECASE)
_LEFT_OUT = re.compile(r"\b(?:keep|keeps|keeping|kept|not|without|except|excluding|remain|remains|stay|stays)\b",
                       re.IGNORECASE)


def _value_problem(conversation: Conversation, actions: list[Action], read: proposal_values.Reader,
                   ) -> tuple[str, set[str]] | None:
    """None when one of the goal's `actions` holds every value the write shows; otherwise the correction for
    the closest one (the fewest arguments wrong) and the goal's values shown. With no action, None."""
    outputs = tool_outputs(conversation)
    tools = conversation.domain.tool_map
    best: tuple[int, str, set[str]] | None = None
    for action in actions:
        spec = tools.get(action.name)
        wrong, seen = proposal_values.compare(action.kwargs, read, outputs, spec,
                                              lambda v: knows(conversation.task, v))
        if not wrong:
            return None
        if best is None or len(wrong) < best[0]:
            gold = proposal_values.list_labels(wrong[0].key, list(action.kwargs.get(wrong[0].key) or []),
                                               outputs, spec, lambda v: knows(conversation.task, v)) \
                if not wrong[0].single else []
            best = (len(wrong), proposal_values.correction(wrong[0], action.name, gold), seen)
    return (best[1], best[2]) if best is not None else None


def judge_proposal(conversation: Conversation, text: str) -> tuple[bool, str]:
    """(agree, correction): yes only to a write the goal holds: its tool, and every value the proposal shows
    as the goal's action has it (a list as a set: no item more, none left out; a single value as the one
    wanted; `tauplay.sim.proposal_values`); otherwise a correction in the user's words naming what is wanted.
    A goal id the proposal does not show at all is asked for ("not the right reservation id"); a proposal
    that names no tool and shows no value is taken on trust."""
    tools = conversation.domain.tool_map
    said = f" {normalize(text)} "
    if _HANDOVER.search(text):
        # An offer to hand over to a person: yes when its goal waits for one (a gold hand-over, or it was told
        # to insist on a human), otherwise yes too (taken on trust, like a proposal that names no tool).
        return True, ""
    pending = [a for a in pending_actions(conversation) if a.name in tools and tools[a.name].is_write]
    proposed = [t for t in sorted(tools, key=len, reverse=True)
                if tools[t].is_write and (f" {normalize(words(t))} " in said or t in text)]
    if not proposed:
        verbs = {_verb(t) for t in tools if tools[t].is_write}
        used = [v for v in verbs if f" {v} " in said]
        wanted = {_verb(a.name) for a in pending}
        if used and not set(used) & wanted:
            goal = pending[0].name if pending else None
            return False, (f"No, I want to {_verb(goal)} it, not {used[0]} it." if goal
                           else "No, I did not ask for that.")
        # A change in everyday words the goal does not hold ("I can cancel your plan" to one paying a bill;
        # "I will unlock your card" to one who wants it locked): said so, not taken on trust.
        other = change_words.names_other_change(text, pending, conversation.task.goal,
                                                conversation.domain.request_words)
        if other is not None:
            return False, change_words.correction(other, pending, conversation.domain.request_words)
        # In everyday words ("I will return the T-Shirt and the Cycling Helmet"): the values it shows are
        # checked against the goal's writes of that verb; what it does not show is taken on trust.
        same = [a for a in pending if _verb(a.name) in used]
        problem = _value_problem(conversation, same, proposal_values.from_text(_proposal_part(text, used)))
        if problem is not None:
            return False, problem[0]
        return True, ""
    name = proposed[0]
    matching = [a for a in pending if a.name == name]
    if not matching:
        if not pending:
            return False, "No, I did not ask for that."
        goal = pending[0].name
        if _verb(goal) != _verb(name):
            return False, f"No, I want to {_verb(goal)} it, not {_verb(name)} it."
        return False, f"No, that is not what I want: I want to {words(goal)}."
    part = _proposal_part(text, [words(name), name])
    problem = _value_problem(conversation, matching, proposal_values.from_text(part))
    if problem is not None:
        return False, problem[0]
    shown = proposal_values_shown(conversation, matching, part)
    for action in matching:
        ids = [leaf for leaf in leaves(action.kwargs) if leaf.name.endswith(("id", "ids")) and isinstance(leaf.value, str)]
        if all(f" {normalize(leaf.value)} " in said or leaf.value in shown for leaf in ids):
            return True, ""
    action = matching[0]
    wrong = next(leaf for leaf in leaves(action.kwargs) if leaf.name.endswith(("id", "ids"))
                 and isinstance(leaf.value, str) and f" {normalize(leaf.value)} " not in said
                 and leaf.value not in shown)
    right = f": it is {wrong.value}" if knows(conversation.task, wrong.value) else ""
    return False, f"No, that is not the right {words(wrong.name)}{right}."


def proposal_values_shown(conversation: Conversation, actions: list[Action], text: str) -> set[str]:
    """The goal's values a proposal shows in any form a person reads (an item by its name, a card by its last
    four digits), over the goal's `actions`."""
    outputs = tool_outputs(conversation)
    tools = conversation.domain.tool_map
    read = proposal_values.from_text(text)
    out: set[str] = set()
    for action in actions:
        out |= proposal_values.compare(action.kwargs, read, outputs, tools.get(action.name),
                                       lambda v: knows(conversation.task, v))[1]
    return out


def wrong_write(conversation: Conversation) -> UserReply | None:
    """A write the agent made since the user last spoke that its goal does not hold: said so, in its words
    ("That is not what I asked for: only the T-Shirt; I want to keep the Cycling Helmet."), not thanked."""
    events = conversation.events
    last = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind == EventKind.MESSAGE
                 and events[i].role == Role.USER), None)
    if last is None:
        return None
    tools = conversation.domain.tool_map
    for call, ok in tool_calls(events[last + 1:]):
        spec = tools.get(call.name)
        if not ok or spec is None or not spec.is_write or call.requestor == "user":
            continue
        gold = [a for a in conversation.task.actions if a.name == call.name]
        if any(proposal_values.same_call(a.kwargs, call.arguments) for a in gold):
            continue
        if gold:
            # A value it can name that is not its goal's; a difference it cannot tell (a date, an amount, a
            # list of flights) is not guessed at.
            problem = _value_problem(conversation, gold, proposal_values.from_call(call.arguments))
            if problem is not None:
                return UserReply(f"That is not what I asked for: {problem[0].removeprefix('No, ')}", "correct")
            continue
        if names_write([conversation.task.goal], call.name, tools):
            continue  # its instruction asks for it (a write the rules forbid, so the goal leaves it out)
        return UserReply(f"That is not what I asked for: I did not ask you to {words(call.name)}.", "correct")
    return None


def unnamed_write(conversation: Conversation) -> UserReply | None:
    """The next change its goal holds that this user has not yet asked for in words the agent can know (the
    tool's name as a phrase): said when the agent asks whether there is anything else and every fact is told."""
    tools = conversation.domain.tool_map
    mine = [m.content for m in conversation.said("user")]
    for action in pending_actions(conversation):
        spec = tools.get(action.name)
        if spec is None or not spec.is_write or action.requestor == "user":
            continue
        if not names_write(mine, action.name, tools):
            return UserReply(f"I would also like you to {words(action.name)}.", "request")
    return None


def refusal_reply(conversation: Conversation, agent_last: MessageData | None) -> UserReply | None:
    """The agent said it cannot do something ("Sorry, I can't help with that."), asking nothing: once in a
    session the user asks why and says again what it came for ("Why not? I want to pay my bill."), as a person
    would, rather than going on with its story as if it had not heard. None otherwise."""
    if agent_last is None or agent_last.intent == "ask" or "?" in agent_last.content \
            or not _REFUSAL.search(agent_last.content):
        return None
    if any(m.intent == "object" for m in conversation.said("user")):
        return None
    tools = conversation.domain.tool_map
    pending = [a for a in pending_actions(conversation) if a.name in tools and tools[a.name].is_write
               and a.requestor != "user"]
    if pending:
        # the change the user last asked for, else the one the refusal names, else the first
        mine = [m.content for m in conversation.said("user")]
        action = next((a for a in pending if mine and names_write(mine[-1:], a.name, tools)),
                      next((a for a in pending if names_write([agent_last.content], a.name, tools)), pending[0]))
        goal = change_words.goal_phrase(action)
        return UserReply(f"Why not? I want to {goal}.", "object")
    return UserReply("Why not? Is there really nothing you can do?", "object")


def goal_reached(conversation: Conversation) -> bool:
    """The goal is met; or the data is as the goal leaves it and each step the user still waits for is one
    the agent said it cannot do (a published gold step that cannot succeed leaves nothing to wait for)."""
    status = conversation.goal_status()
    if status.met:
        return True
    if status.verdict is not None or not (status.db_match and status.outputs_ok):
        return False
    tools = conversation.domain.tool_map
    tried = {c.name for c, _ in conversation.tool_calls()}
    waiting = {a.name for a in conversation.task.actions if a.name in tools and a.name not in tried
               and (tools[a.name].is_write or tools[a.name].terminal)}
    refused = [m.content for m in conversation.said("agent") if _REFUSAL.search(m.content)]
    # the refused step heard as a request is heard ("I cannot transfer you to a human agent"), not by its tool's name
    return bool(waiting) and all(any(names_write([r], name, tools) for r in refused) for name in waiting)


class ScriptedUser:
    kind = "scripted"

    def __init__(self, behavior: Behavior | None = None) -> None:
        self.behavior = behavior  # None: the defaults, and nothing saved
        self.layer = BehaviorLayer(behavior)

    def describe(self) -> dict[str, Any]:
        return with_behavior({"kind": self.kind}, self.behavior)

    async def respond(self, conversation: Conversation) -> UserReply:
        own = conversation.domain.scripted_user
        if own is not None:  # the domain's own offline user (escape rooms: a narrator)
            text, intent = own(conversation)
            return UserReply(text, intent)
        task = conversation.task
        tone = Tone(conversation.emotion)
        layer = self.layer  # the behaviour's hooks (tauplay.sim.behavior)
        parts = disclosure_parts(task)
        mine = conversation.said("user")
        n = len(mine)
        if n == 0:
            first = layer.opening(parts)
            # What is wanted, without the ids and codes: those wait until the agent asks (`answer_question`).
            request = (without_ids(" ".join(layer.say_fact(parts, i, conversation) for i in first)) if first
                       else "I need some help.")
            text = layer.brief(tone.opening(request), f"{tone.feeling()} {request}")
            return UserReply(text, "disclose" if first else "request")
        if goal_reached(conversation):
            return UserReply(f"{tone.close()} {STOP_TOKEN}", "stop")
        if conversation.domain.user_tools and (on_device := device_reply(conversation)) is not None:
            return on_device
        if (objection := wrong_write(conversation)) is not None:
            return objection
        agent_last = conversation.last_said("agent")
        agent_text = agent_last.content if agent_last else ""
        if (own_move := layer.interject(conversation, parts, bool(_REFUSAL.search(agent_text)))) is not None:
            return own_move
        # a trip under rules: any option meeting them will do
        on_trip = conversation.task.constraints is not None and _trip_applies(conversation)
        if asks_to_confirm(agent_last):
            judge = preference_answers.judge_trip if on_trip else judge_proposal
            agree, correction = judge(conversation, agent_text)
            if not agree:
                return UserReply(correction, "correct")
            return layer.confirm(conversation) or UserReply(layer.shorten(tone.yes(n)), "confirm")
        if (chosen := choice_answer(conversation, agent_text)) is not None:
            return chosen
        asked = (preference_answers.asked_facts(conversation, parts, _specific_question(agent_text) or agent_text,
                                                first_person) if on_trip and "?" in agent_text else None)
        if asked is not None:
            if (reply := self._tell_asked(conversation, parts, asked, tone, n)) is not None:
                return reply
        elif "?" in agent_text and (answer := answer_question(conversation, agent_text)) is not None:
            return answer
        if _REFUSAL.search(agent_text) and (test := layer.refused(conversation)) is not None:
            return test
        if _REFUSAL.search(agent_text) and "human" in task.goal.lower():
            if not any(m.intent == "escalate" for m in mine):
                return UserReply(tone.escalate(), "escalate")
        if (objection := refusal_reply(conversation, agent_last)) is not None:
            return objection
        if asked is None and (reply := _answer_or_say_unknown(conversation, parts, agent_text, layer.given)) is not None:
            return reply
        if _HANDOVER.search(agent_text) and "?" not in agent_text and not _REFUSAL.search(agent_text):
            # "I will transfer you to a human agent now": a person waits for it, not "Can you take care of it?"
            return UserReply(layer.shorten("Okay, please transfer me."), "wait")
        fact = layer.next_fact(conversation, parts)
        if fact is not None and not layer.given:
            # A fact it already told in answer to a question is not told again as news.
            told = set(layer.told(conversation, parts))
            fact = next((i for i in range(fact, len(parts)) if i not in told), None)
        if fact is not None:
            said = without_ids(layer.say_fact(parts, fact, conversation))
            return UserReply(layer.brief(tone.disclose(said, n), said), "disclose")
        if "?" in agent_text and (ask := unnamed_write(conversation)) is not None:
            return ask
        turns = layer.patience_turns(patience(conversation.emotion))
        if layer.fruitless(conversation) >= turns:
            return UserReply(f"{tone.give_up()} {UNSATISFIED_TOKEN}", "abandon")
        if (threat := layer.threat(conversation, patience(conversation.emotion))) is not None:
            return threat
        if layer.holding(conversation, parts):  # facts left, but the agent has not asked for them
            return layer.hold_reply()
        return UserReply(layer.shorten(tone.nudge(n)), "nudge")

    def _tell_asked(self, conversation: Conversation, parts: list[str], asked: tuple[list[int], str], tone: Tone,
                    n: int) -> UserReply | None:
        """The answer to a question about facts of its instruction (`preference_answers`): one it has not told
        (a minimal user gives exactly this; an incremental one tells its next fact in order instead: None), or
        "As I said" for one it has, or its "no particular wish"."""
        facts, no_wish = asked
        if not facts:
            return UserReply(self.layer.shorten(no_wish), "answer")
        told = set(self.layer.told(conversation, parts))
        untold = [i for i in facts if i not in told]
        if not untold:
            return UserReply("As I said: " + " ".join(without_ids(parts[i]) for i in facts), "answer")
        if self.layer.given and self.behavior is not None and self.behavior.disclosure == "incremental":
            return None
        said = without_ids(self.layer.say_fact(parts, untold[0], conversation))
        return UserReply(self.layer.brief(tone.disclose(said, n), said), "disclose")


def _trip_applies(conversation: Conversation) -> bool:
    """tauplay.sim.trip.applies, with that module (dozens of patterns, compiled on import) loaded only for a
    constraint task."""
    from tauplay.sim import trip

    return trip.applies(conversation)
