"""Where an injected parameter error went: each injected session classified from its saved events, and the
rates of an AgentProp-style study (per model and per kind, with confidence intervals).

A session is *injected* when it holds at least one `injection` event and has ended. With I its injected calls,
"refused" meaning a call's result is an error (the schema check, the tool's own rules or the interceptor
stopped it, so it changed nothing), the *end state* right when the reward's `db_match` holds (the gold end state,
or any valid solution of a constraint task), the *answers* right when every required output appears in the
agent's messages, and a *wrong write* a record the session changed whose end value differs from the gold end
state's, the session is, in this order:

- `rejected`: every call in I was refused, no wrong write is in the end state and the answers are right (the bad
  value never reached the data or the answer; a write it blocked may still be missing: see `completed`) —
  `rejected_by` "environment"; or a call in I went through and the agent caught it itself before its next call
  (`caught_by_agent`: it asked about the value, refused, or redid the call), the end state and answers right —
  `rejected_by` "agent", AgentProp's meaning of a rejection;
- `recovered`: a call in I went through, yet the end state and the answers are right and the user did not give
  up, and the agent corrected it: later it made the same tool call again with the original value at the
  injected argument, or a later write changed a record the injected call had changed;
- `unaffected`: as recovered, without a correction: the corrupted call did not matter (a look-up the agent did
  not use, a value the task did not depend on);
- `propagated`: anything else: the end state or the answers are wrong (or the user gave up) with the error in
  play. A session can fail for other reasons too; the report shows the failure rate of the same agent without
  injection (`baseline`) so the excess can be read, and human labels calibrate the figure when they exist.

Pure functions over plain values; the command reads the store and replays the end states.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tauplay.core.db import Database, field_changes
from tauplay.core.domain import Domain
from tauplay.core.environment import Environment
from tauplay.core.events import (
    Event,
    InjectionData,
    MessageData,
    NoticeData,
    SessionStartedData,
    TerminatedData,
    ToolCallData,
    ToolResultData,
    of_kind,
)
from tauplay.core.gold import gold_run
from tauplay.core.injection import ArgPath, get_at, parse_path
from tauplay.core.tasks import Task
from tauplay.core.vocabulary import (
    PROPAGATION_CLASSES,
    EventKind,
    InjectionKind,
    JudgeLabel,
    NoticeAbout,
    Propagation,
    Role,
)

NO_ANSWER = "no answer to judge against"  # a task without outputs, as every judge and report says it

ALL_KINDS = "all"


# -- one session ------------------------------------------------------------------------------------------

def injections(events: Sequence[Event]) -> list[InjectionData]:
    """The injections of a session whose call was recorded."""
    made = {c.call_id for _, c in of_kind(events, ToolCallData)}
    return [i for _, i in of_kind(events, InjectionData) if i.call_id in made]


def study_of(events: Sequence[Event]) -> tuple[dict[str, Any] | None, bool]:
    """(the session's injection plan, whether the interceptor was on), from its session_started event."""
    for _, started in of_kind(events, SessionStartedData):
        return started.injection, bool(started.interceptor)
    return None, False


def end_state_writes(domain: Domain, database: Database, task: Task, events: Sequence[Event]
                     ) -> list[tuple[str, str]]:
    """Records the session changed whose end value differs from the gold end state's (its wrong writes), found by
    replaying the session's successful calls on a fresh copy of its start state."""
    database = domain.start_for(database, task)  # with the records the task places, as the session had
    env = Environment(domain, database)
    ok = {r.call_id for _, r in of_kind(events, ToolResultData) if not r.error}
    for _, call in of_kind(events, ToolCallData):
        if call.call_id in ok:
            env.call(call.name, dict(call.arguments))
    gold = gold_run(domain, database, task).state
    return [(c.table, c.key) for c in env.state.changes_since_start()
            if _written_wrong(database.tables.get(c.table, {}).get(c.key), env.state.get(c.table, c.key),
                              gold.get(c.table, c.key))]


def _written_wrong(start: Any, mine: Any, gold: Any) -> bool:
    """Did the session set a field of this record to something other than the gold end state's value? (A field
    gold changed and the session left alone is missing, not wrong.)"""
    if mine is None:
        return gold is not None  # removed here, kept by gold
    if start is None and gold is None:
        return True  # a record gold never made
    changed = {f.path for f in field_changes(start if start is not None else {}, mine)}
    differ = {f.path for f in field_changes(gold if gold is not None else {}, mine)}
    return bool(changed & differ)


def _value_at(arguments: dict[str, Any], path: ArgPath) -> tuple[bool, Any]:
    try:
        return True, get_at(arguments, path)
    except (KeyError, IndexError, TypeError):
        return False, None


@dataclass(frozen=True)
class Classified:
    """One injected session, classified, with the facts the class was read from."""

    session_id: str
    model: str  # the agent: its model string, or its kind (oracle, human...)
    interceptor: bool
    kind: str  # the first injection's kind
    verdict: str  # a Propagation
    reason: str
    refused: bool  # every injected call was refused
    refused_by_interceptor: bool
    end_state_ok: bool
    answers_ok: bool
    abandoned: bool
    wrong_writes: int
    corrected: bool
    reward: float | None
    rejected_by: str | None = None  # for a rejected session: "agent" (it caught the value) or "environment"
    caught: str | None = None  # how the agent caught it: asked | refused | corrected (None: it did not)
    interceptor_mode: str = ""  # precall | abstain | "" (none)
    style: str = "plausible"  # how the wrong value was made (InjectionConfig.style)
    abstained: bool = False  # the abstaining interceptor withheld an answer
    eps: int = 0  # AgentProp's error propagation score, read from the events (see `eps_of`)
    weps: float = 0.0
    tool_stage: bool = False  # a tool result was an error from the injected call on
    output_stage: bool = False  # the outcome is wrong, or the injected value reached the agent's words
    s3: bool | None = None  # the final answer wrong, as the hop rates read it (see `build_report`)
    s3_from: str = "outcome"  # what said so: the session's own outcome, or a judge (ensemble, llm:MODEL)
    answer_known: bool = True  # the task has outputs; without, "answers right" is vacuous: the end state decides

    @property
    def completed(self) -> bool:
        """The task was done despite the injection (end state and answers right)."""
        return self.end_state_ok and self.answers_ok and not self.abandoned

    def to_json(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "model": self.model, "interceptor": self.interceptor,
                "kind": self.kind, "class": self.verdict, "reason": self.reason, "refused": self.refused,
                "refused_by_interceptor": self.refused_by_interceptor, "end_state_ok": self.end_state_ok,
                "answers_ok": self.answers_ok, "abandoned": self.abandoned, "wrong_writes": self.wrong_writes,
                "corrected": self.corrected, "completed": self.completed, "reward": self.reward,
                "rejected_by": self.rejected_by, "caught": self.caught, "interceptor_mode": self.interceptor_mode,
                "style": self.style, "abstained": self.abstained, "eps": self.eps, "weps": round(self.weps, 3),
                "answer": "judged" if self.answer_known else NO_ANSWER}


def agent_label(agent: Mapping[str, Any]) -> str:
    """How the report names an agent: its model string, else its kind."""
    return str(agent.get("model") or agent.get("kind") or "?")


def _corrected(events: Sequence[Event], injected: Sequence[InjectionData]) -> bool:
    """Did the agent, after an injected call that went through, call that tool again with the original value at
    the injected argument, or write again to a record the injected call changed?"""
    results = {r.call_id: (e, r) for e, r in of_kind(events, ToolResultData)}
    calls = list(of_kind(events, ToolCallData))
    later = [(e, c) for e, c in calls if c.call_id in results and not results[c.call_id][1].error]
    for injection in injected:
        found = results.get(injection.call_id)
        if found is None or found[1].error:
            continue
        after, result = found[0].seq, found[1]
        path = parse_path(injection.argument)
        had, original = _value_at(injection.original, path)
        touched = {(c["table"], c["key"]) for c in (result.diff or {}).get("changes") or []}
        for e, c in later:
            if e.seq <= after:
                continue
            if c.name == injection.tool and had and _value_at(c.arguments, path) == (True, original):
                return True
            diff = results[c.call_id][1].diff or {}
            if touched & {(ch["table"], ch["key"]) for ch in diff.get("changes") or []}:
                return True
    return False


# Words of an agent that will not go on with what it got (AgentProp's rejection is the agent's own catch).
_REFUSAL = ("cannot", "can't", "unable", "not able", "won't", "doesn't look right", "does not look right",
            "seems wrong", "seems incorrect", "not valid", "invalid", "not found", "couldn't", "could not")


def _mentions(text: str, injection: InjectionData) -> bool:
    """Does the agent's message speak of the injected argument (its name in words, or its value either way)?"""
    lowered = text.lower()
    name = next((p for p in reversed(parse_path(injection.argument)) if isinstance(p, str)), "")
    if name and (name.lower() in lowered or name.replace("_", " ").lower() in lowered):
        return True
    path = parse_path(injection.argument)
    for arguments in (injection.original, injection.injected):
        had, value = _value_at(arguments, path)
        if had and isinstance(value, str | int | float) and len(str(value)) >= 3 and str(value).lower() in lowered:
            return True
    return False


def _questions(text: str) -> list[str]:
    """The sentences of a message that are questions (a closing "Anything else?" is one of its own)."""
    return [q for q in re.split(r"(?<=[.!?])\s+|\n+", text) if q.rstrip().endswith("?")]


def caught_by_agent(events: Sequence[Event], injected: Sequence[InjectionData]) -> str | None:
    """How the agent caught an injected value itself, before anything else: after an injected call's result,
    its very next move was to ask the user about it (a question naming the argument or its value), to refuse
    to go on (words of refusal), or to make the same call with the original value (asked | refused |
    corrected); None when it did none of these."""
    for injection in injected:
        after = next((e.seq for e, r in of_kind(events, ToolResultData) if r.call_id == injection.call_id), None)
        if after is None:
            continue
        path = parse_path(injection.argument)
        had, original = _value_at(injection.original, path)
        for e in events:
            if e.seq <= after or e.role != Role.AGENT:
                continue
            if e.kind == EventKind.TOOL_CALL:
                call = e.as_(ToolCallData)
                if call.name == injection.tool and had and _value_at(call.arguments, path) == (True, original):
                    return "corrected"
                break
            if e.kind == EventKind.MESSAGE:
                text = e.as_(MessageData).content
                if any(_mentions(q, injection) for q in _questions(text)):
                    return "asked"
                if any(w in text.lower() for w in _REFUSAL):
                    return "refused"
                break
    return None


# AgentProp's weights (metrics/eps_scorer.py): how severe each kind is, and how much less a visible error counts.
SEVERITY: dict[str, float] = {InjectionKind.TYPE_MISMATCH: 0.5, InjectionKind.OUT_OF_RANGE: 0.7,
                              InjectionKind.MISSING_REQUIRED: 0.9, InjectionKind.SEMANTIC_WRONG: 1.0}
DETECTED_WEIGHT = 0.6


def eps_of(events: Sequence[Event], injected: Sequence[InjectionData], outcome_wrong: bool) -> tuple[int, float, bool, bool]:
    """(EPS, weighted EPS, tool stage, output stage): the stages past the injection's origin (parameter
    generation) that show the error, as AgentProp's scorer counts them. tauplay's sessions have two such
    stages: tool execution (a tool result was an error from the first injected call on) and output (the
    outcome is wrong, or the injected value appears in what the agent said afterwards); AgentProp's memory
    stages do not exist here. wEPS = EPS x the kind's severity x 0.6 when a tool error made it visible."""
    first = injected[0]
    start = next((e.seq for e, c in of_kind(events, ToolCallData) if c.call_id == first.call_id), -1)
    tool = any(r.error for e, r in of_kind(events, ToolResultData) if e.seq >= start and not r.by_user)
    output = outcome_wrong
    if not output:
        path = parse_path(first.argument)
        had, value = _value_at(first.injected, path)
        text = final_answer(events, start).lower()
        output = had and isinstance(value, str | int | float) and not isinstance(value, bool) \
            and len(str(value)) >= 3 and str(value).lower() in text
    eps = int(tool) + int(output)
    weps = eps * SEVERITY.get(first.kind, 1.0) * (DETECTED_WEIGHT if tool else 1.0)
    return eps, weps, tool, output


def classify(session_id: str, agent: Mapping[str, Any], events: Sequence[Event],
             wrong_writes: Sequence[tuple[str, str]] | None) -> Classified | None:
    """The class of an ended, injected session (None for a session with no injection or not ended).
    `wrong_writes`: from `end_state_writes`; None when the end state could not be rebuilt (then a session whose
    end state is wrong and that made a successful write counts as having written something wrong)."""
    injected = injections(events)
    ended = next((t for _, t in of_kind(events, TerminatedData)), None)
    if not injected or ended is None:
        return None
    plan, interceptor = study_of(events)
    mode = "precall" if interceptor else ""
    for _, started in of_kind(events, SessionStartedData):
        if started.abstain:
            mode = "abstain"
    abstained = any(n.about == NoticeAbout.ABSTAINED for _, n in of_kind(events, NoticeData))
    reward = ended.reward or {}
    outputs = reward.get("outputs") or {}
    end_ok = bool(reward.get("db_match"))
    answers_ok = all(bool(v) for v in outputs.values())
    abandoned = bool(reward.get("abandoned"))
    value = reward.get("reward")
    results = {r.call_id: r for _, r in of_kind(events, ToolResultData)}
    mine = [results.get(i.call_id) for i in injected]
    refused = all(r is not None and r.error for r in mine)
    by_interceptor = any(r is not None and r.refused_by for r in mine)
    if wrong_writes is None:
        wrote = any(not r.error and r.diff and r.diff.get("changes") for r in results.values())
        wrong = 0 if end_ok else int(wrote)
    else:
        wrong = 0 if end_ok else len(wrong_writes)
    corrected = _corrected(events, injected)
    caught = caught_by_agent(events, injected)
    first = injected[0]
    what = f"{first.kind} in {first.tool}({first.argument})"
    rejected_by = None
    if refused and not wrong and answers_ok:
        stopper = "the interceptor" if by_interceptor else "the tool"
        missing = "" if end_ok else "; a write it blocked is missing from the end state"
        verdict, reason = Propagation.REJECTED, f"{what} refused by {stopper}, nothing wrong written{missing}"
        rejected_by = "environment"
    elif not refused and caught and end_ok and answers_ok and not abandoned:
        verdict, reason = Propagation.REJECTED, f"{what} went through; the agent {caught} before its next call"
        rejected_by = "agent"
    elif not refused and end_ok and answers_ok and not abandoned:
        verdict = Propagation.RECOVERED if corrected else Propagation.UNAFFECTED
        reason = f"{what} went through; " + ("the agent redid it and the end state and answers are right"
                                             if corrected else "the end state and answers are right anyway")
    else:
        faults = []
        if not end_ok:
            faults.append(f"end state differs from gold ({wrong} wrong record(s) written)" if wrong
                          else "end state differs from gold")
        if not answers_ok:
            faults.append("missing answer(s): " + ", ".join(o for o, ok in outputs.items() if not ok))
        if abandoned:
            faults.append("the user gave up")
        state = "refused" if refused else "went through"
        verdict, reason = Propagation.PROPAGATED, f"{what} {state}; " + "; ".join(faults or ["outcome wrong"])
    eps, weps, tool_stage, output_stage = eps_of(events, injected, not (end_ok and answers_ok and not abandoned))
    if not outputs:
        reason += f" ({NO_ANSWER}: the end state alone decides)"
    return Classified(session_id, agent_label(agent), interceptor, first.kind, str(verdict), reason, refused,
                      by_interceptor, end_ok, answers_ok, abandoned, wrong, corrected,
                      float(value) if isinstance(value, int | float) else None, rejected_by, caught, mode,
                      str((plan or {}).get("style") or "plausible"), abstained, eps, weps, tool_stage, output_stage,
                      answer_known=bool(outputs))


def final_answer(events: Sequence[Event], after_seq: int = -1) -> str:
    """What the agent said after `after_seq` (its answer once the error was in play), one message a line."""
    return "\n".join(m.content for e, m in of_kind(events, MessageData) if e.role == Role.AGENT and e.seq > after_seq)


# -- statistics -------------------------------------------------------------------------------------------

def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float, float] | None:
    """(k/n, low, high): the Wilson score interval (95% by default); None when n is 0."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz's method)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(1 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-12:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def spearman(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float] | None:
    """Spearman's rho (Pearson's r of the ranks, ties averaged) and its two-sided p-value from Student's t with
    n - 2 degrees of freedom (as scipy.stats.spearmanr); None with fewer than 3 pairs or a constant side."""
    if len(xs) != len(ys):
        raise ValueError("spearman needs as many x as y values")
    n = len(xs)
    if n < 3:
        return None
    rho = _pearson(ranks(xs), ranks(ys))
    if rho is None:
        return None
    if abs(rho) >= 1.0:
        return rho, 0.0
    df = n - 2
    t = rho * math.sqrt(df / (1 - rho * rho))
    p = incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return rho, p


# -- the report -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Interval:
    p: float
    low: float
    high: float
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"p": round(self.p, 4), "low": round(self.low, 4), "high": round(self.high, 4), "method": self.method}


@dataclass
class Row:
    """One model (with or without the interceptor), over one kind or all kinds."""

    model: str
    interceptor: bool
    kind: str
    sessions: int
    counts: dict[str, int]
    completed: int  # sessions whose task was done despite the injection
    accepted: int  # sessions where an injected call went through
    propagation: Interval | None
    rejection_rate: float | None
    recovery_rate: float | None  # recovered / (recovered + accepted and propagated)
    calibrated: dict[str, Any] | None = None
    interceptor_mode: str = ""  # precall | abstain | "" (none)
    style: str = "plausible"
    rejected_by_agent: int = 0  # rejected sessions where the agent caught the value (AgentProp's rejection)
    rejected_by_environment: int = 0  # rejected sessions where the schema, the tool or the interceptor refused it
    abstained: int = 0
    eps: dict[str, Any] | None = None  # mean EPS and wEPS
    hop: dict[str, Any] | None = None  # stage reach and hop-conditional rates (see `hop_rates`)

    def rate(self, verdict: str) -> float | None:
        return self.counts[verdict] / self.sessions if self.sessions else None

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"model": self.model, "interceptor": self.interceptor, "kind": self.kind, "sessions": self.sessions,
                "counts": self.counts, "rates": {c: r(self.rate(c)) for c in PROPAGATION_CLASSES},
                "completed": self.completed, "accepted": self.accepted,
                "propagation": self.propagation.to_json() if self.propagation else None,
                "rejection_rate": r(self.rejection_rate), "recovery_rate": r(self.recovery_rate),
                "rejected_by_agent": self.rejected_by_agent, "rejected_by_environment": self.rejected_by_environment,
                "rejected_by_agent_rate": r(self.rejected_by_agent / self.sessions) if self.sessions else None,
                "rejected_by_environment_rate": r(self.rejected_by_environment / self.sessions)
                if self.sessions else None,
                "interceptor_mode": self.interceptor_mode or None, "style": self.style, "abstained": self.abstained,
                "eps": self.eps, "hop": self.hop, "calibrated": self.calibrated}


@dataclass(frozen=True)
class Baseline:
    """Sessions of the same agent run without any injection: how often it fails anyway."""

    model: str
    interceptor: bool
    sessions: int
    mean_reward: float | None
    wrong: int  # reward below 1

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "interceptor": self.interceptor, "sessions": self.sessions,
                "mean_reward": None if self.mean_reward is None else round(self.mean_reward, 4),
                "wrong": self.wrong, "wrong_rate": round(self.wrong / self.sessions, 4) if self.sessions else None}


@dataclass
class Report:
    rows: list[Row]
    baselines: list[Baseline]
    sessions: list[Classified]
    not_injected: int  # sessions run with an injection plan that never found a call to corrupt
    correlation: dict[str, Any] | None
    interceptor_effect: list[dict[str, Any]] = field(default_factory=list)
    released: list[dict[str, Any]] = field(default_factory=list)  # `released_rates` of imported AgentProp sessions
    not_scorable: int = 0  # finished sessions left out: their task's gold replay fails on their database

    @property
    def no_answer(self) -> int:
        """Injected sessions whose task has no outputs: their final answer was not judged."""
        return sum(1 for s in self.sessions if not s.answer_known)

    def to_json(self) -> dict[str, Any]:
        return {"injected_sessions": len(self.sessions), "not_injected": self.not_injected,
                "not_scorable": self.not_scorable,
                "no_answer_to_judge_against": self.no_answer,
                "released": self.released,
                "rows": [r.to_json() for r in self.rows], "baselines": [b.to_json() for b in self.baselines],
                "correlation": self.correlation, "interceptor_effect": self.interceptor_effect,
                "sessions": [s.to_json() for s in self.sessions]}


def human_majority(labels: Mapping[str, Sequence[str]]) -> dict[str, bool]:
    """session id -> whether people said it propagated (their majority; a tie is left out)."""
    out: dict[str, bool] = {}
    for sid, said in labels.items():
        yes = sum(1 for s in said if s == JudgeLabel.YES)
        no = len(said) - yes
        if yes != no:
            out[sid] = yes > no
    return out


def _calibrated_p(items: Sequence[Classified], human: Mapping[str, bool]) -> float:
    """Σ over classes of the class's share × the share of people's "yes" among its labelled sessions (a class
    nobody labelled keeps the classifier's own answer: yes for propagated, no otherwise)."""
    n = len(items)
    total = 0.0
    for verdict in PROPAGATION_CLASSES:
        members = [c for c in items if c.verdict == verdict]
        if not members:
            continue
        labelled = [human[c.session_id] for c in members if c.session_id in human]
        share_yes = (sum(labelled) / len(labelled)) if labelled else float(verdict == Propagation.PROPAGATED)
        total += len(members) / n * share_yes
    return total


def calibrate(items: Sequence[Classified], human: Mapping[str, bool], resamples: int = 1000,
              seed: int = 0) -> dict[str, Any] | None:
    """The propagation probability calibrated by human labels, with a bootstrap interval over sessions, and
    Cohen's kappa of the classifier against the people on the sessions they labelled. None without labels."""
    from tauplay.core.agreement import cohen_kappa

    labelled = [c for c in items if c.session_id in human]
    if not labelled:
        return None
    p = _calibrated_p(items, human)
    rng = random.Random(seed)
    draws = sorted(_calibrated_p([rng.choice(items) for _ in items], human) for _ in range(resamples))
    low, high = draws[int(0.025 * resamples)], draws[min(resamples - 1, int(0.975 * resamples))]
    pairs = [(c.verdict == Propagation.PROPAGATED, human[c.session_id]) for c in labelled]
    kappa = cohen_kappa(pairs)
    return {"p": round(p, 4), "low": round(low, 4), "high": round(high, 4), "method": "bootstrap",
            "labelled": len(labelled), "human_yes": sum(1 for _, h in pairs if h),
            "kappa_vs_human": None if kappa is None else round(kappa, 4)}


def hop_rates(items: Sequence[Classified]) -> dict[str, Any] | None:
    """AgentProp's stage reach and hop-conditional rates (analysis/hop_analysis.py), each indicator read on its
    own: S1 = EPS >= 1 (the error showed somewhere past its origin), S2 = EPS >= 2, S3 = the final answer wrong
    (`Classified.s3`); r_12 = p(S2) / p(S1), r_23 = P(S3 | S2) on the S2 sessions, injection-to-error =
    P(S3 | S1). None without sessions; a rate whose condition never holds is None."""
    n = len(items)
    if not n:
        return None
    s1 = [x for x in items if x.eps >= 1]
    s2 = [x for x in items if x.eps >= 2]
    s3 = [x for x in items if x.s3]

    def share(part: Sequence[Classified], whole: Sequence[Classified]) -> float | None:
        return round(len(part) / len(whole), 4) if whole else None

    # AgentProp's interceptor study counts a hallucination as a wrong final answer the agent did not abstain on
    hallucinated = [x for x in s3 if not x.abstained]
    return {"n": n, "n_S1": len(s1), "n_S2": len(s2), "n_S3": len(s3), "p_S1": share(s1, items),
            "hallucination_rate": share(hallucinated, items),
            "p_S2": share(s2, items), "p_S3": share(s3, items),
            "r_1_2": round(len(s2) / len(s1), 4) if s1 else None,
            "r_2_3": share([x for x in s2 if x.s3], s2), "injection_to_error": share([x for x in s1 if x.s3], s1),
            "s3_from": sorted({x.s3_from for x in items})}


def _row(model: str, interceptor: bool, kind: str, items: Sequence[Classified],
         human: Mapping[str, bool], mode: str = "", style: str = "plausible") -> Row:
    counts = {c: sum(1 for x in items if x.verdict == c) for c in PROPAGATION_CLASSES}
    n = len(items)
    accepted = [x for x in items if not x.refused]
    harmful = counts[Propagation.RECOVERED] + sum(1 for x in accepted if x.verdict == Propagation.PROPAGATED)
    interval = wilson(counts[Propagation.PROPAGATED], n)
    eps = {"mean": round(sum(x.eps for x in items) / n, 4), "weighted_mean": round(sum(x.weps for x in items) / n, 4)} \
        if n else None
    return Row(model, interceptor, kind, n, counts, sum(1 for x in items if x.completed), len(accepted),
               Interval(*interval, method="wilson") if interval else None,
               counts[Propagation.REJECTED] / n if n else None,
               counts[Propagation.RECOVERED] / harmful if harmful else None,
               calibrate(items, human), mode, style,
               sum(1 for x in items if x.rejected_by == "agent"),
               sum(1 for x in items if x.rejected_by == "environment"),
               sum(1 for x in items if x.abstained), eps, hop_rates(items))


@dataclass(frozen=True)
class Released:
    """One of AgentProp-Bench's released sessions (`tauplay import agentprop-results`): its released EPS and
    whether a judge said its final answer is wrong (None: no judge answered)."""

    session_id: str
    model: str
    kind: str
    eps: int
    wrong: bool | None
    wrong_from: str = ""


def released_rates(items: Iterable[Released]) -> list[dict[str, Any]]:
    """Per (model, kind) of the released sessions with a verdict: the hop-conditional rates computed exactly as
    for tauplay's own sessions (`hop_rates`), from the release's own EPS and verdicts, so the figures can be set
    beside the release's (its hop table is semantic_wrong, S3 from its re-judging ensemble)."""
    groups: dict[tuple[str, str], list[Classified]] = {}
    for r in items:
        if r.wrong is None:
            continue
        groups.setdefault((r.model, r.kind), []).append(
            Classified(r.session_id, r.model, False, r.kind, "", "", False, False, False, False, False, 0, False,
                       None, eps=r.eps, s3=r.wrong, s3_from=r.wrong_from))
    return [{"model": model, "kind": kind, **(hop_rates(members) or {})}
            for (model, kind), members in sorted(groups.items())]


def build_report(classified: Iterable[Classified], baselines: Sequence[Baseline] = (), not_injected: int = 0,
                 human: Mapping[str, bool] | None = None,
                 judged_wrong: Mapping[str, tuple[bool, str]] | None = None) -> Report:
    """Rows per (model, interceptor, injection style) over all kinds, then per kind; the Spearman correlation
    of rejection and recovery rates across models (runs without the interceptor); and for each model and kind
    run both ways, what the interceptor changed. `judged_wrong`: session id -> (a judge said the final answer is
    wrong, which judge), the hop rates' S3 as AgentProp reads it (an ensemble of models); a session no judge
    answered takes its own outcome (end state and answers wrong, or the user gave up)."""
    judged_wrong = judged_wrong or {}
    # a session saved before the modes had only the pre-call interceptor
    classified = [replace(c, interceptor_mode="precall") if c.interceptor and not c.interceptor_mode else c
                  for c in classified]
    items = sorted((replace(c, s3=judged_wrong[c.session_id][0], s3_from=judged_wrong[c.session_id][1])
                    if c.session_id in judged_wrong else replace(c, s3=not c.completed, s3_from="outcome")
                    for c in classified), key=lambda c: (c.model, c.interceptor, c.kind, c.session_id))
    human = human or {}
    groups: dict[tuple[str, bool, str, str], list[Classified]] = {}
    for c in items:
        groups.setdefault((c.model, c.interceptor, c.interceptor_mode, c.style), []).append(c)
    rows: list[Row] = []
    for (model, interceptor, mode, style), members in sorted(groups.items()):
        rows.append(_row(model, interceptor, ALL_KINDS, members, human, mode, style))
        for kind in sorted({c.kind for c in members}):
            rows.append(_row(model, interceptor, kind, [c for c in members if c.kind == kind], human, mode, style))
    # The models' own abilities: runs without the interceptor (it does the rejecting when it is on).
    overall = [r for r in rows if r.kind == ALL_KINDS and not r.interceptor_mode and r.rejection_rate is not None
               and r.recovery_rate is not None]
    correlation: dict[str, Any] | None = None
    found = spearman([r.rejection_rate or 0.0 for r in overall], [r.recovery_rate or 0.0 for r in overall]) \
        if len(overall) >= 3 else None
    correlation = {"models": len(overall), "spearman_rho": None if found is None else round(found[0], 4),
                   "p_value": None if found is None else round(found[1], 4)}
    effect = []
    by_key = {(r.model, r.kind, r.interceptor_mode, r.style): r for r in rows}
    for (model, kind, mode, style), row in sorted(by_key.items()):
        off = by_key.get((model, kind, "", style))
        if not mode or off is None or row.propagation is None or off.propagation is None:
            continue
        effect.append({"model": model, "kind": kind, "interceptor_mode": mode, "style": style,
                       "propagation_without": round(off.propagation.p, 4),
                       "propagation_with": round(row.propagation.p, 4),
                       "points": round(100 * (row.propagation.p - off.propagation.p), 1),
                       "rejection_without": round(off.rejection_rate or 0.0, 4),
                       "rejection_with": round(row.rejection_rate or 0.0, 4)})
    return Report(rows, list(baselines), items, not_injected, correlation, effect)
