"""Emotion conditions: the Atlas-of-Emotions families and leaves (with the pairs the published τ-Emotion-Bench
tasks carry), the three dimensions, a structured condition that belongs to a task, the set of conditions a domain
draws from (`EmotionSet`) and the one grouping of sessions by emotion (`emotion_group`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

# Family -> leaves, mild to intense. The first leaf of the main list is the family's default.
FAMILIES: dict[str, tuple[str, ...]] = {
    "anger": ("annoyance", "frustration", "exasperation", "argumentativeness", "bitterness",
              "vengefulness", "fury"),
    "fear": ("nervousness", "anxiety", "dread", "desperation", "trepidation", "panic", "horror", "terror"),
    "disgust": ("dislike", "aversion", "distaste", "repugnance", "revulsion", "abhorrence", "loathing"),
    "sadness": ("disappointment", "discouragement", "helplessness", "hopelessness", "sorrow",
                "resignation", "misery", "despair", "grief", "anguish"),
    "enjoyment": ("excitement", "peace", "pride", "relief", "amusement", "compassion", "wonder",
                  "ecstasy", "sensory pleasure", "rejoicing", "naches", "schadenfreude", "fiero"),
}
DEFAULT_LEAF = {"anger": "frustration", "fear": "anxiety", "disgust": "dislike",
                "sadness": "disappointment", "enjoyment": "excitement"}
POLITENESS = ("cold", "neutral", "warm")
URGENCY = ("low", "moderate", "high")
TRUST = ("skeptical", "cautious", "trusting")
INTENSITY = ("mild", "moderate", "intense")

LEAF_FAMILY: dict[str, str] = {leaf: fam for fam, leaves in FAMILIES.items() for leaf in leaves}

# The published τ-Emotion-Bench tasks (train, dev and test splits of the four released domains) also pair a family
# with a leaf the Atlas lists under another one (anger/excitement, fear/peace, ...). Each such pair is a sub-family
# of the family the task names: read back as the task gives it, grouped under that family, never "corrected".
PUBLISHED_PAIRS: dict[str, tuple[str, ...]] = {
    "anger": ("excitement", "pride", "distaste", "disappointment", "dislike", "nervousness", "discouragement",
              "peace", "helplessness"),
    "fear": ("excitement", "peace", "helplessness"),
    "disgust": ("disappointment", "frustration", "pride", "annoyance"),
    "sadness": ("peace", "frustration", "nervousness", "dread", "relief", "exasperation"),
    "enjoyment": ("nervousness", "aversion", "discouragement", "anxiety", "helplessness", "exasperation",
                  "disappointment", "argumentativeness", "frustration"),
}


def sub_families(family: str) -> tuple[str, ...]:
    """Every leaf a condition of `family` may carry: the Atlas's own, then the published pairs."""
    return FAMILIES[family] + PUBLISHED_PAIRS.get(family, ())


class EmotionError(ValueError):
    """An emotion condition that does not fit the taxonomy; the message lists the choices."""


@dataclass(frozen=True)
class EmotionCondition:
    """The emotion a user plays: family, leaf, intensity and politeness."""
    family: str
    leaf: str
    intensity: str = "moderate"
    politeness: str = "neutral"
    urgency: str = "moderate"
    trust: str = "cautious"
    trigger: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise EmotionError(f"unknown emotion family '{self.family}' (families: {', '.join(FAMILIES)})")
        if self.leaf not in sub_families(self.family):
            raise EmotionError(f"'{self.leaf}' is not in the {self.family} family (its leaves: "
                               f"{', '.join(FAMILIES[self.family])}; published pairs: "
                               f"{', '.join(PUBLISHED_PAIRS.get(self.family, ())) or 'none'})")
        for value, allowed, what in ((self.intensity, INTENSITY, "intensity"),
                                     (self.politeness, POLITENESS, "politeness"),
                                     (self.urgency, URGENCY, "urgency"), (self.trust, TRUST, "trust")):
            if value not in allowed:
                raise EmotionError(f"{what} must be one of {', '.join(allowed)}, got '{value}'")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EmotionCondition:
        known = {k: data[k] for k in ("family", "leaf", "intensity", "politeness", "urgency", "trust", "trigger")
                 if data.get(k) is not None}
        if "leaf" not in known and "family" in known:
            known["leaf"] = DEFAULT_LEAF.get(known["family"], "")
        if "family" not in known and known.get("leaf") in LEAF_FAMILY:
            known["family"] = LEAF_FAMILY[known["leaf"]]
        return cls(**known)

    @property
    def label(self) -> str:
        return f"{self.family}/{self.leaf}"

    @property
    def published_pair(self) -> bool:
        """The leaf is the Atlas's under another family: a pair as the published tasks give it."""
        return self.leaf not in FAMILIES[self.family]


