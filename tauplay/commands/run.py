"""`tauplay run`: headless batch runs of an agent against a simulated user, with pass^k.

    tauplay run --domain airline                                   # oracle agent + scripted user, offline
    tauplay run --domain airline --tasks T.json --trials 3 --concurrency 8 \\
        --agent-model openai/m --agent-api-base URL --user-model openai/u --user-api-base URL --db URL

Every session is saved to the store as it happens; the table at the end gives reward counts and
pass^1..k per domain, per emotion family, per difficulty (when the tasks carry one, as escape rooms
do) and per user behaviour (with --behavior / --persona: a `behavior` row, keyed as `tauplay stats --by behavior`
keys it), with the success rate and the mean steps (messages and tool calls), tool calls, tool errors and seconds
per session of each row.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import Any

from tauplay.commands._common import (
    UsageError,
    add_behavior_arguments,
    add_db_argument,
    behavior_from_args,
    finite_float,
    positive_float,
    print_table,
    say,
)
from tauplay.commands._executors import add_executor_arguments, check_executor_arguments
from tauplay.core.vocabulary import INJECTION_KINDS

INJECT_STYLE_CHOICES = ("plausible", "agentprop")
INTERCEPTOR_CHOICES = ("precall", "abstain")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", required=True, help="domain name, e.g. airline")
    parser.add_argument("--data", metavar="DIR", help="tau-bench data folder instead of the generated database")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the generated database, and of the injections with --inject (default 0 there)")
    parser.add_argument("--inject-seed", type=int, default=None, metavar="N",
                        help="seed of the injections alone (default: --seed), leaving the database as it is")
    parser.add_argument("--tasks", metavar="SET_OR_FILE",
                        help="a task set of the domain (e.g. starter, test) or a task file (default: the domain's "
                             "default task set)")
    parser.add_argument("--task-ids", nargs="+", metavar="ID", help="run only these task ids")
    parser.add_argument("--allow-invalid", action="store_true",
                        help="run tasks whose gold replay fails on this database too, saved with no reward "
                             "(\"not scorable\"; stats leaves them out); without it such tasks are refused")
    parser.add_argument("--agent", choices=("oracle", "gated", "llm"),
                        help="agent kind (default: oracle; llm when a model is given); gated: uses only values "
                             "the user said or a tool returned")
    parser.add_argument("--agent-model", metavar="M", help="litellm model string of the agent, e.g. openai/gpt-4o")
    parser.add_argument("--agent-api-base", metavar="URL", help="api base of the agent model (OpenAI-compatible server)")
    parser.add_argument("--user", choices=("scripted", "llm"), help="user kind (default: scripted; llm when a model is given)")
    parser.add_argument("--user-model", metavar="M", help="litellm model string of the simulated user")
    parser.add_argument("--user-api-base", metavar="URL", help="api base of the user model")
    parser.add_argument("--judge-model", metavar="M",
                        help="litellm model that judges tau2-bench natural-language assertions (default: not checked)")
    parser.add_argument("--judge-api-base", metavar="URL", help="api base of the judge model")
    parser.add_argument("--emotion", metavar="WORD", help="give every task this emotion (e.g. frustrated, anxious; none: play without emotion)")
    add_behavior_arguments(parser)
    parser.add_argument("--trials", type=int, default=1, help="sessions per task (pass^k up to this k; default 1)")
    parser.add_argument("--concurrency", type=int, default=4, help="sessions at a time (default 4)")
    parser.add_argument("--max-steps", type=int, default=100, help="messages and tool calls per session (default 100)")
    parser.add_argument("--max-errors", type=int, default=10, help="failed tool calls before a session ends (default 10)")
    parser.add_argument("--llm-timeout", type=positive_float, default=60.0, help="seconds per model call (default 60)")
    parser.add_argument("--verifier-model", metavar="M",
                        help="litellm model that checks what the agent said against the tool outputs after each "
                             "session (saved in the reward info under statements.llm; the reward is unchanged)")
    parser.add_argument("--verifier-api-base", metavar="URL", help="api base of the verifier model")
    parser.add_argument("--inject", metavar="KIND", choices=INJECTION_KINDS,
                        help="AgentProp study: corrupt an argument of the agent's tool calls before they run: "
                             "type_mismatch, out_of_range, missing_required or semantic_wrong (one call per session "
                             "by default, a seeded choice among the gold actions that have an argument of that kind)")
    parser.add_argument("--inject-at", type=int, metavar="N",
                        help="inject at the agent's N-th tool call (or the first later one that has such an argument)")
    parser.add_argument("--inject-rate", type=finite_float, metavar="P",
                        help="inject each call that has such an argument with probability P (any number per session)")
    parser.add_argument("--inject-style", choices=INJECT_STYLE_CHOICES, default="plausible",
                        help="how --inject makes the value wrong: plausible (default: tauplay's own, values from the "
                             "domain's data) or agentprop (the public AgentProp-Bench rules: an integer as a word, "
                             "max x10 / min -100 / an invalid enum, the first required argument removed, a city "
                             "swap, a date +180 days, an id +1, a _WRONG suffix)")
    parser.add_argument("--interceptor", nargs="?", const="precall", choices=INTERCEPTOR_CHOICES, default=None,
                        help="precall (the default of a bare --interceptor): check every call before it runs and "
                             "refuse arguments that fail the schema, name no record or have not come up in the "
                             "session; abstain: AgentProp-Bench's after-the-fact check, which withholds the agent's "
                             "answer when a tool returned an error, its reasoning holds two or more uncertainty "
                             "words, or it claims success despite a tool error")
    add_executor_arguments(parser, "each (task, trial)")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the summary and the sessions as JSON")


def _participant(kind: str | None, model: str | None, api_base: str | None, *, role: str, offline: str,
                 timeout: float) -> dict[str, Any]:
    if kind is None:
        kind = "llm" if model else offline
    if kind == "llm":
        if not model:
            raise UsageError(f"--{role} llm needs --{role}-model")
        return {"kind": "llm", "model": model, "api_base": api_base, "timeout": timeout}
    if model or api_base:
        raise UsageError(f"--{role}-model / --{role}-api-base only apply to --{role} llm, not {kind}")
    return {"kind": kind}


# Sessions one batch plans (tasks x trials): every planned job is held in memory and in the saved plan, and 10^8
# trials once ran the machine out of memory before the first session (issue 26). Larger studies: several batches.
MAX_SESSIONS = 100_000


def _check_numbers(args: argparse.Namespace) -> None:
    for flag, value, least in (("--trials", args.trials, 1), ("--concurrency", args.concurrency, 1),
                               ("--max-steps", args.max_steps, 2), ("--max-errors", args.max_errors, 1)):
        if value < least:
            raise UsageError(f"{flag} must be at least {least}, got {value}")
    _check_size(1, args.trials)
    if args.llm_timeout <= 0:
        raise UsageError(f"--llm-timeout must be positive, got {args.llm_timeout:g}")
    if (args.inject_at is not None or args.inject_rate is not None) and not args.inject:
        raise UsageError("--inject-at / --inject-rate need --inject KIND")
    if args.inject_style != "plausible" and not args.inject:
        raise UsageError("--inject-style needs --inject KIND")
    check_executor_arguments(args)


def _check_size(tasks: int, trials: int) -> None:
    if tasks * trials > MAX_SESSIONS:
        raise UsageError(f"a batch plans at most {MAX_SESSIONS:,} sessions, and {tasks:,} task(s) x --trials "
                         f"{trials:,} is {tasks * trials:,}: run fewer tasks or trials per batch")


def _injection(args: argparse.Namespace) -> Any:
    """The study's injection plan, or None without --inject."""
    if not args.inject:
        return None
    from tauplay.sim.injector import InjectionConfig, InjectionConfigError

    try:
        return InjectionConfig(args.inject, args.inject_at, args.inject_rate,
                               args.inject_seed if args.inject_seed is not None else args.seed or 0, args.inject_style)
    except InjectionConfigError as e:
        raise UsageError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    from tauplay.core.domain import DomainError, get_domain
    from tauplay.core.emotions import EmotionError
    from tauplay.core.tasks import TaskFileError, load_tasks, with_emotion

    _check_numbers(args)
    injection = _injection(args)
    if args.verifier_api_base and not args.verifier_model:
        raise UsageError("--verifier-api-base needs --verifier-model")
    agent_desc = _participant(args.agent, args.agent_model, args.agent_api_base, role="agent", offline="oracle",
                              timeout=args.llm_timeout)
    user_desc = _participant(args.user, args.user_model, args.user_api_base, role="user", offline="scripted",
                             timeout=args.llm_timeout)
    from tauplay.core.behavior import with_behavior

    user_desc = with_behavior(user_desc, behavior_from_args(args))
    try:
        domain = get_domain(args.domain)
        task_set = load_tasks(domain.task_source(args.tasks) if args.tasks else _default_tasks(domain, args.data),
                              domain.name)
        # --emotion, resolved once: each task gets the word's condition with a trigger of its own family (or none)
        chosen = [with_emotion(task, args.emotion) for task in task_set.tasks]
        database = domain.database(args.data, args.seed)
    except (DomainError, TaskFileError, EmotionError) as e:
        raise UsageError(str(e)) from None
    tasks = [task for task, _ in chosen]
    conditions = {task.id: condition for task, condition in chosen}  # task ids are unique in a set
    if args.task_ids:
        known = {t.id for t in tasks}
        missing = [i for i in args.task_ids if i not in known]
        if missing:
            raise UsageError(f"no task with id {', '.join(missing)} in {task_set.source} "
                             f"(ids: {', '.join(sorted(known)[:12])}{', ...' if len(known) > 12 else ''})")
        tasks = [t for t in tasks if t.id in set(args.task_ids)]
    if not tasks:
        raise UsageError(f"{task_set.source}: no tasks to run")
    _check_size(len(tasks), args.trials)
    tasks = _scorable(domain, database, tasks, args.allow_invalid,
                      args.seed if args.inject and not args.data else None)

    from tauplay.store import SessionStore, StoreError

    try:
        store = SessionStore(args.db)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        return _run_batch(args, store, domain, database, tasks, conditions, agent_desc, user_desc, injection)
    finally:
        store.close()


