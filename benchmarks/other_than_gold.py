"""A property of the gated agent, checked on the shipped starter tasks: a person who asks for something else than the
task's gold (another record of theirs, another of their payment methods, another of a write's options) is never
met with the gold's value. The agent may act on what was asked (a write with the other value), ask, or decline;
it must never propose nor make the write with the gold's value, nor say the gold's answer for another record.

The person is the scripted user (`ScriptedUser`), with every way it says the gold's value (the id, what a tool
showed it to be, the last four digits of a card, the everyday words for an option) said about the other value
instead; to a proposal that shows the gold's value it says no, naming the other. One run per (task, varied value):
the first write argument (or, for a task that only looks up, the first record read) that has another value to
vary to.

    python benchmarks/other_than_gold.py [DOMAIN ...] [--show]   # default: every domain with a starter set
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from tauplay.core.domain import Domain, get_domain, installed_domains
from tauplay.core.environment import Environment
from tauplay.core.events import MessageData, ToolCallData
from tauplay.core.grounding import leaves, normalize
from tauplay.core.tasks import Task, load_tasks
from tauplay.sim.action_words import described_id
from tauplay.sim.gated import GatedAgent, param_schema
from tauplay.sim.orchestrator import Limits, Orchestrator, Outcome
from tauplay.sim.participants import Conversation, UserReply
from tauplay.sim.person_choices import question_for
from tauplay.sim.scripted_user import ScriptedUser


@dataclass(frozen=True)
class Variation:
    """The gold's value at one place of one gold action, and the other value the person asks for instead."""

    kind: str  # record / payment / option
    action: int  # the gold action's index
    path: tuple[str | int, ...]
    gold: Any
    other: Any


@dataclass
class Finding:
    domain: str
    task: str
    variation: Variation
    verdict: str  # acted_on_other / asked_or_declined / proposed_gold / wrote_gold / said_gold
    detail: str = ""
    events: list[Any] = field(default_factory=list)


def _rows(env: Environment, table: str) -> dict[str, Any]:
    return {str(k): v for k, v in env.state.rows(table)} if table in env.state.table_names() else {}


def _owner(env: Environment, domain: Domain, task: Task) -> dict[str, Any] | None:
    """The user record the task is about (its identity argument, or the owner of a record a gold action names)."""
    users = _rows(env, "users")
    for action in task.actions:
        for leaf in leaves(action.kwargs):
            if isinstance(leaf.value, str) and leaf.value in users:
                return dict(users[leaf.value])
            for table in domain.tables:
                row = _rows(env, table.name).get(leaf.value) if isinstance(leaf.value, str) else None
                if isinstance(row, dict) and isinstance(row.get("user_id"), str) and row["user_id"] in users:
                    return dict(users[row["user_id"]])
    return None


def variations(domain: Domain, env: Environment, task: Task) -> list[Variation]:
    """One variation of each kind the task allows (the first place it can be made)."""
    owner = _owner(env, domain, task)
    found: dict[str, Variation] = {}
    keys = {t.key: t.name for t in domain.tables if t.key != domain.identity_argument}
    writes = [i for i, a in enumerate(task.actions) if (s := domain.tool_map.get(a.name)) is not None
              and s.is_write and not s.terminal and a.requestor != "user"]
    reads = [i for i, a in enumerate(task.actions) if (s := domain.tool_map.get(a.name)) is not None
             and not s.is_write and a.requestor != "user"]
    used = {str(v) for a in task.actions for v in _scalars(a.kwargs)}  # another value is none the gold uses
    for i in writes or reads:
        action = task.actions[i]
        spec = domain.tool_map[action.name]
        for leaf in leaves(action.kwargs):
            name = str(leaf.name)
            if name in keys and "record" not in found and owner is not None:
                listed = owner.get(keys[name])
                mine = list(listed) if isinstance(listed, list | dict) else []
                other = next((r for r in mine if str(r) not in used), None)
                if other is not None:
                    found["record"] = Variation("record", i, leaf.path, leaf.value, other)
            elif spec.is_write and "payment" in name and "payment" not in found and owner is not None \
                    and isinstance(leaf.value, str):
                methods = owner.get("payment_methods")
                other = next((m for m in (methods or {}) if m not in used), None)
                if other is not None:
                    found["payment"] = Variation("payment", i, leaf.path, leaf.value, other)
            elif spec.is_write and "option" not in found and question_for(leaf) is None:
                options = param_schema(spec, leaf.path).get("enum") or []
                other = next((o for o in options if o != leaf.value), None)
                if other is not None and leaf.value in options:
                    found["option"] = Variation("option", i, leaf.path, leaf.value, other)
    return list(found.values())


def _scalars(value: Any) -> list[Any]:
    return [leaf.value for leaf in leaves(value)]


def _forms(domain: Domain, value: Any, profile: str) -> list[str]:
    """The ways a person says this value: itself, what the profile shows it to be, a card's last four digits, the
    domain's everyday words for an option."""
    out = [str(value)]
    if (shown := described_id(str(value), [profile])) is not None:
        out.append(shown)
        out += re.findall(r"\b\d{4}\b", shown)
    out += list(domain.value_words.get(str(value), ()))
    return [f for f in dict.fromkeys(out) if f]