def emotion_group(condition: EmotionCondition | Mapping[str, Any] | None) -> str:
    """The group a session (or a task) falls in by emotion: its condition's family, NO_EMOTION without one. The
    one grouping `run`'s summary, `stats --by emotion`, `plot` and `report` share (a saved condition is a dict)."""
    if condition is None:
        return NO_EMOTION
    family = condition.family if isinstance(condition, EmotionCondition) else condition.get("family")
    return str(family) if family else NO_EMOTION


# Where a domain's EmotionSet comes from (its `source`).
FROM_RELEASE = ("τ-Emotion-Bench Table 2's counts; the sub-families are the released tasks' commonest pairs within "
                "the taxonomy (each family's commonest leaf, then the rest by frequency, over train, dev and test)")
PAPER_COUNTS_OUR_LEAVES = ("τ-Emotion-Bench Table 2's counts; the paper names no sub-families for this domain, "
                           "so the leaves are tauplay's pick")
OUR_PICK = "tauplay's pick: τ-Emotion-Bench has no such domain"


@dataclass(frozen=True)
class EmotionSet:
    """The emotion conditions a domain's tasks draw from: families, each with its sub-families (leaves, the most
    usual first). `source` says where they come from; `paper`, when given, is τ-Emotion-Bench Table 2's
    (families, sub-families) count for the domain, which the set must have."""

    leaves: dict[str, tuple[str, ...]]
    source: str
    paper: tuple[int, int] | None = None
    families: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        for family, leaves in self.leaves.items():
            if not leaves:
                raise EmotionError(f"the {family} family needs at least one sub-family")
            for leaf in leaves:
                EmotionCondition(family, leaf)  # raises naming the family's leaves
        object.__setattr__(self, "families", tuple(f for f in FAMILIES if f in self.leaves))
        if self.paper is not None and self.counts != self.paper:
            raise EmotionError(f"{self.counts[0]} families / {self.counts[1]} sub-families, but the paper's Table 2 "
                               f"gives {self.paper[0]} / {self.paper[1]}")

    @property
    def counts(self) -> tuple[int, int]:
        return len(self.leaves), sum(len(v) for v in self.leaves.values())

    def weights(self, asked: Mapping[str, float] | str) -> dict[str, float]:
        """The family weights a generation run uses: "balanced" over this set's families, or `asked`, whose
        weighted families must all be in the set (EmotionError naming them otherwise)."""
        if isinstance(asked, str):
            return {f: 1.0 for f in self.families}
        outside = [f for f, w in asked.items() if w > 0 and f not in self.leaves]
        if outside:
            raise EmotionError(f"{', '.join(outside)}: not among this domain's emotion families "
                               f"({', '.join(self.families)}; {self.source})")
        return {f: float(w) for f, w in asked.items() if f in self.leaves}


# -- words a person types -------------------------------------------------------------------------