# A data folder's own task files, in the order `run --data DIR` looks for them (tau-bench / tau-Emotion-Bench names).
DATA_TASK_FILES = ("tasks_test.json", "tasks.json", "tasks_dev.json", "tasks_train.json")


def _default_tasks(domain: Any, data: str | None) -> Any:
    """The task file of `run` without --tasks: the data folder's own (tasks_test.json, ...), else the domain's
    default set, which was built for the generated database and is refused on another."""
    from pathlib import Path

    if not data:
        return domain.task_set_path()
    for name in DATA_TASK_FILES:
        if (Path(data) / name).is_file():
            return Path(data) / name
    raise UsageError(f"{data} has no task file ({', '.join(DATA_TASK_FILES)}), and the domain's "
                     f"'{domain.default_task_set}' set was built for its generated database, not this one: give --tasks")


def _scorable(domain: Any, database: Any, tasks: list[Any], allow: bool, seed: int | None = None) -> list[Any]:
    """Refuse tasks whose gold replay fails on this database (one line naming them), or with --allow-invalid
    mark them not scorable."""
    from tauplay.core.scorable import gold_problem, not_scorable

    problems = {t.id: why for t in tasks if (why := gold_problem(domain, database, t)) is not None}
    if not problems:
        return tasks
    if not allow:
        first = next(iter(problems.items()))
        raise UsageError(f"{len(problems)} of {len(tasks)} task(s) cannot be scored on {database.source}: their gold "
                         f"replay fails (task {first[0]}: {first[1]}; all: {', '.join(problems)}); leave them out with "
                         "--task-ids, or run them unscored with --allow-invalid"
                         + (f" (--seed {seed} also picks the generated database: --inject-seed {seed} seeds the "
                            "injections alone)" if seed is not None else ""))
    say(f"tauplay run: {len(problems)} task(s) not scorable on this database, run with no reward: "
        f"{', '.join(problems)}", file=sys.stderr)
    return [not_scorable(t, problems[t.id]) if t.id in problems else t for t in tasks]