class ContraryUser(ScriptedUser):
    """The scripted person, who wants the other value where the task has the gold one."""

    def __init__(self, domain: Domain, variation: Variation, profile: str) -> None:
        super().__init__()
        self.v = variation
        self.gold_forms = _forms(domain, variation.gold, profile)
        self.other_forms = _forms(domain, variation.other, profile)
        self.said_other = str(self.other_forms[1] if len(self.other_forms) > 1 else variation.other)

    def _swap(self, text: str) -> str:
        for form in sorted(self.gold_forms, key=len, reverse=True):
            if self.v.kind == "option" and form != str(self.v.gold):
                # an everyday phrase of the gold option: the sentence says the other option instead
                if form.lower() in text.lower():
                    return re.sub(rf"[^.!?]*{re.escape(form)}[^.!?]*[.!?]?", f" The reason is {self.v.other}.",
                                  text, count=1, flags=re.IGNORECASE).strip()
                continue
            other = self.other_forms[min(self.gold_forms.index(form), len(self.other_forms) - 1)]
            text = re.sub(re.escape(form), other, text, flags=re.IGNORECASE)
        return text

    async def respond(self, conversation: Conversation) -> UserReply:
        last = conversation.last_said("agent")
        if last is not None and last.intent == "confirm" and self.proposes_gold(last.content):
            return UserReply(f"No, that is not what I asked for: I want {self.said_other}.", "correct")
        reply = await super().respond(conversation)
        return UserReply(self._swap(reply.text), reply.intent, reply.usage, reply.calls, reply.invalid)

    def proposes_gold(self, text: str) -> bool:
        said = normalize(text)
        return any(len(f) >= 4 and f" {normalize(f)} " in f" {said} " for f in self.gold_forms)


def _profile(env: Environment, domain: Domain, task: Task) -> str:
    owner = _owner(env, domain, task)
    return json.dumps(owner or {})


async def check(domain: Domain, task: Task, variation: Variation, steps: int = 40) -> Finding:
    env = Environment(domain, domain.database())
    profile = _profile(env, domain, task)
    user = ContraryUser(domain, variation, profile)
    conversation = Conversation(domain, task, env, task.emotion)
    out: Outcome = await Orchestrator(GatedAgent(), user, conversation, limits=Limits(max_steps=steps)).run()
    return judge(domain, task, variation, user, out)


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def judge(domain: Domain, task: Task, v: Variation, user: ContraryUser, out: Outcome) -> Finding:
    gold = task.actions[v.action]
    said_other = [i for i, e in enumerate(out.events) if e.kind == "message" and e.role == "user"
                  and any(f" {normalize(f)} " in f" {normalize(e.data['content'])} " for f in user.other_forms)]
    start = said_other[0] if said_other else len(out.events)
    f = Finding(domain.name, task.id, v, "asked_or_declined", events=out.events)
    for i, e in enumerate(out.events):
        if e.role != "agent" or i < start:
            continue
        if e.kind == "tool_call":
            call = e.as_(ToolCallData)
            spec = domain.tool_map.get(call.name)
            if call.name == gold.name and spec is not None and spec.is_write:
                value = _at(call.arguments, v.path)
                if value == v.gold:
                    return Finding(domain.name, task.id, v, "wrote_gold", f"{call.name}({call.arguments})", out.events)
                if value == v.other:
                    f = Finding(domain.name, task.id, v, "acted_on_other", call.name, out.events)
        elif e.kind == "message":
            m = e.as_(MessageData)
            if m.intent == "confirm" and gold.name.replace("_", " ") in m.content and user.proposes_gold(m.content):
                return Finding(domain.name, task.id, v, "proposed_gold", m.content[:240], out.events)
            if v.kind == "record" and not domain.tool_map[gold.name].is_write and any(
                    str(o) == str(v.gold) for o in task.outputs) and str(v.gold) in m.content:
                return Finding(domain.name, task.id, v, "said_gold", m.content[:240], out.events)
    return f


LEAKS = ("proposed_gold", "wrote_gold", "said_gold")


async def run(domains: list[str]) -> list[Finding]:
    findings = []
    for name in domains:
        domain = get_domain(name)
        for task in load_tasks(domain.task_set_path("starter"), domain.name).tasks:
            env = Environment(domain, domain.database())
            for variation in variations(domain, env, task):
                findings.append(await check(domain, task, variation))
    return findings


def _show(events: list[Any]) -> None:
    for e in events:
        if e.kind == "message":
            print(f"      {e.role}: {e.data.get('content', '')[:220]}")
        elif e.kind == "tool_call" and e.role == "agent":
            print(f"      CALL {e.data['name']}({json.dumps(e.data['arguments'])[:160]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domains", nargs="*")
    parser.add_argument("--show", action="store_true", help="print the transcript of each leak")
    args = parser.parse_args(argv)
    names = args.domains or sorted(n for n in installed_domains() if "starter" in get_domain(n).task_sets)
    unknown = [n for n in names if n not in installed_domains()]
    if unknown:
        print(f"unknown domain: {', '.join(unknown)}", file=sys.stderr)
        return 2
    findings = asyncio.run(run(names))
    print(f"{'domain':<11} {'runs':>5} {'acted on other':>15} {'asked/declined':>15} {'leaks':>6}")
    for name in names:
        mine = [f for f in findings if f.domain == name]
        leaks = [f for f in mine if f.verdict in LEAKS]
        print(f"{name:<11} {len(mine):>5} {sum(f.verdict == 'acted_on_other' for f in mine):>15} "
              f"{sum(f.verdict == 'asked_or_declined' for f in mine):>15} {len(leaks):>6}")
        for f in leaks:
            v = f.variation
            print(f"    {f.task} [{v.kind} {'/'.join(map(str, v.path))}: asked {v.other!r}, gold {v.gold!r}] "
                  f"{f.verdict}: {f.detail[:160]}")
            if args.show:
                _show(f.events)
    return 0


if __name__ == "__main__":
    sys.exit(main())