# Adjective (or noun) -> leaf. Leaf and family names are accepted too (a family picks its default leaf).
ADJECTIVES: dict[str, str] = {
    # anger
    "annoyed": "annoyance", "irritated": "annoyance", "irked": "annoyance",
    "frustrated": "frustration", "angry": "frustration", "mad": "frustration", "cross": "frustration",
    "exasperated": "exasperation", "fed up": "exasperation", "fed-up": "exasperation",
    "argumentative": "argumentativeness", "combative": "argumentativeness",
    "bitter": "bitterness", "resentful": "bitterness",
    "vengeful": "vengefulness", "furious": "fury", "enraged": "fury", "livid": "fury", "outraged": "fury",
    # fear
    "nervous": "nervousness", "uneasy": "nervousness", "jittery": "nervousness",
    "anxious": "anxiety", "worried": "anxiety", "afraid": "anxiety", "stressed": "anxiety",
    "scared": "dread", "dreading": "dread", "fearful": "dread",
    "desperate": "desperation", "apprehensive": "trepidation", "wary": "trepidation",
    "panicked": "panic", "panicky": "panic", "panicking": "panic",
    "horrified": "horror", "terrified": "terror",
    # disgust
    "disgusted": "dislike", "displeased": "dislike", "put off": "dislike",
    "averse": "aversion", "repelled": "aversion", "distasteful": "distaste",
    "repulsed": "repugnance", "revolted": "revulsion", "sickened": "revulsion", "appalled": "abhorrence",
    "loathing": "loathing",
    # sadness
    "disappointed": "disappointment", "let down": "disappointment", "let-down": "disappointment",
    "sad": "disappointment", "unhappy": "disappointment", "down": "disappointment",
    "discouraged": "discouragement", "disheartened": "discouragement",
    "helpless": "helplessness", "powerless": "helplessness",
    "hopeless": "hopelessness", "sorrowful": "sorrow", "heartbroken": "sorrow",
    "resigned": "resignation", "miserable": "misery", "despairing": "despair", "grieving": "grief",
    "anguished": "anguish",
    # enjoyment
    "excited": "excitement", "eager": "excitement", "happy": "excitement", "thrilled": "excitement",
    "calm": "peace", "peaceful": "peace", "content": "peace", "relaxed": "peace", "serene": "peace",
    "proud": "pride", "relieved": "relief", "amused": "amusement", "compassionate": "compassion",
    "kind": "compassion", "amazed": "wonder", "awed": "wonder", "ecstatic": "ecstasy", "elated": "ecstasy",
    "joyful": "rejoicing", "delighted": "rejoicing", "triumphant": "fiero",
}

# How strongly a leaf shows by default (an explicit intensity wins). Others are moderate.
_MILD_LEAVES = frozenset({"annoyance", "nervousness", "dislike", "disappointment", "peace", "amusement"})
_INTENSE_LEAVES = frozenset({"vengefulness", "fury", "desperation", "panic", "horror", "terror", "revulsion",
                             "abhorrence", "loathing", "hopelessness", "despair", "grief", "anguish", "ecstasy"})


def default_intensity(leaf: str) -> str:
    if leaf in _MILD_LEAVES:
        return "mild"
    if leaf in _INTENSE_LEAVES:
        return "intense"
    return "moderate"


def resolve_emotion(word: str) -> tuple[str, str]:
    """(family, leaf) for a typed word: an adjective (`frustrated`), a leaf (`frustration`), a family
    (`anger`, its default leaf) or `family/leaf`. EmotionError listing the choices for anything else."""
    text = " ".join(word.strip().lower().replace("_", " ").split())
    if "/" in text:
        family, _, leaf = (p.strip() for p in text.partition("/"))
        EmotionCondition(family, leaf)  # raises with the family's leaves when they do not fit
        return family, leaf
    if text in FAMILIES:
        return text, DEFAULT_LEAF[text]
    leaf = ADJECTIVES.get(text, text)
    if leaf in LEAF_FAMILY:
        return LEAF_FAMILY[leaf], leaf
    adjectives = ", ".join(sorted(a for a in ADJECTIVES if " " not in a and "-" not in a))
    raise EmotionError(f"unknown emotion '{word}': use an adjective ({adjectives}), a family "
                       f"({', '.join(FAMILIES)}) or a leaf such as frustration or family/leaf")