def _judge(args: argparse.Namespace) -> Any:
    if not args.judge_model:
        return None
    from tauplay.llm import LLMConfig
    from tauplay.sim.judge import NLJudge

    return NLJudge(LLMConfig(model=args.judge_model, api_base=args.judge_api_base or None, timeout=args.llm_timeout))


def _run_batch(args: argparse.Namespace, store: Any, domain: Any, database: Any, tasks: list[Any],
               conditions: dict[str, Any], agent_desc: dict[str, Any], user_desc: dict[str, Any], injection: Any = None) -> int:
    import asyncio

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from tauplay.commands._executors import ray_executor
    from tauplay.sim.batch import BatchStopped, Job, batch_plan, run_batch, summarize
    from tauplay.sim.kinds import make_agent, make_user
    from tauplay.sim.orchestrator import Limits
    from tauplay.sim.session import SessionSetup
    from tauplay.sim.writer import LogWriter
    from tauplay.store import StoreError

    jobs = [Job(SessionSetup(domain, task, database, conditions[task.id], args.data or "", args.seed, injection,
                             args.interceptor == "precall", args.interceptor == "abstain"), trial)
            for task in tasks for trial in range(args.trials)]
    batch_id = uuid.uuid4().hex[:12]
    limits = Limits(args.max_steps, args.max_errors)
    writer = LogWriter(store)  # the batch's owner: it renews the heartbeat of the batch and its sessions
    plan = batch_plan(jobs, trials=args.trials, agent=agent_desc, user=user_desc, limits=limits,
                      concurrency=args.concurrency)
    try:  # before the plan: without Ray (or its cluster) nothing is saved
        executor = ray_executor(args, store, writer, jobs, plan, batch_id) if args.executor == "ray" else None
    except UsageError:
        writer.close()
        raise
    try:  # the plan first: a batch killed at any moment can be finished by `tauplay resume --batch`
        store.create_batch(batch_id, domain=domain.name, owner=writer.owner, plan=plan)
    except StoreError as e:
        writer.close()
        raise UsageError(str(e)) from None
    err = Console(stderr=True, highlight=False)
    rewards = {"1": 0, "0": 0, "-1": 0, "failed": 0, "not scorable": 0}
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[tally]}", markup=False), console=err, transient=False,
                        refresh_per_second=4)  # rich's default 10 redraws/s took ~5% of a fast batch's CPU

    def tally() -> str:
        unscored = f"  not scorable: {rewards['not scorable']}" if rewards["not scorable"] else ""
        return f"reward 1: {rewards['1']}  0: {rewards['0']}  -1: {rewards['-1']}  failed: {rewards['failed']}{unscored}"

    with progress:
        bar = progress.add_task(f"{domain.name} batch {batch_id}", total=len(jobs), tally=tally())

        def done(result: Any) -> None:
            r = result.reward
            rewards["not scorable" if result.not_scorable else "failed" if result.failed else "1" if r == 1
                    else "-1" if r == -1 else "0"] += 1
            progress.update(bar, advance=1, tally=tally())

        try:
            results = asyncio.run(executor(done) if executor is not None else run_batch(
                writer, jobs, agent=lambda: make_agent(agent_desc), user=lambda: make_user(user_desc),
                concurrency=args.concurrency, limits=limits, batch_id=batch_id, on_done=done, judge=_judge(args)))
        except KeyboardInterrupt:
            progress.stop()
            finished = sum(rewards.values())
            say(f"tauplay run: interrupted; {finished} of {len(jobs)} session(s) finished, the rest kept for "
                f"later; finish the batch with: {_resume_command(args, batch_id)}", file=sys.stderr)
            return 130
        except BatchStopped as stopped:
            results = stopped.results
            ran = sum(1 for r in results if r.reward is not None)
            progress.stop()
            say(f"tauplay run: {stopped}; the batch stopped there: {ran} of {len(jobs)} session(s) saved whole "
                f"(finish it with: {_resume_command(args, batch_id)}, once the database can be written)",
                file=sys.stderr)
            return 1
        finally:
            writer.close()
    try:
        store.finish_batch(batch_id)
    except StoreError as e:
        say(f"tauplay run: {e}", file=sys.stderr)
    verified: dict[str, Any] = {}
    if args.verifier_model:
        verified = asyncio.run(_verify_statements(args, store, domain, results))
    rows = summarize(results, args.trials, user_desc)
    failures = [r for r in results if r.failure]
    if args.json:
        from tauplay.core.secrets import mask_text

        agent_desc, user_desc = ({k: mask_text(v) if isinstance(v, str) else v for k, v in d.items()}
                                 for d in (agent_desc, user_desc))  # an api_base may hold user:password@
        print(json.dumps({"batch_id": batch_id, "store": store.name, "domain": domain.name, "agent": agent_desc,
                          "user": user_desc, "trials": args.trials,
                          "injection": injection.to_json() if injection else None,
                          "interceptor": bool(args.interceptor), "interceptor_mode": args.interceptor,
                          "summary": [r.to_json() for r in rows],
                          "sessions": [{**r.to_json(), **({"llm_statements": verified[r.session_id]}
                                                          if r.session_id in verified else {})} for r in results]},
                         indent=1))
    else:
        _print_table(rows, args.trials, batch_id, store.name)
        unscored = sum(1 for r in results if r.not_scorable)
        if unscored:
            say(f"{unscored} session(s) not scorable (their task's gold replay fails on this database): "
                "no reward, left out of the table")
        if injection is not None or args.interceptor:
            say(_study_line(store, results, injection, args.interceptor))
    for f in failures:
        say(f"task {f.task_id} trial {f.job.trial}: session did not run: {f.failure}", file=sys.stderr)
    ended = [r for r in results if r.failed and not r.failure]
    for r in ended:
        say(f"task {r.task_id} trial {r.job.trial}: session {r.session_id} ended in an error ({r.reason}: "
            f"{r.error or 'no cause saved'})", file=sys.stderr)
    return 1 if failures else 0


