"""A simulated user's behaviour (RUSE-style, issue 18): four dimensions, each with levels, beside its emotion.

    disclosure  comprehensive | incremental | minimal   how readily it tells the facts of its task
    patience    high | low                                how long it puts up with a session that goes nowhere
    cooperation cooperative | adversarial                 whether it disputes, wavers and tests the agent
    precision   precise | error_prone                     whether it gets a detail wrong and corrects it later

Written `--behavior disclosure=incremental,patience=low` (unnamed dimensions keep their default, the first
level) or read from a persona file (JSON or TOML, the four dimensions at the top level or under `behavior`).
It is saved in the user participant's description (`{"kind": ..., "behavior": {...}}`), so a resumed session
behaves the same and the statistics group by it. The LLM user gets `instructions()` in its prompt, the scripted
user a behaviour layer (tauplay.sim.behavior); a person who plays the user sees `card_line()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# dimension -> levels, the default first (the contract: names and spellings are fixed)
LEVELS: dict[str, tuple[str, ...]] = {
    "disclosure": ("comprehensive", "incremental", "minimal"),
    "patience": ("high", "low"),
    "cooperation": ("cooperative", "adversarial"),
    "precision": ("precise", "error_prone"),
}
BEHAVIOR_DIMENSIONS = tuple(LEVELS)
_PERSONA_EXTRA = ("name", "description", "behavior")  # persona keys that are not dimensions


class BehaviorError(ValueError):
    """A behaviour that does not fit the dimensions; the message (one line) names the choices."""


@dataclass(frozen=True)
class Behavior:
    """How a user behaves (RUSE-style): disclosure, patience, cooperation, precision."""
    disclosure: str = "comprehensive"
    patience: str = "high"
    cooperation: str = "cooperative"
    precision: str = "precise"

    def __post_init__(self) -> None:
        for dim, levels in LEVELS.items():
            value = getattr(self, dim)
            if value not in levels:
                raise BehaviorError(f"{dim} must be one of {'|'.join(levels)}, got '{value}'")

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Behavior:
        unknown = [k for k in data if k not in LEVELS]
        if unknown:
            raise BehaviorError(f"unknown behaviour dimension '{unknown[0]}' (dimensions: {', '.join(LEVELS)})")
        return cls(**{k: str(v) for k, v in data.items()})

    @property
    def label(self) -> str:
        """`disclosure=incremental,patience=high,...` in the dimensions' order (the flag's own spelling)."""
        return ",".join(f"{d}={getattr(self, d)}" for d in LEVELS)

    def level(self, dim: str) -> str:
        return str(getattr(self, dim))


def parse_behavior(text: str, base: Behavior | None = None) -> Behavior:
    """A `--behavior` value: comma-separated `dimension=level` pairs over `base` (default: the defaults).
    A level alone (`incremental`) is accepted when it names exactly one dimension's level."""
    values = (base or Behavior()).to_json()
    seen: set[str] = set()
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        if "=" in item:
            dim, _, level = (p.strip().lower() for p in item.partition("="))
        else:
            level = item.lower()
            owners = [d for d, levels in LEVELS.items() if level in levels]
            if len(owners) != 1:
                raise BehaviorError(f"'{item}' is not dimension=level (dimensions: " +
                                    "; ".join(f"{d}={'|'.join(lv)}" for d, lv in LEVELS.items()) + ")")
            dim = owners[0]
        level = level.replace("-", "_")
        if dim not in LEVELS:
            raise BehaviorError(f"unknown behaviour dimension '{dim}' (dimensions: {', '.join(LEVELS)})")
        if level not in LEVELS[dim]:
            raise BehaviorError(f"{dim} must be one of {'|'.join(LEVELS[dim])}, got '{level}'")
        if dim in seen:
            raise BehaviorError(f"{dim} is given twice in '{text}'")
        seen.add(dim)
        values[dim] = level
    if not seen:
        raise BehaviorError("empty behaviour: give dimension=level pairs, e.g. disclosure=incremental,patience=low")
    return Behavior(**values)