# Broad words that name a whole family: they mean a plain, moderate feeling whatever their leaf.
_BROAD_WORDS = frozenset({"angry", "mad", "afraid", "disgusted", "sad", "unhappy", "happy", *FAMILIES})


def condition_from_word(word: str, *, intensity: str | None = None, politeness: str = "neutral",
                        urgency: str = "moderate", trust: str = "cautious", trigger: str = "") -> EmotionCondition:
    """The condition a person means by `--emotion frustrated` (plus optional dimensions)."""
    family, leaf = resolve_emotion(word)
    if intensity is None:
        intensity = "moderate" if word.strip().lower() in _BROAD_WORDS else default_intensity(leaf)
    return EmotionCondition(family, leaf, intensity, politeness, urgency, trust, trigger)


# What sets off a feeling of each family when a chosen emotion replaces a task's own (our wording; the
# task's own trigger is kept only when it belongs to the family chosen).
FAMILY_TRIGGERS: dict[str, tuple[str, ...]] = {
    "anger": ("an earlier call about this went nowhere", "being passed from one department to the next"),
    "fear": ("worry that it will not be sorted out in time", "a deadline coming up fast"),
    "disgust": ("how carelessly this was handled before", "hidden fees and fine print"),
    "sadness": ("plans that fell through", "a long week of things going wrong"),
    "enjoyment": ("good news at work", "a trip they have long looked forward to"),
}
NO_EMOTION = "none"  # `--emotion none`: play the task without any emotion condition


def family_trigger(family: str, key: str = "") -> str:
    """A trigger of `family`, the same one for the same `key` (a task id)."""
    options = FAMILY_TRIGGERS[family]
    return options[sum(map(ord, key)) % len(options)]


def condition_for_task(word: str, task_emotion: EmotionCondition | None, key: str = "") -> EmotionCondition | None:
    """The condition `--emotion WORD` gives a task: family and leaf from the word, and a trigger that fits
    that family (the task's own when its condition is of the same family). `none`: no condition at all."""
    if word.strip().lower() == NO_EMOTION:
        return None
    family, _leaf = resolve_emotion(word)
    own = task_emotion.trigger if task_emotion is not None and task_emotion.family == family else ""
    return condition_from_word(word, trigger=own or family_trigger(family, key))


# -- rendering --------------------------------------------------------------------------------------

# The adjective used when speaking about a leaf (first ADJECTIVES entry that maps to it, else the leaf).
_LEAF_ADJECTIVE: dict[str, str] = {}
for _word, _leaf in ADJECTIVES.items():
    _LEAF_ADJECTIVE.setdefault(_leaf, _word)


def leaf_adjective(leaf: str) -> str:
    return _LEAF_ADJECTIVE.get(leaf, leaf)


# How each family comes through in what a customer writes (our wording).
_FAMILY_VOICE = {
    "anger": "You blame the airline or the company for the trouble, you are short with delays, and you push "
             "back when something sounds like an excuse. Stay civil: no insults or threats.",
    "fear": "You worry about what could still go wrong, ask for reassurance, and want each step confirmed "
            "before you relax.",
    "disgust": "You find the service and its rules distasteful and you say so; you make disapproving remarks "
               "about how things are run.",
    "sadness": "You sound low and tired; you mention how things have let you down and expect little from the "
               "conversation.",
    "enjoyment": "You are upbeat and open; you share your good mood and appreciate help when you get it.",
}
_INTENSITY_TEXT = {
    "mild": "The feeling is mild: it shows in a word or two now and then.",
    "moderate": "The feeling is clear: it colours most of your messages.",
    "intense": "The feeling is strong: it shapes every message you write.",
}
_POLITENESS_TEXT = {
    "cold": "Wording: curt and cold. Skip greetings and thanks; use short, blunt sentences.",
    "neutral": "Wording: plain and matter-of-fact. Polite enough, without warmth or small talk.",
    "warm": "Wording: warm and courteous. Greet the agent and thank them, even while you feel this way.",
}
_URGENCY_TEXT = {
    "low": "Patience: you are in no hurry and tolerate questions and small detours.",
    "moderate": "Patience: ordinary. Repeated or needless questions wear on you.",
    "high": "Patience: very little. You want it done now and press the agent when it asks for things it "
            "could look up, repeats itself or stalls.",
}
_TRUST_TEXT = {
    "skeptical": "Sharing: you doubt the agent. Give only what is asked, one item at a time, ask why it is "
                 "needed, and question claims before you accept them.",
    "cautious": "Sharing: answer what is asked; volunteer little beyond it.",
    "trusting": "Sharing: you trust the agent. Offer helpful details readily and accept its explanations.",
}


