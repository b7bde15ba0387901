"""The scripted user's behaviour layer: how a `Behavior` (tauplay.core.behavior) bends its decisions.

The scripted user keeps its own logic (what the task says, when the goal is met, the tone of its emotion) and
asks this layer at its decision points:

- `opening(parts)`: which facts go into the first message (minimal: none, only that help is needed);
- `interject(conversation, parts, refused)`: a message of the behaviour's own before anything else (error_prone: the
  correction of its wrong detail; adversarial: changing its mind once; low patience: a threat to leave);
- `confirm(conversation)`: the answer to a request to confirm, when not a plain yes (adversarial: the first
  proposal is disputed);
- `refused(conversation)`: the answer to a refusal, when not the usual one (adversarial: tests the agent once);
- `next_fact(conversation, parts)`: the fact to tell now, or None to hold it back (incremental: one fact and
  only when asked; minimal: the fact asked for);
- `say_fact(parts, index)`: the fact's words (error_prone: one detail wrong the first time);
- `holding(conversation, parts)` and `hold_reply()`: facts are left that the agent has not asked for;
- `brief(toned, bare)`, `shorten(text)`, `patience_turns(n)`, `fruitless(conversation)`, `threat(...)`: low
  patience's short replies, its threat to leave and its early end.

Like the scripted user it keeps no state: everything is read from the messages saved so far (their intents
and contents), so a resumed session goes on the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tauplay.core.behavior import Behavior, low_patience_turns
from tauplay.core.events import MessageData
from tauplay.core.vocabulary import EventKind, Role
from tauplay.sim.participants import Conversation, UserReply
from tauplay.sim.withheld import without_ids

# Intents of the layer's own messages (saved with each message, read back on the next turn).
CORRECT, WAVER, THREATEN, DISPUTE, TEST, HOLD = "fix_detail", "waver", "threaten", "dispute", "test", "hold"
# replies that carried nothing new: what patience counts ("object": "Why not? ..." to a refusal, once)
FRUITLESS = ("nudge", HOLD, THREATEN, "object")

# The agent turned the user down (the scripted user's own reading of a refusal).
_REFUSAL = re.compile(r"\b(cannot|can't|can not|unable|not able|not allowed|not eligible|not permitted|"
                      r"against (?:our|the) policy)\b", re.IGNORECASE)
_DETAIL = re.compile(r"[A-Za-z0-9_.-]*\d[A-Za-z0-9_.-]*")
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset("a an the and or of to for in on at with my your you i me is are be it this that what which "
                       "please can could would will do does have has there any anything else help".split())


def wrong_detail(text: str) -> tuple[str, str, str] | None:
    """(text with one detail wrong, the wrong detail, the right one): the first token holding a digit gets its
    last digit changed. None when the text has no such detail."""
    m = _DETAIL.search(text)
    if m is None:
        return None
    right = m.group(0)
    i = max(j for j, ch in enumerate(right) if ch.isdigit())
    wrong = right[:i] + str((int(right[i]) + 1) % 10) + right[i + 1:]
    return text[:m.start()] + wrong + text[m.end():], wrong, right


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def asked_something(message: MessageData | None) -> bool:
    """The agent's message asks the user a question."""
    return message is not None and "?" in message.content