def _resume_command(args: argparse.Namespace, batch_id: str) -> str:
    """The command that finishes this batch (its --db as given, a password masked)."""
    import shlex

    from tauplay.core.secrets import mask_text

    db = f" --db {shlex.quote(mask_text(args.db))}" if args.db else ""
    return f"tauplay resume --batch {batch_id}{db}"


async def _verify_statements(args: argparse.Namespace, store: Any, domain: Any, results: list[Any]) -> dict[str, Any]:
    """Ask the verifier model about each finished session; its findings (or its error) go into the session's
    reward info under statements.llm. Returns them by session id."""
    import asyncio

    from tauplay.llm import LLMConfig, LLMError
    from tauplay.sim.llm_verifier import agent_messages, evidence_texts, judge

    config = LLMConfig(args.verifier_model, api_base=args.verifier_api_base, timeout=args.llm_timeout)
    gate = asyncio.Semaphore(max(1, args.concurrency))
    found: dict[str, Any] = {}

    async def one(session_id: str) -> None:
        record = store.get_session(session_id)
        events = store.events(session_id)
        async with gate:
            try:
                unsupported = await judge(config, agent_messages(events),
                                          evidence_texts(events, str(record.task.get("instruction", "")), domain.policy))
                entry: dict[str, Any] = {"model": config.model, "unsupported": unsupported}
            except LLMError as e:
                entry = {"model": config.model, "error": f"{e.kind}: {e}"}
        info = dict(record.reward_info or {})
        info["statements"] = {**dict(info.get("statements") or {}), "llm": entry}
        store.finish_session(session_id, status=record.status, reason=record.termination_reason,
                             reward=record.reward, reward_info=info)
        found[session_id] = entry

    await asyncio.gather(*(one(r.session_id) for r in results if r.session_id and r.reward is not None))
    return found


