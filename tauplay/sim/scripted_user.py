"""The offline scripted user: deterministic, no model.

It tells the agent its task a sentence at a time (turned into the first person), in the tone of its
emotion condition; says yes when the agent asks to confirm a change; gives its user id when asked;
asks for a human when the agent refuses and the task says to; in a dual-control domain, does on its own device
what the agent asks for in a tool's name (`toggle_roaming()`, `grant_app_permission(app_name="messaging",
permission="sms")`) and then says what it showed; ends with ###STOP### as soon as the goal is
met (the database is as the gold actions leave it and every required answer was given); and gives up with
###UNSATISFIED### after as many fruitless replies as its patience allows. Its progress is read from the
event stream (the intent saved with each of its messages), so a resumed session continues the same way.
A domain may bring its own offline user instead (`Domain.scripted_user`: the escape domain's narrator);
the kind stays `scripted`, so saved sessions and `--user scripted` mean the same everywhere.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.behavior import Behavior, with_behavior
from tauplay.core.callsyntax import CallSyntaxError, parse_call
from tauplay.core.emotions import EmotionCondition, patience
from tauplay.core.events import MessageData, ToolResultData
from tauplay.core.tasks import Task
from tauplay.core.tools import ToolSpec
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN, EventKind, Role
from tauplay.sim.behavior import BehaviorLayer
from tauplay.sim.participants import Conversation, PlannedCall, UserReply

# -- turning the task's second-person instruction into what the customer says ---------------------------

_SWAPS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bUse (\S+) for authentication\.?", re.IGNORECASE), r"My user id is \1."),
    (re.compile(r"\byou are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou're\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou've\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byou'd\b", re.IGNORECASE), "I'd"),
    (re.compile(r"\byou'll\b", re.IGNORECASE), "I'll"),
    (re.compile(r"\byou were\b", re.IGNORECASE), "I was"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\b(to|for|with|at|from|about|give|tell|help|let|send|call|email|show|ask|asks|contact|charge|"
                r"refund|book|remind)\s+you\b", re.IGNORECASE), r"\1 me"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
    (re.compile(r"\bthe agent's\b", re.IGNORECASE), "your"),
    (re.compile(r"\bthe agent\b", re.IGNORECASE), "you"),
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def first_person(text: str) -> str:
    for pattern, repl in _SWAPS:
        text = pattern.sub(repl, text)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def disclosure_parts(task: Task) -> list[str]:
    """The goal as the messages that reveal it, in order. Conditional sentences ("If the agent ...") are
    rules for the user, not things to say; an opening "You are <name>" sentence goes with the request."""
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(task.goal.split())) if s.strip()]
    sentences = [s for s in sentences if not s.lower().startswith("if ")]
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
                          r"yes or no|is that correct|is that right)\b", re.IGNORECASE)
_REFUSAL = re.compile(r"\b(cannot|can't|can not|unable|not able|not allowed|not eligible|not permitted|"
                      r"against (?:our|the) policy)\b", re.IGNORECASE)
_ASKS_USER_ID = re.compile(r"\buser[ _]?id\b", re.IGNORECASE)
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
    call = requested_user_call(events[last].as_(MessageData).content, conversation.domain.user_tool_map)
    return UserReply("", "act", calls=(call,)) if call is not None else None


def asks_to_confirm(message: MessageData | None) -> bool:
    if message is None:
        return False
    if message.intent == "confirm":
        return True
    return "?" in message.content and bool(_CONFIRM_ASK.search(message.content))


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
            request = " ".join(layer.say_fact(parts, i, conversation) for i in first) if first else "I need some help."
            text = layer.brief(tone.opening(request), f"{tone.feeling()} {request}")
            return UserReply(text, "disclose" if first else "request")
        if conversation.goal_status().met:
            return UserReply(f"{tone.close()} {STOP_TOKEN}", "stop")
        if conversation.domain.user_tools and (on_device := device_reply(conversation)) is not None:
            return on_device
        agent_last = conversation.last_said("agent")
        agent_text = agent_last.content if agent_last else ""
        if (own_move := layer.interject(conversation, parts, bool(_REFUSAL.search(agent_text)))) is not None:
            return own_move
        if asks_to_confirm(agent_last):
            return layer.confirm(conversation) or UserReply(layer.shorten(tone.yes(n)), "confirm")
        user_id = task.known_info.get("user_id") or task.user_id
        if user_id and _ASKS_USER_ID.search(agent_text) and "?" in agent_text:
            return UserReply(f"My user id is {user_id}.", "answer")
        if _REFUSAL.search(agent_text) and (test := layer.refused(conversation)) is not None:
            return test
        if _REFUSAL.search(agent_text) and "human" in task.goal.lower():
            if not any(m.intent == "escalate" for m in mine):
                return UserReply(tone.escalate(), "escalate")
        fact = layer.next_fact(conversation, parts)
        if fact is not None:
            said = layer.say_fact(parts, fact, conversation)
            return UserReply(layer.brief(tone.disclose(said, n), said), "disclose")
        turns = layer.patience_turns(patience(conversation.emotion))
        if layer.fruitless(conversation) >= turns:
            return UserReply(f"{tone.give_up()} {UNSATISFIED_TOKEN}", "abandon")
        if (threat := layer.threat(conversation, patience(conversation.emotion))) is not None:
            return threat
        if layer.holding(conversation, parts):  # facts left, but the agent has not asked for them
            return layer.hold_reply()
        return UserReply(layer.shorten(tone.nudge(n)), "nudge")