def load_persona(path: str | Path) -> Behavior:
    """The behaviour a persona file sets (JSON, or TOML by its .toml suffix); dimensions it leaves out keep
    their defaults. `name` and `description` may be there too (for people; not used here)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BehaviorError(f"{p}: cannot read the persona file ({getattr(e, 'strerror', None) or e})") from None
    import tomllib  # only for a persona file

    try:
        data: Any = tomllib.loads(text) if p.suffix.lower() == ".toml" else json.loads(text)
    except ValueError as e:  # TOMLDecodeError is one
        kind = "TOML" if p.suffix.lower() == ".toml" else "JSON"
        raise BehaviorError(f"{p}: not a {kind} persona file ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise BehaviorError(f"{p}: a persona file holds an object with the dimensions {', '.join(LEVELS)}")
    inner = data.get("behavior")
    dims = dict(inner) if isinstance(inner, dict) else {}
    dims.update({k: v for k, v in data.items() if k in LEVELS})
    unknown = [k for k in data if k not in LEVELS and k not in _PERSONA_EXTRA]
    if unknown:
        raise BehaviorError(f"{p}: unknown persona key '{unknown[0]}' (keys: {', '.join((*LEVELS, 'name', 'description'))})")
    try:
        return Behavior.from_json(dims)
    except BehaviorError as e:
        raise BehaviorError(f"{p}: {e}") from None


def resolve_behavior(text: str | None, persona: str | Path | None) -> Behavior | None:
    """What `--behavior` and `--persona` together ask for (the flag wins over the file); None for neither."""
    if text is None and persona is None:
        return None
    base = load_persona(persona) if persona is not None else Behavior()
    return parse_behavior(text, base) if text is not None else base


def behavior_from_description(desc: Mapping[str, Any]) -> Behavior | None:
    """The behaviour saved in a participant description, None when it has none."""
    raw = desc.get("behavior")
    if not raw:
        return None
    if isinstance(raw, str):
        return parse_behavior(raw)
    if isinstance(raw, Mapping):
        return Behavior.from_json(raw)
    raise BehaviorError(f"a saved behaviour is a mapping or text, not {type(raw).__name__}")


def with_behavior(desc: dict[str, Any], behavior: Behavior | None) -> dict[str, Any]:
    """A participant description with the behaviour saved in it (unchanged without one)."""
    return {**desc, "behavior": behavior.to_json()} if behavior is not None else desc


def behavior_key(raw: Any) -> str:
    """A user behaviour (issue 18) as one word: `dimension=level,...` of the levels that are not the default for a
    mapping ("default" when all are), the text itself for a string, "none" when the user had none. `raw`: the
    JSON text the database gives back, or a value (the statistics and `tauplay run` key a behaviour alike)."""
    if raw is None or raw == "":
        return "none"
    value = raw
    if isinstance(raw, str) and raw[:1] in "{[\"":
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
    if isinstance(value, Mapping):
        # The flag's own order for the known dimensions, then any others by name; a dimension at its default
        # level is left out (every session saves all four), and all four at their defaults read "default".
        order = [d for d in BEHAVIOR_DIMENSIONS if d in value and value[d] != LEVELS[d][0]]
        order += sorted(k for k in value if k not in LEVELS)
        if not order:
            return "default" if value else "none"
        return ",".join(f"{k}={value[k]}" for k in order)
    if isinstance(value, list):
        return ",".join(map(str, value)) or "none"
    return str(value)


def low_patience_turns(emotion_patience: int) -> int:
    """With low patience a user gives up after this many replies without progress (about half its emotion's)."""
    return max(1, emotion_patience // 2)


# -- what a model user is told (tauplay's own words) ----------------------------------------------------

_TEXT = {
    ("disclosure", "comprehensive"): "Disclosure: tell the agent what you need and the details you have readily; "
                                     "you may give several facts in one message.",
    ("disclosure", "incremental"): "Disclosure: give one fact per message, and only when the agent asks for "
                                   "it; after your first request, wait for a question before telling more.",
    ("disclosure", "minimal"): "Disclosure: say as little as you can. Open with only the kind of help you need, "
                               "then give each fact (an id, a date, a choice) only when the agent asks for that "
                               "very fact; never volunteer anything.",
    ("patience", "high"): "Patience: you give the agent time; detours and questions are fine.",
    ("patience", "low"): "Patience: little. Keep your messages short. If a few replies go by without progress, "
                         "say you are about to leave, and if it goes on, end the conversation.",
    ("cooperation", "cooperative"): "Cooperation: you work with the agent and accept reasonable answers.",
    ("cooperation", "adversarial"): "Cooperation: adversarial. Dispute the agent's first proposal and make it "
                                    "justify itself, change your mind once (staying within your task) and test "
                                    "whether it really checks the policy, but in the end want what your task says.",
    ("precision", "precise"): "Precision: every detail you give is exact.",
    ("precision", "error_prone"): "Precision: error-prone. Get one detail wrong the first time you give it (a "
                                  "digit of an id or a number) and correct it in a later message.",
}


def instructions(behavior: Behavior) -> str:
    """The behaviour part of a model user's instructions: one line per dimension."""
    return "\n".join(_TEXT[(d, behavior.level(d))] for d in LEVELS)


_CARD = {"comprehensive": "tell readily", "incremental": "one fact per turn, when asked",
         "minimal": "only what is asked", "high": "patient", "low": "impatient: short, may leave",
         "cooperative": "cooperative", "adversarial": "dispute, waver, test the agent",
         "precise": "precise", "error_prone": "get one detail wrong, correct it later"}


def card_line(behavior: Behavior) -> str:
    """One line for a person who plays this user."""
    return "Behave: " + " · ".join(_CARD[behavior.level(d)] for d in LEVELS)