def _study_line(store: Any, results: list[Any], injection: Any, interceptor: str | None) -> str:
    """How many sessions got an injection, and how many calls the interceptor refused or answers it withheld
    (from the saved events)."""
    from tauplay.core.events import InjectionData, NoticeData, ToolResultData, of_kind
    from tauplay.core.vocabulary import NoticeAbout

    injected = refused = abstained = 0
    for r in results:
        if not r.session_id:
            continue
        events = store.events(r.session_id)
        injected += any(True for _ in of_kind(events, InjectionData))
        refused += sum(1 for _, res in of_kind(events, ToolResultData) if res.refused_by)
        abstained += any(n.about == NoticeAbout.ABSTAINED for _, n in of_kind(events, NoticeData))
    parts = []
    if injection is not None:
        parts.append(f"{injection.kind} injected ({injection.style} style) in {injected} of {len(results)} sessions "
                     f"(seed {injection.seed})")
    if interceptor == "precall":
        parts.append(f"the interceptor refused {refused} call(s)")
    elif interceptor == "abstain":
        parts.append(f"the interceptor abstained in {abstained} session(s)")
    return "; ".join(parts) + " — tauplay propagation classifies them"


def _print_table(rows: list[Any], trials: int, batch_id: str, store_name: str) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from tauplay.core.text import visible

    table = Table(title=f"batch {batch_id}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    heading = "domain / emotion / difficulty" + (" / behavior" if any(r.group == "behavior" for r in rows) else "")
    table.add_column(heading, justify="left")
    for name in ("tasks", "sessions", "r=1", "r=0", "r=-1", "failed", "mean"):
        table.add_column(name, justify="right")
    for k in range(1, trials + 1):
        table.add_column(f"pass^{k}", justify="right")
    for name in ("success", "steps", "calls", "errors", "violations", "secs"):
        table.add_column(name, justify="right")
    group = None
    for row in rows:
        if group is not None and row.group != group:
            table.add_section()
        group = row.group
        cells = [row.name, str(row.tasks), str(row.sessions), str(row.counts["1"]), str(row.counts["0"]),
                 str(row.counts["-1"]), str(row.counts["failed"]), f"{row.mean:.3f}"]
        cells += [f"{row.pass_k[k]:.3f}" if k in row.pass_k else "-" for k in range(1, trials + 1)]
        name = f"{row.group} {row.name}" if row.group in ("difficulty", "behavior") else row.name
        cells[0] = name
        cells += [f"{row.success:.1%}", f"{row.steps:.1f}", f"{row.calls:.1f}", f"{row.errors:.1f}",
                  f"{row.violated}/{row.sessions}", f"{row.seconds:.2f}"]
        table.add_row(*(Text(visible(c)) for c in cells))  # names from task files: never markup or escapes
    # A pipe or a file gets the whole table rather than rich's 80-column default: wide enough for every
    # column (a name, twelve figures and one pass^k per trial), so that none is cut.
    longest = max((len(r.name) for r in rows), default=8) + len("difficulty ")  # "behavior " is shorter
    console = Console(highlight=False, width=None if sys.stdout.isatty() else max(170, longest + 142 + 10 * trials))
    print_table(console, table)  # an 80-column terminal: in parts, no figure cut
    console.print(visible(f"sessions saved in {store_name} (batch {batch_id})"), markup=False)