def patience(condition: EmotionCondition | None) -> int:
    """How many fruitless agent replies the simulated user puts up with before giving up."""
    if condition is None:
        return 4
    turns = {"low": 6, "moderate": 4, "high": 2}[condition.urgency]
    if condition.intensity == "intense" and condition.family in ("anger", "disgust", "fear"):
        turns -= 1
    if condition.trust == "trusting":
        turns += 1
    return max(1, turns)


def user_instructions(condition: EmotionCondition) -> str:
    """The emotion part of a simulated user's instructions: how it words, how patient it is, how much it
    shares, and what it feels. Plain text in tauplay's own words."""
    feeling = f"You feel {leaf_adjective(condition.leaf)} ({condition.leaf}, in the {condition.family} family)."
    if condition.trigger:
        feeling += f" What set it off: {condition.trigger}."
    return "\n".join([
        feeling,
        _INTENSITY_TEXT[condition.intensity],
        _FAMILY_VOICE[condition.family],
        _POLITENESS_TEXT[condition.politeness],
        _URGENCY_TEXT[condition.urgency],
        _TRUST_TEXT[condition.trust],
        f"If the agent keeps you going in circles for about {patience(condition)} replies in a row, you give up.",
    ])


# How a person shows each family in writing (the card's "Play it" line starts with this).
_FAMILY_CUE = {
    "anger": "let it show that you are {how}{feeling}: push back on excuses, repeat what you already said",
    "fear": "sound {how}{feeling}: ask what could go wrong and want each step confirmed",
    "disgust": "sound {how}{feeling} at how things are run; say so",
    "sadness": "sound {how}{feeling} and tired; expect little",
    "enjoyment": "sound {how}{feeling}; upbeat, keep things moving",
}
_INTENSITY_CUE = {"mild": "a little ", "moderate": "", "intense": "very "}


def card(condition: EmotionCondition) -> str:
    """A short card for a person who plays this user (a few plain lines, no markup)."""
    lines = [
        f"Feeling: {leaf_adjective(condition.leaf)} ({condition.family} / {condition.leaf}), {condition.intensity}",
        f"Tone: {condition.politeness} · urgency: {condition.urgency} · trust: {condition.trust}",
    ]
    if condition.trigger:
        lines.append(f"Why: {condition.trigger}")
    lines.append("Play it: " + _FAMILY_CUE[condition.family].format(
        feeling=leaf_adjective(condition.leaf), how=_INTENSITY_CUE[condition.intensity]) + "; " + {
        "cold": "short and blunt",
        "neutral": "plain and factual",
        "warm": "courteous, with thanks",
    }[condition.politeness] + "; " + {
        "low": "no hurry",
        "moderate": "ordinary patience",
        "high": "press for speed",
    }[condition.urgency] + "; " + {
        "skeptical": "share only what is asked, question claims",
        "cautious": "answer what is asked",
        "trusting": "offer details readily",
    }[condition.trust] + ".")
    return "\n".join(lines)
