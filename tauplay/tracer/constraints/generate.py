"""Constraint-task generation (`tauplay generate --kind constraint`).

Each task slot draws problems from the domain's constraint model (a plan the database offers, and rules
built around it), each from its own seeded generator (seed, slot, attempt), and keeps the first whose
solutions number within the asked range. The solver enumerates the solutions; the gold actions book one of
them; distractors are options that break exactly one rule (found by the solver with that rule negated),
saved with the rule they break. Before a task is kept, its gold end state must meet the constraints and
every distractor must execute and fail them. The instruction states the rules in the user's words (an
offline template; with a model, the model rewrites it and the rewrite must keep every stated value).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from tauplay.core.constraints import ConstraintModel, Draft, Placed, Problem, Rule
from tauplay.core.db import Database, canonical
from tauplay.core.domain import Domain
from tauplay.core.evaluation import check_state
from tauplay.core.gold import run_actions
from tauplay.core.tasks import Action, Task, TaskSet
from tauplay.tracer.constraints.solve import (
    Assignment,
    Space,
    build_space,
    count_solutions,
    near_misses,
    solutions,
)
from tauplay.tracer.emotion import BALANCED, Distribution, condition_for, quotas, resolve_weights
from tauplay.tracer.facts import Fact, fact, missing, tool_names_in
from tauplay.tracer.hints import hints_for
from tauplay.tracer.instruct import clean_reply, sentence

GENERATOR = "tauplay.constraints/1"
CLOSING = ("Any option that meets all of this is fine with you; if several do, take the one the agent offers. "
           "Ask for the total before you agree. Give details when the agent asks for them.")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ConstraintSettings:
    n: int
    seed: int
    emotions: Distribution = BALANCED  # weights per family, BALANCED (the domain's families) or None (no emotion)
    model: Any = None  # tauplay.llm.LLMConfig: the model rewrites the instructions; None: offline template
    solutions: tuple[int, int] = (2, 16)  # the number of valid solutions a task may have
    distractors: int = 2  # near misses kept per rule
    saved_cap: int = 20  # near misses saved per task at most (a 5-entity task has 25 rules): one per rule first
    placed: int = 3  # distractors placed in the task's start database (records the agent's searches find), at most
    entities: tuple[int, int] | None = None  # entities per task, drawn MIN-MAX per task; None: the domain's range
    near_miss_cap: int = 20_000  # near misses counted per rule at most (the count is a statistic)
    attempts: int = 200
    concurrency: int = 8
    keep_invalid: bool = False  # keep tasks the audit finds an error in, marked (provenance "findings")

    def __post_init__(self) -> None:
        lo, hi = self.solutions
        if self.n < 1:
            raise ValueError("n must be at least 1")
        if lo < 1 or hi < lo:
            raise ValueError(f"solutions range {lo}-{hi} is not MIN-MAX with 1 <= MIN <= MAX")
        if self.entities is not None and not 1 <= self.entities[0] <= self.entities[1]:
            raise ValueError(f"entities range {self.entities[0]}-{self.entities[1]} is not MIN-MAX with "
                             "1 <= MIN <= MAX")


@dataclass
class Built:
    task: Task
    space_size: int
    solutions: int
    near_misses: int
    seconds: float
    entities: int = 0
    placed: list[Placed] = field(default_factory=list)

    def placed_json(self) -> list[dict[str, Any]]:
        """Each placed distractor: its record, the stay it is an option for, the rule it breaks (and its words)."""
        texts = {r["id"]: r.get("text", "") for r in (self.task.constraints or {}).get("rules", [])}
        return [{"record": p.ref, "entity": p.entity, "option": p.option, "violates": p.violates,
                 "rule": texts.get(p.violates, "")} for p in self.placed]


@dataclass
class ConstraintReport:
    requested: int
    accepted: int = 0
    drafts: int = 0
    drops: Counter[str] = field(default_factory=Counter)
    fallbacks: Counter[str] = field(default_factory=Counter)
    audit: Counter[str] = field(default_factory=Counter)  # tasks with an error finding, per check
    kept_invalid: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"requested": self.requested, "accepted": self.accepted, "drafts": self.drafts,
                "drops": dict(sorted(self.drops.items())), "model_fallbacks": dict(sorted(self.fallbacks.items())),
                **({"audit": self.audit_json()} if self.audit else {})}  # only when it found something

    def audit_json(self) -> dict[str, Any]:
        return {"by_check": dict(sorted(self.audit.items())), "kept_invalid": self.kept_invalid}

    def render(self) -> str:
        lines = [f"accepted {self.accepted}/{self.requested} constraint tasks from {self.drafts} drafts"]
        lines += [f"  {n:>6}  dropped: {reason}" for reason, n in self.drops.most_common()]
        lines += [f"  {n:>6}  model reply refused (template kept): {reason}" for reason, n in self.fallbacks.most_common()]
        what = f"kept, marked invalid: {self.kept_invalid}" if self.kept_invalid else "dropped"
        lines += [f"  {n:>6}  audit error ({what}): {check}" for check, n in self.audit.most_common()]
        return "\n".join(lines)


@dataclass
class ConstraintResult:
    tasks: TaskSet
    report: ConstraintReport
    built: list[Built]

    @property
    def complete(self) -> bool:
        return self.report.accepted == self.report.requested


@dataclass(frozen=True)
class _Records:
    """What `Domain.start_for` reads of a task, before the task exists: the records it will place."""

    start_records: dict[str, dict[str, Any]]


def _with_placed(model: ConstraintModel, database: Database, space: Space,
                 records: dict[str, dict[str, Any]]) -> Space:
    """The space of the task's start state: the base options plus those the placed records offer, looked for
    over the base with only the placed records in their tables (placed records have new ids, so they add
    options and change none; `tauplay solutions` builds the space of the whole start state, a full check)."""
    only = Database({**database.tables, **records}, source="placed records")
    added = build_space(model, only, space.problem).options
    return Space(space.problem, {name: {**space.options[name], **added[name]} for name in space.options})


def _trimmed(chosen: list[tuple[Assignment, str, str]], cap: int) -> list[tuple[Assignment, str, str]]:
    """At most `cap` of the drawn near misses: the first of each rule, then the second of each, in rule order
    (a problem with few rules keeps them all, as drawn)."""
    if len(chosen) <= cap:
        return chosen
    rank: dict[str, int] = {}
    ranked = []
    for i, item in enumerate(chosen):
        rank[item[1]] = rank.get(item[1], -1) + 1
        ranked.append((rank[item[1]], i, item))
    keep = sorted(sorted(ranked, key=lambda r: (r[0], r[1]))[:cap], key=lambda r: r[1])
    return [item for _, _, item in keep]


def _group(problem: Problem, rule: Rule) -> tuple[int, int]:
    """Where a rule is said: with its (last) entity; a sum over entities at the end."""
    names = [e.name for e in problem.entities]
    if rule.kind == "sum_max":
        return len(names), 0
    return max(names.index(n) for n in rule.entities), 0 if len(rule.entities) == 1 else 1


def compose(draft: Draft) -> str:
    """The offline instruction: who the user is and what they want, every rule in its words (grouped by the
    entity it is about), the fixed choices, and that any option meeting them all will do."""
    problem = draft.problem
    rules = sorted(problem.rules, key=lambda r: _group(problem, r))
    said = " ".join(sentence(r.text) for r in rules if r.text)
    return " ".join(p for p in (draft.opening, said, draft.tail, CLOSING) if p)


def model_of(domain: Domain) -> ConstraintModel:
    model = domain.constraints
    if not isinstance(model, ConstraintModel):
        raise ValueError(f"domain '{domain.name}' has no constraint tasks (no constraint model)")
    return model


class ConstraintGenerator:
    def __init__(self, domain: Domain, database: Database, settings: ConstraintSettings) -> None:
        self.domain = domain
        self.database = database
        # Within the domain's own families (EmotionError, a ValueError, names them): the provenance records these.
        self.weights = resolve_weights(settings.emotions, domain.emotions)
        settings = replace(settings, emotions=self.weights)
        self.settings = settings
        self.model = model_of(domain)
        self.hints = hints_for(domain)
        self.report = ConstraintReport(settings.n)
        self.families = quotas(self.weights, settings.n, random.Random(f"constraints:{settings.seed}:families"))
        width = max(3, len(str(settings.n)))
        self.ids = [f"{domain.name}-c{settings.seed}-{i + 1:0{width}d}" for i in range(settings.n)]
        self.tool_names = [t.name for t in domain.tools]
        self._seen: set[str] = set()
        lo, hi = settings.entities or self.model.entity_counts
        self.entity_range = (lo, hi)

    def entity_count(self, slot: int, attempt: int) -> int:
        """How many entities this draft has: drawn in the range with its own generator, so a domain with one
        count draws nothing and its tasks stay as they were."""
        lo, hi = self.entity_range
        return lo if lo == hi else random.Random(f"constraints:{self.settings.seed}:{slot}:{attempt}:entities").randint(lo, hi)

    def build(self, slot: int, attempt: int) -> Built | None:
        clock = time.perf_counter()
        rng = random.Random(f"constraints:{self.settings.seed}:{slot}:{attempt}")
        self.report.drafts += 1
        entities = self.entity_count(slot, attempt)
        draft = self.model.draft(self.database, rng, n_entities=entities)
        if draft is None:
            self.report.drops["the draw found no plan the database offers"] += 1
            return None
        space = build_space(self.model, self.database, draft.problem)
        lo, hi = self.settings.solutions
        extra = list(draft.extra)
        # Counted up to one past the most asked for: with several entities a loose problem has millions.
        while count_solutions(space, hi + 1) > hi and extra:  # tighten with the draft's further wishes, in order
            problem = draft.problem
            space = Space(Problem(problem.context, problem.entities, (*problem.rules, extra.pop(0))), space.options,
                          space.memo)
            draft = replace(draft, problem=space.problem)
        found = solutions(space) if count_solutions(space, hi + 1) <= hi else []
        if not found and count_solutions(space, 1):
            self.report.drops["too many solutions"] += 1
            return None
        if not lo <= len(found) <= hi:
            self.report.drops["fewer solutions than asked" if len(found) < lo else "too many solutions"] += 1
            return None
        key = canonical(draft.problem.to_json())
        if key in self._seen:
            self.report.drops["same problem as an earlier task"] += 1
            return None
        gold = rng.choice(found)
        placed = self.model.place(self.database, draft.problem, space.options, gold, rng, self.settings.placed)
        records: dict[str, dict[str, Any]] = {}
        for p in placed:
            records.setdefault(p.table, {})[p.key] = p.record
        start = self.domain.start_for(self.database, _Records(records))
        if placed:  # solved again where the agent will be: the records must add no valid solution
            space = _with_placed(self.model, self.database, space, records)
            if solutions(space) != found:
                self.report.drops["a placed distractor is a valid solution"] += 1
                return None
        distractors, counted = self._distractors(space, rng)
        distractors += [({**gold, p.entity: p.option}, p.violates, p.ref) for p in placed]
        problem_problem = self._self_check(start, draft.problem, gold, distractors)
        if problem_problem:
            self.report.drops[problem_problem] += 1
            return None
        task = self._task(start, slot, attempt, draft, gold, distractors, rng, space.size, len(found), counted)
        task.start_records = records
        task.provenance["entities"] = len(draft.problem.entities)
        if not self._audit(task):
            return None
        self._seen.add(key)
        return Built(task, space.size, len(found), counted, time.perf_counter() - clock,
                     len(draft.problem.entities), placed)

    def _audit(self, task: Task) -> bool:
        """The same audit as `tauplay verify`: findings go into the task's provenance; a task with an error
        finding is dropped (counted per check) unless keep_invalid keeps it marked."""
        from tauplay.core.audit import audit_task
        from tauplay.core.findings import ERROR

        audit = audit_task(self.domain, self.database, task)
        if audit.findings:
            task.provenance["findings"] = [f.to_json() for f in audit.findings]
        errors = sorted({f.check for f in audit.findings if f.severity == ERROR})
        self.report.audit.update(errors)
        if not errors:
            return True
        if self.settings.keep_invalid:
            self.report.kept_invalid += 1
            return True
        self.report.drops[f"audit: {errors[0]}"] += 1
        return False

    def _distractors(self, space: Space, rng: random.Random) -> tuple[list[tuple[Assignment, str, str]], int]:
        """Up to `distractors` near misses per rule, drawn from the first thousand the solver gives, and
        how many near misses there are in all (counted up to the cap per rule)."""
        chosen: list[tuple[Assignment, str, str]] = []
        total = 0
        for rule in space.problem.rules:
            pool: list[Assignment] = []
            for i, miss in enumerate(near_misses(space, rule)):
                if i < 1000:
                    pool.append(miss)
                total += 1
                if i + 1 >= self.settings.near_miss_cap:
                    break
            for miss in rng.sample(pool, min(self.settings.distractors, len(pool))):
                chosen.append((miss, rule.id, ""))
        return _trimmed(chosen, self.settings.saved_cap), total

    def actions_for(self, problem: Problem, assignment: Assignment, database: Database | None = None) -> list[Action]:
        return self.model.actions(database or self.database, problem,
                                  [(e, assignment[e.name]) for e in problem.entities])

    def _self_check(self, start: Database, problem: Problem, gold: Assignment,
                    distractors: list[tuple[Assignment, str, str]]) -> str:
        """'' when, on the task's start state, the gold end state meets the rules and every distractor executes
        and fails exactly the rule it is saved with."""
        run = run_actions(self.domain, start, self.actions_for(problem, gold))
        if not run.executed or not check_state(self.domain, start, run.state, problem).met:
            return "the gold solution does not meet its own constraints"
        for miss, rule_id, _ in distractors:
            run = run_actions(self.domain, start, self.actions_for(problem, miss, start))
            if not run.executed:
                return "a distractor cannot be executed"
            check = check_state(self.domain, start, run.state, problem)
            if check.met or {f.constraint for f in check.failures} != {rule_id}:
                return "a distractor is not caught by the rule it breaks alone"
        return ""

    def _task(self, start: Database, slot: int, attempt: int, draft: Draft, gold: Assignment,
              distractors: list[tuple[Assignment, str, str]], rng: random.Random, size: int, count: int,
              near: int) -> Task:
        family = self.families[slot]
        emotion = condition_for(family, None, self.hints, rng, (draft.situation, draft.subject, draft.slots),
                                self.domain.emotions) \
            if family else None
        return Task(
            id=self.ids[slot],
            domain=self.domain.name,
            instruction=compose(draft),
            actions=self.actions_for(draft.problem, gold),
            user_id=draft.user_id,
            known_info=dict(draft.known_info),
            emotion=emotion,
            provenance={"generator": GENERATOR, "seed": self.settings.seed, "slot": slot, "attempt": attempt,
                        "instruction_by": "template", "candidate_space": size, "solutions": count,
                        "near_misses": near, "near_miss_cap_per_rule": self.settings.near_miss_cap},
            difficulty=len(draft.problem.rules),
            constraints=draft.problem.to_json(),
            distractors=[{"actions": [a.to_json() for a in self.actions_for(draft.problem, miss, start)],
                          "violates": rule_id,
                          **({"record": ref} if ref else {})}
                         for miss, rule_id, ref in distractors],
        )

    # -- the model path ------------------------------------------------------------------------------------
    def facts(self, task: Task) -> list[Fact]:
        """What a rewrite must keep: the user's email or id and every value a rule states, in the words the
        template used (a value the template does not spell out, such as a cabin's rank, is not asked for)."""
        out = [fact(k, task.known_info[k]) for k in ("email", "user_id") if task.known_info.get(k)]
        for rule in (task.constraints or {}).get("rules", []):
            value = rule.get("value")
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str | int | float) and not isinstance(v, bool):
                    forms = (f"{v:,}", f"${v:,}") if isinstance(v, int) and v >= 1000 else ()
                    out.append(fact(rule["field"], v, *forms))
        return [f for f in out if f.found_in(task.instruction)]  # called before the rewrite replaces it

    async def refine(self, tasks: list[Task]) -> None:
        from tauplay.llm import LLMError, complete

        gate = asyncio.Semaphore(max(1, self.settings.concurrency))
        system = ("You rewrite task cards for people and simulators who play a customer contacting "
                  f"{self.domain.title}. Rewrite the card as a natural second-person instruction. Keep every "
                  "requirement and every value exactly as written (names, email, dates, numbers, amounts); keep "
                  "that any option meeting all requirements is acceptable. Never name tools or the database. "
                  "Reply with the card only.")

        async def one(task: Task) -> None:
            async with gate:
                try:
                    reply = await complete(self.settings.model, [{"role": "system", "content": system},
                                                                 {"role": "user", "content": task.instruction}])
                except LLMError as e:
                    self._fallback(task, f"model call failed ({e.kind})")
                    return
            text = clean_reply(reply.content)
            lost = missing(text, self.facts(task)) if text else []
            if not text:
                self._fallback(task, "reply is empty")
            elif tool_names_in(text, self.tool_names):
                self._fallback(task, "reply names a tool")
            elif lost:
                self._fallback(task, "reply drops a stated value: " + ", ".join(f.label for f in lost[:3]))
            else:
                task.instruction = text
                task.provenance["instruction_by"] = "model"

        await asyncio.gather(*(one(t) for t in tasks))

    def _fallback(self, task: Task, reason: str) -> None:
        self.report.fallbacks[reason.split(":")[0]] += 1
        task.provenance["model_fallback"] = reason

    # -- the loop --------------------------------------------------------------------------------------------
    def run(self, progress: Progress | None = None) -> ConstraintResult:
        built: list[Built] = []
        for slot in range(self.settings.n):
            for attempt in range(self.settings.attempts):
                one = self.build(slot, attempt)
                if one is not None:
                    built.append(one)
                    self.report.accepted += 1
                    if progress:
                        progress(len(built), self.settings.n)
                    break
        tasks = [b.task for b in built]
        if self.settings.model is not None and tasks:
            asyncio.run(self.refine(tasks))
        return ConstraintResult(TaskSet(self.domain.name, tasks, "", self.provenance()), self.report, built)

    def provenance(self) -> dict[str, Any]:
        s = self.settings
        return {"generator": GENERATOR, "kind": "constraint", "seed": s.seed, "n": s.n,
                "solutions": f"{s.solutions[0]}-{s.solutions[1]}", "distractors_per_rule": s.distractors,
                "entities": f"{self.entity_range[0]}-{self.entity_range[1]}", "placed_distractors": s.placed,
                "emotions": dict(self.weights) if self.weights is not None else "none",
                "instruction": s.model.describe() if s.model is not None else "offline templates",
                "database": self.database.source, "start_hash": self.database.new_state().hash,
                "attempts_per_slot": s.attempts, "report": self.report.to_json()}
