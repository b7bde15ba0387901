"""What the `domains/<name>/make_starter.py` scripts share: their command line, the replay of every gold
action before anything is saved, and the words of an emotion condition in an instruction.

A script builds its hand-shaped task set from the generated database (default seed) and ends with
`sys.exit(starter.main(DOMAIN, build))`, which gives it this command line:

    python -m tauplay_domains.<name>.make_starter          # rewrite tasks/starter.json
    python -m tauplay_domains.<name>.make_starter --check  # only compare; exit 1 when the file is out of date
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tauplay.core.db import Database, State
from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import ToolResult
from tauplay.core.gold import run_actions
from tauplay.core.tasks import EMOTION_MARK, Action, TaskSet


def run_gold(domain: Domain, database: Database, actions: Sequence[Action], label: str) -> list[ToolResult]:
    """Runs `actions` in order on a fresh session over `database` and returns their results; a task being
    built must not err, so the first error raises RuntimeError naming `label` and the action."""
    run = run_actions(domain, database, actions, task_id=label)
    if run.error_step is not None:
        raise RuntimeError(f"{label}: {run.first_error}")
    return list(run.results)


def check_executes(domain: Domain, task_set: TaskSet) -> None:
    """Every gold action of every task runs without an error on the domain's start state."""
    database = domain.database()
    for task in task_set.tasks:
        run_gold(domain, database, task.actions, task.id)


def save_or_check(task_set: TaskSet, path: Path, check: bool) -> int:
    """Writes the task set to `path`, or with `check` only compares it with the file there (byte for byte).
    Returns the exit status: 1 when the check finds the file out of date."""
    text = task_set.dumps()
    if check:
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"{path} is up to date")
            return 0
        print(f"{path} is out of date: run python -m tauplay_domains.{task_set.domain}.make_starter", file=sys.stderr)
        return 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path} ({len(task_set.tasks)} tasks)")
    return 0


def main(domain: Domain, build: Callable[[], TaskSet], argv: list[str] | None = None) -> int:
    """The command line of a make_starter script: build, replay every task, then write or `--check`."""
    parser = argparse.ArgumentParser(prog=f"python -m tauplay_domains.{domain.name}.make_starter",
                                     description=f"Build the {domain.name} starter task set from the generated "
                                                 "database (default seed).")
    parser.add_argument("--check", action="store_true",
                        help="only compare with tasks/starter.json; exit 1 when it is out of date")
    args = parser.parse_args(argv)
    task_set = build()
    check_executes(domain, task_set)
    return save_or_check(task_set, domain.task_set_path("starter"), args.check)


class Picker:
    """The records of one table in a fixed order (by id, unless `order` gives a sort key), each used by one
    task at most, so that every task stands alone."""

    def __init__(self, state: State, table: str, order: Callable[[str], Any] | None = None) -> None:
        self.state, self.table, self.order = state, table, order
        self.used: set[str] = set()

    def first(self, where: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Any]:
        """The first unused record for which `where` gives something truthy, and that something; the record
        counts as used from then on."""
        for key in sorted((k for k, _ in self.state.rows(self.table)), key=self.order):
            record = self.state.get(self.table, key)
            if key in self.used or record is None:
                continue
            found = where(record)
            if found:
                self.used.add(key)
                return record, found
        raise LookupError(f"no record of {self.table} fits")


# -- the emotion condition in words --------------------------------------------------------------

def emotion(family: str, leaf: str, trigger: str, intensity: str = "moderate", politeness: str = "neutral",
            urgency: str = "moderate", trust: str = "cautious") -> EmotionCondition:
    """An emotion condition with the trigger up front and the usual middle values as defaults."""
    return EmotionCondition(family, leaf, intensity, politeness, urgency, trust, trigger)


@dataclass(frozen=True)
class EmotionWording:
    """How a domain's starter tasks put an emotion condition into words after the `Emotion Instruction:`
    mark: the feeling (a template over the condition's fields), then one sentence each for its
    politeness, urgency and trust."""

    politeness: dict[str, str]
    urgency: dict[str, str]
    trust: dict[str, str]
    feeling: str = "You feel {intensity} {leaf} ({family}) because you are {trigger}."

    def text(self, e: EmotionCondition) -> str:
        return (f"{self.feeling.format(**asdict(e))} {self.politeness[e.politeness]} {self.urgency[e.urgency]} "
                f"{self.trust[e.trust]}")

    def instruction(self, goal: str, e: EmotionCondition) -> str:
        """The whole instruction: what the user wants, then how they feel."""
        return f"{goal}\n\n{EMOTION_MARK} {self.text(e)}"


# A customer talking to a service agent, in plain words (bank and retail).
PLAIN = EmotionWording(
    politeness={"cold": "Keep your messages curt and unfriendly.", "neutral": "Keep a plain, matter-of-fact tone.",
                "warm": "Stay courteous and friendly."},
    urgency={"low": "You are in no hurry.", "moderate": "You would like this sorted today.",
             "high": "You need this done right now and say so."},
    trust={"skeptical": "You doubt what the agent tells you and ask for specifics.",
           "cautious": "You accept the agent's answers once they are explained.",
           "trusting": "You take the agent at their word."},
)
