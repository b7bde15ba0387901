"""The Tracer pipeline: stages 2 to 5 over a domain's dependency graph (stage 1, `ToolGraph`).

Each of the `n` task slots has a depth tier and an emotion family fixed up front (so the set holds
the tiers and the distribution asked for). A slot draws candidates, each from its own seeded random
generator (`seed`, slot, attempt), until one passes every filter or its attempts run out; so the same
seed gives the same task set. Slots are judged in order, which keeps the duplicate check deterministic.
With a model, stage 3 asks it to rewrite each round's drafts concurrently before the filters run.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tauplay.core.db import Database
from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionError
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet
from tauplay.tracer.emotion import BALANCED, Distribution, condition_for, quotas, resolve_weights
from tauplay.tracer.hints import TracerHints, hints_for
from tauplay.tracer.instruct import clean_reply, compose, facts_of, known_info, problems, prompt
from tauplay.tracer.report import Report
from tauplay.tracer.sample import Sampler
from tauplay.tracer.trace import Skip, Trace
from tauplay.tracer.verify import Candidate, Filters

GENERATOR = "tauplay.tracer/1"
Progress = Callable[[int, int], None]  # (accepted so far, requested)


@dataclass(frozen=True)
class Settings:
    n: int
    seed: int
    depth: tuple[int, int] = (1, 4)
    emotions: Distribution = BALANCED  # weights per family, BALANCED (the domain's families) or None (no emotion)
    model: Any = None  # tauplay.llm.LLMConfig for stage 3 through a model; None: offline templates
    concurrency: int = 8
    attempts: int = 60  # candidates per slot before the slot is given up
    id_prefix: str = ""
    keep_invalid: bool = False  # keep tasks the audit finds an error in, marked (provenance "findings")

    def __post_init__(self) -> None:
        lo, hi = self.depth
        if self.n < 1:
            raise ValueError("n must be at least 1")
        if lo < 0 or hi < lo:
            raise ValueError(f"depth range {lo}-{hi} is not MIN-MAX with 0 <= MIN <= MAX")

    def depth_of(self, slot: int, tiers: tuple[int, ...] | None = None) -> int:
        """Tiers of (nearly) equal size, easiest first: every depth of the range, or the domain's `tiers`
        that lie in it."""
        lo, hi = self.depth
        if tiers is not None:
            inside = tiers_in(self.depth, tiers)
            return inside[slot * len(inside) // self.n]
        return lo + slot * (hi - lo + 1) // self.n


def tiers_in(depth: tuple[int, int], tiers: tuple[int, ...]) -> list[int]:
    """The tiers within a MIN-MAX range; ValueError naming the tiers when there is none."""
    inside = [t for t in tiers if depth[0] <= t <= depth[1]]
    if not inside:
        raise ValueError(f"no difficulty tier in {depth[0]}-{depth[1]} (tiers: {', '.join(map(str, tiers))})")
    return inside


@dataclass
class Result:
    tasks: TaskSet
    report: Report
    candidates: list[Candidate]

    @property
    def complete(self) -> bool:
        return self.report.accepted == self.report.requested


class Tracer:
    STAGE_CLOCKS = ("sample", "instruct+emotion", "model", "verify")

    def __init__(self, domain: Domain, database: Database, settings: Settings,
                 hints: TracerHints | None = None) -> None:
        self.domain = domain
        self.database = database
        self.hints = hints or hints_for(domain)
        if not self.hints.has_emotions and settings.emotions is not None:
            settings = replace(settings, emotions=None)  # the domain's tasks carry none (escape rooms)
        # Within the domain's own families (EmotionError, a ValueError, names them): the provenance records these.
        self.weights = resolve_weights(settings.emotions, domain.emotions)
        settings = replace(settings, emotions=self.weights)
        self.settings = settings
        tiers = self.hints.depth_tiers
        if tiers is not None:
            tiers_in(settings.depth, tiers)  # ValueError when the range holds no tier
        self.depths = [settings.depth_of(slot, tiers) for slot in range(settings.n)]
        self.graph = ToolGraph(domain)
        self.sampler = Sampler(domain, database, self.hints, self.graph)
        self.filters = Filters(domain, database, self.graph, self.hints)
        self.report = Report(requested=settings.n)
        self.seconds: dict[str, float] = dict.fromkeys(self.STAGE_CLOCKS, 0.0)  # wall time per stage (benchmarks; never saved: not reproducible)
        self.families = quotas(self.weights, settings.n, random.Random(f"tracer:{settings.seed}:families"))
        self.tool_names = [t.name for t in domain.tools]
        width = max(3, len(str(settings.n)))
        prefix = settings.id_prefix or f"{domain.name}-{settings.seed}-"
        self.ids = [f"{prefix}{i + 1:0{width}d}" for i in range(settings.n)]

    # -- stages 2 to 4 for one candidate -------------------------------------------------------------
    def build(self, slot: int, attempt: int) -> Candidate | None:
        stages = self.report.stages
        rng = random.Random(f"tracer:{self.settings.seed}:{slot}:{attempt}")
        depth = self.depths[slot]
        if self.hints.builds_tasks:
            return self._build_own(slot, attempt, depth)
        clock = time.perf_counter()
        stages["sample"].seen += 1
        try:
            trace = self.sampler.sample(rng, depth)
        except Skip as e:
            stages["sample"].drop(e.reason, e.detail)
            return None
        finally:
            self.seconds["sample"] += time.perf_counter() - clock
        stages["sample"].passed += 1

        clock = time.perf_counter()
        stages["instruct"].seen += 1
        facts = facts_of(trace)
        instruction = compose(trace, rng)
        stages["instruct"].passed += 1

        stages["emotion"].seen += 1
        family = self.families[slot]
        try:
            emotion = condition_for(family, trace, self.hints, rng, emotions=self.domain.emotions) if family else None
        except EmotionError as e:
            stages["emotion"].drop("condition outside the taxonomy", str(e))
            return None
        finally:
            self.seconds["instruct+emotion"] += time.perf_counter() - clock
        stages["emotion"].passed += 1
        return Candidate(self._task(slot, attempt, trace, instruction, emotion), facts,
                         [intent.known if (intent := trace.goals[s.goal].intent) else {} for s in trace.steps],
                         trace.end_hash, slot, attempt, trace)

    def _build_own(self, slot: int, attempt: int, depth: int) -> Candidate | None:
        """Stages 2 to 4 in one, by the domain (its task is not a trace on the tool graph)."""
        stages = self.report.stages
        clock = time.perf_counter()
        stages["sample"].seen += 1
        try:
            task = self.hints.build_task(self.domain, self.database, self.settings.seed, slot, attempt, depth,
                                         self.depths[:slot].count(depth))
        except Skip as e:
            stages["sample"].drop(e.reason, e.detail)
            return None
        finally:
            self.seconds["sample"] += time.perf_counter() - clock
        for stage in ("sample", "instruct", "emotion"):
            if stage != "sample":
                stages[stage].seen += 1
            stages[stage].passed += 1
        return Candidate(task, [], [], None, slot, attempt, None)

    def _task(self, slot: int, attempt: int, trace: Trace, instruction: str, emotion: Any) -> Task:
        depth_of_slot = self.depths[slot]
        return Task(
            id=self.ids[slot],
            domain=self.domain.name,
            instruction=instruction,
            actions=[Action(s.tool, s.args) for s in trace.steps],
            user_id=trace.persona_id,
            outputs=trace.answers,
            known_info=known_info(trace),
            emotion=emotion,
            provenance={"generator": GENERATOR, "seed": self.settings.seed, "slot": slot, "attempt": attempt,
                        "depth_tier": depth_of_slot, "instruction_by": "template",
                        "goals": [g.tool for g in trace.goals]},
            difficulty=trace.depth,
        )

    # -- stage 3 through a model ---------------------------------------------------------------------
    async def refine(self, batch: list[Candidate]) -> None:
        from tauplay.llm import LLMError, complete

        config = self.settings.model
        gate = asyncio.Semaphore(max(1, self.settings.concurrency))

        async def one(c: Candidate) -> None:
            draft = c.task.instruction
            messages = prompt(c.trace, draft, c.facts, self.domain.title) if c.trace else []
            async with gate:
                try:
                    reply = await complete(config, messages)
                except LLMError as e:
                    self._fallback(c, f"model call failed ({e.kind})", str(e))
                    return
            text = clean_reply(reply.content)
            if not text:
                self._fallback(c, "reply is empty", "")
                return
            reason, detail = problems(text, c.facts, self.tool_names)
            if reason:
                self._fallback(c, f"reply {reason}", detail)
                return
            c.task.instruction = text
            c.task.provenance["instruction_by"] = "model"

        await asyncio.gather(*(one(c) for c in batch))

    def _fallback(self, c: Candidate, reason: str, detail: str) -> None:
        self.report.fallback(reason, detail)
        c.task.provenance["model_fallback"] = f"{reason}: {detail}" if detail else reason

    # -- the loop ------------------------------------------------------------------------------------
    async def run_async(self, progress: Progress | None = None) -> Result:
        n = self.settings.n
        accepted: dict[int, Candidate] = {}
        attempts = [0] * n
        pending = list(range(n))
        offline = self.settings.model is None or self.hints.builds_tasks  # a domain's own tasks keep their text
        while pending:
            batch = []
            for slot in pending:
                candidate = None
                while candidate is None and attempts[slot] < self.settings.attempts:
                    candidate = self.build(slot, attempts[slot])
                    attempts[slot] += 1
                if candidate is not None:
                    if offline:  # judged at once (same order as a batch, so the same result), bar moves
                        self._judge(candidate, accepted, progress)
                    else:
                        batch.append(candidate)
                if offline:
                    await asyncio.sleep(0)  # give the loop a turn: Ctrl+C (asyncio.run cancels us) is heard
            if batch:
                clock = time.perf_counter()
                await self.refine(batch)
                self.seconds["model"] += time.perf_counter() - clock
                for candidate in batch:
                    self._judge(candidate, accepted, progress)
            pending = [s for s in pending if s not in accepted and attempts[s] < self.settings.attempts]
        chosen = [accepted[s] for s in sorted(accepted)]
        return Result(TaskSet(self.domain.name, [c.task for c in chosen], "", self.provenance()), self.report,
                      chosen)

    def _judge(self, c: Candidate, accepted: dict[int, Candidate], progress: Progress | None) -> None:
        verify = self.report.stages["verify"]
        verify.seen += 1
        clock = time.perf_counter()
        verdict = self.filters.judge(c)
        self.seconds["verify"] += time.perf_counter() - clock
        if not verdict.ok:
            verify.drop(f"{verdict.filter}: {verdict.reason}", verdict.detail)
            return
        if not self._audit(c):
            return
        verify.passed += 1
        accepted[c.slot] = c
        self.report.accepted += 1
        if progress:
            progress(len(accepted), self.settings.n)

    def _audit(self, c: Candidate) -> bool:
        """The same audit as `tauplay verify`, after the filters: its findings go into the task's provenance;
        a task with an error finding is dropped (counted per check) unless --keep-invalid keeps it marked."""
        from tauplay.core.audit import audit_task
        from tauplay.core.findings import ERROR

        clock = time.perf_counter()
        audit = audit_task(self.domain, self.database, c.task)
        self.seconds["verify"] += time.perf_counter() - clock
        if audit.findings:
            c.task.provenance["findings"] = [f.to_json() for f in audit.findings]
        errors = [f for f in audit.findings if f.severity == ERROR]
        if not errors:
            return True
        for check in sorted({f.check for f in errors}):
            self.report.audited(check, next(f.message for f in errors if f.check == check))
        if self.settings.keep_invalid:
            self.report.kept_invalid += 1
            return True
        self.report.stages["verify"].drop(f"audit: {errors[0].check}", errors[0].message)
        return False

    def run(self, progress: Progress | None = None) -> Result:
        done: list[Result] = []

        async def main() -> None:
            # The coroutine returns nothing: asyncio.run may repr its task on the way out (restoring
            # the SIGINT handler), and the repr of a task holding a big Result costs seconds.
            done.append(await self.run_async(progress))

        asyncio.run(main())
        return done[0]

    def provenance(self) -> dict[str, Any]:
        s = self.settings
        return {
            "generator": GENERATOR,
            "seed": s.seed,
            "n": s.n,
            "depth": f"{s.depth[0]}-{s.depth[1]}",
            "emotions": dict(self.weights) if self.weights is not None else "none",
            "instruction": s.model.describe() if s.model is not None else "offline templates",
            "hints": type(self.hints).__name__,
            "database": self.database.source,
            "start_hash": self.database.new_state().hash,
            "attempts_per_slot": s.attempts,
            "report": self.report.to_json(),
        }


def generate(domain: Domain, database: Database, settings: Settings, progress: Progress | None = None,
             hints: TracerHints | None = None) -> Result:
    return Tracer(domain, database, settings, hints).run(progress)