class BehaviorLayer:
    """`behavior` None: the scripted user's own way (its opening tells the first fact, the others follow one a
    message); a behaviour given: its four levels, the unnamed ones at their default (comprehensive: the whole task
    in the first message)."""

    def __init__(self, behavior: Behavior | None) -> None:
        self.given = behavior is not None
        self.behavior = behavior or Behavior()

    # -- reading the session back -------------------------------------------------------------------

    @staticmethod
    def _mine(conversation: Conversation) -> list[MessageData]:
        return conversation.said("user")

    @staticmethod
    def _sent(mine: Sequence[MessageData], intent: str) -> bool:
        return any(m.intent == intent for m in mine)

    def _error_index(self, parts: Sequence[str]) -> int | None:
        if self.behavior.precision != "error_prone":
            return None
        return next((i for i in range(len(parts)) if wrong_detail(self._form(parts, i)) is not None), None)

    def _form(self, parts: Sequence[str], index: int) -> str:
        """A fact as the user says it: without its ids (`tauplay.sim.withheld`)."""
        return without_ids(parts[index])

    def told(self, conversation: Conversation, parts: Sequence[str]) -> list[int]:
        """The indexes of the facts already told (their words, right or wrong, in one of the user's messages)."""
        texts = [m.content for m in self._mine(conversation)]
        out = []
        for i, part in enumerate(parts):
            forms = [part, without_ids(part)] + ([w[0]] if (w := wrong_detail(part)) is not None else [])
            if any(f in t for f in forms for t in texts):
                out.append(i)
        return out

    # -- hooks ----------------------------------------------------------------------------------------

    def opening(self, parts: Sequence[str]) -> list[int]:
        """The facts of the first message: all of them (comprehensive), the first one (incremental, and without a
        behaviour), or none (minimal)."""
        if self.behavior.disclosure == "minimal" or not parts:
            return []
        if self.given and self.behavior.disclosure == "comprehensive":
            return list(range(len(parts)))
        return [0]

    def say_fact(self, parts: Sequence[str], index: int, conversation: Conversation | None = None) -> str:
        part = parts[index]
        if index == self._error_index(parts):
            mine = self._mine(conversation) if conversation is not None else []
            wrong = wrong_detail(self._form(parts, index))
            if wrong is not None and not self._sent(mine, CORRECT):
                return wrong[0]
        return part

    def interject(self, conversation: Conversation, parts: Sequence[str], refused: bool = False) -> UserReply | None:
        """`refused`: the agent's last message turned the user down (an adversarial user tests it rather than
        wavering then)."""
        mine = self._mine(conversation)
        index = self._error_index(parts)
        if index is not None and not self._sent(mine, CORRECT):
            wrong = wrong_detail(self._form(parts, index))
            if wrong is not None and mine and wrong[0] in mine[-1].content:  # the reply after the mistake
                return UserReply(self.shorten(f"Sorry, I got that wrong: it is {wrong[2]}, not {wrong[1]}."),
                                 CORRECT)
        agent_last = conversation.last_said("agent")
        if (self.behavior.cooperation == "adversarial" and not self._sent(mine, WAVER) and len(mine) >= 2
                and not refused                and not (agent_last is not None and agent_last.intent == "confirm")
                and not asked_something(agent_last)):
            return UserReply("Actually, wait, I'm not sure I want this any more... No, forget that: I do want "
                             "what I asked for.", WAVER)
        return None

    def confirm(self, conversation: Conversation) -> UserReply | None:
        if self.behavior.cooperation == "adversarial" and not self._sent(self._mine(conversation), DISPUTE):
            # A question, not a no: the agent may explain and ask again, and then it gets its yes.
            return UserReply("Why exactly this? Are you sure it is right and that your policy allows it? Check "
                             "it again and tell me.", DISPUTE)
        return None

    def refused(self, conversation: Conversation) -> UserReply | None:
        if self.behavior.cooperation == "adversarial" and not self._sent(self._mine(conversation), TEST):
            return UserReply("Is that really your policy? Look again; I was told something else last time.", TEST)
        return None

    def next_fact(self, conversation: Conversation, parts: Sequence[str]) -> int | None:
        """The fact to tell now, None to hold back (or when everything was told). Facts go in order (counted by
        the messages that told one), except for a minimal user, who tells the fact the question is about."""
        mine = self._mine(conversation)
        if not self.given:  # the scripted user's own way: the next fact, asked or not
            index = sum(1 for m in mine if m.intent == "disclose")
            return index if index < len(parts) else None
        told = set(self.told(conversation, parts))
        left = [i for i in range(len(parts)) if i not in told]
        agent_last = conversation.last_said("agent")
        if self.behavior.disclosure != "minimal":
            if not left:
                return None
            if self.behavior.disclosure == "comprehensive" or asked_something(agent_last):
                return left[0]
            return None  # incremental: one fact per turn, and only when asked
        if not left or agent_last is None or not asked_something(agent_last):
            return None
        asked = _words(agent_last.content)
        best = max((len(asked & _words(parts[i])), -i) for i in left)
        return -best[1] if best[0] > 0 else left[0]

    def hold_reply(self) -> UserReply:
        return UserReply("Okay." if self.behavior.patience == "high" else "And?", HOLD)

    def holding(self, conversation: Conversation, parts: Sequence[str]) -> bool:
        """Facts are left that this user waits to be asked for (incremental, minimal)."""
        if self.behavior.disclosure == "comprehensive":
            return False
        return len(self.told(conversation, parts)) < len(parts)

    def brief(self, toned: str, bare: str) -> str:
        """Low patience: the bare words instead of the emotion's full phrasing."""
        return bare.strip() if self.behavior.patience == "low" else toned

    def shorten(self, text: str) -> str:
        """Low patience: only the first sentence of a reply that is more than that."""
        if self.behavior.patience != "low":
            return text
        sentences = re.split(r"(?<=[.!?])\s+", text.strip())
        return sentences[0] if sentences else text

    def fruitless(self, conversation: Conversation) -> int:
        """Replies that carried nothing new because the agent failed the user, since the agent last did anything
        in the environment: a reply counts when the agent's message before it refused or repeated one of its
        earlier messages. A question the user could not place, or one for something it holds, is no failure."""
        count = 0
        agent_seen: list[str] = []
        failed: list[bool] = []  # per agent message, in order: did it fail the user?
        counted = 0
        start = 0
        for i, e in enumerate(conversation.events):
            if e.kind == EventKind.TOOL_CALL and e.role == Role.AGENT:
                start = i + 1
        for e in conversation.events[:start]:
            if e.kind == EventKind.MESSAGE and e.role == Role.AGENT:
                agent_seen.append(" ".join(e.as_(MessageData).content.lower().split()))
        last_failed = False
        for e in conversation.events[start:]:
            if e.kind != EventKind.MESSAGE:
                continue
            m = e.as_(MessageData)
            if e.role == Role.AGENT:
                text = " ".join(m.content.lower().split())
                last_failed = text in agent_seen or bool(_REFUSAL.search(m.content))
                failed.append(last_failed)
                agent_seen.append(text)
            elif e.role == Role.USER and m.intent in FRUITLESS and last_failed:
                counted += 1
        count = counted
        return count

    def patience_turns(self, emotion_patience: int) -> int:
        return emotion_patience if self.behavior.patience == "high" else low_patience_turns(emotion_patience)

    def threat(self, conversation: Conversation, emotion_patience: int) -> UserReply | None:
        """Low patience: once, one fruitless reply before giving up, say so."""
        if self.behavior.patience != "low":
            return None
        turns = self.patience_turns(emotion_patience)
        if self.fruitless(conversation) == turns - 1 and not self._sent(self._mine(conversation), THREATEN):
            return UserReply("Hurry up, or I'm leaving.", THREATEN)
        return None
