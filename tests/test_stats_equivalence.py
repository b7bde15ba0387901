"""The fast `stats` (event counts kept by a trigger, the vectorised bootstrap) against a straightforward
computation written here from the raw rows: a store of a few hundred varied sessions (several domains, agents,
emotions and trials; running, failed, abandoned, not scorable, eventless ones; violations, tool errors,
follow-ups, labels and reviewed marks), grouped by domain and by domain x model x emotion; then the same store
taken back to schema v7 and upgraded in place, which must give the same report (issue 28)."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections import Counter, defaultdict
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tauplay.analysis.bootstrap import quantile
from tauplay.analysis.stats import compute_stats
from tauplay.core.events import Event
from tauplay.core.vocabulary import EventKind, Role
from tauplay.store import SessionFilter, SessionStore
from tests.support.store import add_annotation

DOMAINS = ("airline", "retail", "telecom")
AGENTS = ({"kind": "llm", "model": "m-big"}, {"kind": "llm", "model": "m-small"}, {"kind": "oracle"})
FAMILIES = ("anger", "fear", None)
RESAMPLES, SEED, K = 200, 3, 3


def _session(store: SessionStore, rng: random.Random, i: int) -> None:
    domain = DOMAINS[i % 3]
    task_no = rng.randrange(24)  # by domain, a group of more than 16 tasks: the bootstrap's walk, not Bernoulli
    family = FAMILIES[(i // 3) % 3]
    agent = AGENTS[rng.randrange(3)]
    actions = [{"name": f"t{j}", "kwargs": {}} for j in range(task_no % 3)]
    sid = store.create_session(domain=domain, task_id=f"{domain}-{task_no}", role="batch", agent=agent,
                               user={"kind": "scripted"}, task={"id": f"{domain}-{task_no}", "actions": actions},
                               emotion={"family": family, "leaf": "x"} if family else None, trial=i % 5)
    at = 1000.0 + i * 7.25
    events: list[Event] = []
    if rng.random() > 0.08:  # some sessions never saved an event
        events.append(Event(seq=0, kind=EventKind.MESSAGE, role=Role.AGENT, data={"content": "Hello, how can I help?"},
                            turn=0, at=at))
        for turn in range(1, rng.randint(1, 4)):
            events.append(Event(seq=len(events), kind=EventKind.MESSAGE, role=Role.USER, data={"content": "help me"},
                                turn=turn, at=at + turn + 0.125))
            for c in range(rng.randrange(3)):
                events.append(Event(seq=len(events), kind=EventKind.TOOL_CALL, role=Role.AGENT,
                                    data={"call_id": f"c{c}", "name": f"t{c}", "arguments": {}}, turn=turn,
                                    at=at + turn + 0.25))
                events.append(Event(seq=len(events), kind=EventKind.TOOL_RESULT, role=Role.ENV,
                                    data={"call_id": f"c{c}", "name": f"t{c}", "output": "{}",
                                          "error": rng.random() < 0.2}, turn=turn, at=at + turn + 0.5))
            text = rng.choice(("Which one do you mean?", "Done.", "Shall I go ahead?"))
            events.append(Event(seq=len(events), kind=EventKind.MESSAGE, role=Role.AGENT, data={"content": text},
                                turn=turn, at=at + turn + 0.75))
    store.append_events([(sid, e) for e in events])
    fate = rng.random()
    if fate < 0.07:
        return  # still running: left out
    if fate < 0.15:
        store.finish_session(sid, status="failed", reason="llm_error", reward=None, reward_info=None)
        return
    reward = rng.choice((1.0, 1.0, 0.0, -1.0))
    info: dict[str, Any] = {"reward": reward}
    if fate < 0.22:
        info["not_scorable"] = "the gold replay fails on this database"
    ending: dict[str, Any] = {"reason": "user_stop", "reward": info}
    if rng.random() < 0.6:
        ending["violations"] = [{"rule": "r1", "detail": "", "seq": 1, "turn": 1}] if rng.random() < 0.3 else []
    end = Event(seq=len(events), kind=EventKind.TERMINATED, role=Role.SYSTEM, data=ending, turn=9, at=at + 20.5)
    status = "abandoned" if reward == -1.0 else "finished"
    store.finish_session(sid, status=status, reason="user_stop", reward=reward, reward_info=info, event=end)
    if rng.random() < 0.15:
        add_annotation(store, sid, category="Wrong Order", who_erred=rng.choice(("agent", "user")),
                             severity="major", annotator="ana")
    elif rng.random() < 0.1:
        store.mark_reviewed(sid, "bo")


def fill(url: str, sessions: int = 480) -> None:
    rng = random.Random(28)
    with SessionStore(url) as store:
        for i in range(sessions):
            _session(store, rng, i)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("equiv") / "s.db"
    fill(str(path))
    return path


# -- the reference: the raw rows, read and counted here ------------------------------------------------------

def _key(row: sqlite3.Row, by: tuple[str, ...]) -> tuple[str, ...]:
    agent = json.loads(row["agent"])
    emotion = json.loads(row["emotion"]) if row["emotion"] else None
    values = {"domain": row["domain"], "model": agent.get("model") or agent["kind"],
              "emotion": (emotion or {}).get("family") or "none"}
    return tuple(values[d] for d in by)


def _reference_interval(tasks: list[tuple[int, int]], k: int, seed: str) -> tuple[float, float] | None:
    """The percentile bootstrap over tasks as stats defines it: the distinct (trials, successes) kinds in order,
    each replicate one multinomial draw of the tasks over them (NumPy's legacy RandomState, seeded with the
    SHA-256 of the group's text seed as eight little-endian words), one replicate at a time here, its pass^k
    the mean over the drawn tasks with at least k trials."""
    kinds = sorted(Counter(tasks).items())
    values = [comb(c, k) / comb(n, k) if n >= k else None for (n, c), _ in kinds]
    valid = [v for v in values if v is not None]
    if not valid:
        return None
    if len(set(valid)) == 1:
        return valid[0], valid[0]
    words = [int.from_bytes(hashlib.sha256(seed.encode()).digest()[i:i + 4], "little") for i in range(0, 32, 4)]
    rng = np.random.RandomState(np.array(words, dtype=np.uint32))
    shares = [weight / len(tasks) for _, weight in kinds]
    means = []
    for _ in range(RESAMPLES):
        counts = rng.multinomial(len(tasks), shares)
        assert sum(counts) == len(tasks)
        total = drawn_tasks = 0.0
        for count, value in zip(counts.tolist(), values, strict=True):
            if count and value is not None:
                total += count * value
                drawn_tasks += count
        if drawn_tasks:
            means.append(total / drawn_tasks)
    means.sort()
    return quantile(means, 0.025), quantile(means, 0.975)


def _r(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(x, digits)


def reference(path: Path, by: tuple[str, ...], domain: str | None = None) -> dict[str, Any]:
    raw = sqlite3.connect(path)
    raw.row_factory = sqlite3.Row
    sessions = [s for s in raw.execute("SELECT * FROM sessions WHERE status != 'running'")
                if domain is None or s["domain"] == domain]
    events: dict[str, list[sqlite3.Row]] = defaultdict(list)
    for e in raw.execute("SELECT * FROM events"):
        events[e["session_id"]].append(e)
    labels = defaultdict(list)
    for a in raw.execute("SELECT * FROM annotations WHERE source != 'suggested'"):
        labels[a["session_id"]].append(a)
    reviewed = {r[0] for r in raw.execute("SELECT session_id FROM session_reviews")}
    raw.close()
    groups: dict[tuple[str, ...], dict[str, Any]] = {}
    unscored = 0
    for s in sessions:
        info = json.loads(s["reward_info"]) if s["reward_info"] else None
        if isinstance(info, dict) and info.get("not_scorable") is not None:
            unscored += 1
            continue
        g = groups.setdefault(_key(s, by), defaultdict(float, tasks=defaultdict(lambda: [0, 0])))
        error = s["status"] in ("failed", "interrupted") or s["reward"] is None
        success = not error and s["reward"] == 1
        g["sessions"] += 1
        g["errors"] += error
        g["r1" if success else "rm1" if not error and s["reward"] == -1 else "r0" if not error else "none"] += 1
        g["reward_sum"] += 0.0 if error else s["reward"]
        task = g["tasks"][(s["domain"], s["task_id"])]
        task[0] += 1
        task[1] += success
        evs = events[s["id"]]
        g["tool_calls"] += sum(e["kind"] == "tool_call" for e in evs)
        g["tool_errors"] += sum(e["kind"] == "tool_result" and json.loads(e["data"]).get("error") is True
                                for e in evs)
        g["follow_ups"] += sum(e["kind"] == "message" and e["role"] == "agent" and e["turn"] > 0
                               and "?" in json.loads(e["data"])["content"] for e in evs)
        g["seconds"] += max(e["at"] for e in evs) - min(e["at"] for e in evs) if evs else 0.0
        ends = [json.loads(e["data"]) for e in evs if e["kind"] == "terminated"]
        checked = any(end.get("violations") is not None for end in ends)
        g["checked"] += checked
        g["violated"] += any(end.get("violations") for end in ends)
        if not success:
            g["failures"] += 1
            g["judged"] += bool(labels[s["id"]]) or s["id"] in reviewed
            g["user_erred"] += any(a["who_erred"] == "user" for a in labels[s["id"]])
    out = {}
    for key, g in groups.items():
        seed = f"{SEED}:{json.dumps(dict(zip(by, key, strict=True)), sort_keys=True)}"  # each group its own stream
        pairs = [tuple(t) for t in g["tasks"].values()]
        n = g["sessions"]
        pass_k, pass_k_tasks, ci = {}, {}, {}
        for k in range(1, K + 1):
            scores = [comb(c, k) / comb(t, k) for t, c in pairs if t >= k]
            pass_k[str(k)] = _r(sum(scores) / len(scores)) if scores else None
            pass_k_tasks[str(k)] = len(scores)
            interval = _reference_interval(pairs, k, seed)
            ci[str(k)] = None if interval is None else [_r(interval[0]), _r(interval[1])]
        out[json.dumps(dict(zip(by, key, strict=True)))] = {
            "sessions": n, "tasks": len(pairs), "errors": int(g["errors"]),
            "rewards": {"1": int(g["r1"]), "0": int(g["r0"]), "-1": int(g["rm1"])},
            "mean_reward": _r(g["reward_sum"] / n), "pass_hat_k": pass_k, "pass_hat_k_tasks": pass_k_tasks,
            "pass_hat_k_ci": ci, "avg_tool_calls": _r(g["tool_calls"] / n, 3),
            "avg_tool_errors": _r(g["tool_errors"] / n, 3), "avg_follow_ups": _r(g["follow_ups"] / n, 3),
            "avg_seconds": _r(g["seconds"] / n, 3),
            "policy_violations": {"checked": int(g["checked"]), "violated": int(g["violated"]),
                                  "rate": _r(g["violated"] / g["checked"]) if g["checked"] else None},
            "failures": {"sessions": int(g["failures"]), "judged": int(g["judged"]),
                         "user_erred": int(g["user_erred"]),
                         "user_share": _r(g["user_erred"] / g["judged"]) if g["judged"] else None}}
    return {"not_scorable": unscored, "groups": out}


def fast(path: Path | str, by: tuple[str, ...], domain: str | None = None) -> dict[str, Any]:
    """The report's figures as `tauplay stats` computes them (a store's file or URL)."""
    with SessionStore(str(path), readonly=True) as store:
        report = compute_stats(store, list(by), k=K, resamples=RESAMPLES, seed=SEED,
                               flt=SessionFilter(domain=domain)).to_json()
    fields = ("sessions", "tasks", "errors", "rewards", "mean_reward", "pass_hat_k", "pass_hat_k_tasks",
              "pass_hat_k_ci", "avg_tool_calls", "avg_tool_errors", "avg_follow_ups", "avg_seconds",
              "policy_violations")
    groups = {}
    for g in report["groups"]:
        failures = g["failures"]
        groups[json.dumps(g["key"])] = {**{f: g[f] for f in fields}, "failures": failures}
    return {"not_scorable": report["not_scorable"], "groups": groups}


@pytest.mark.parametrize("by", [("domain",), ("domain", "model", "emotion")])
def test_fast_stats_equal_a_direct_count_of_the_raw_rows(db: Path, by: tuple[str, ...]) -> None:
    expected = reference(db, by)
    got = fast(db, by)
    assert expected["not_scorable"] > 0 and len(expected["groups"]) >= len(DOMAINS)
    assert sum(g["policy_violations"]["violated"] for g in expected["groups"].values()) > 0
    assert any(ci and ci[0] < ci[1] for g in expected["groups"].values()
               for ci in g["pass_hat_k_ci"].values())  # the bootstrap really resampled
    assert got == expected


def test_a_filter_reads_the_same_sessions(db: Path) -> None:
    expected = reference(db, ("model", "emotion"), domain="retail")
    assert expected["groups"] and expected["not_scorable"] > 0
    assert fast(db, ("model", "emotion"), domain="retail") == expected


def test_an_upgraded_v7_store_gives_the_same_report(db: Path, tmp_path: Path) -> None:
    old = tmp_path / "v7.db"
    src, dst = sqlite3.connect(db), sqlite3.connect(old)
    src.backup(dst)
    src.close()
    for sql in ("DROP TRIGGER tr_events_count", "DROP TRIGGER tr_sessions_facts_insert",  # as schema v7 left it
                "DROP TRIGGER tr_sessions_facts_update", "DROP TABLE event_counts", "DROP TABLE session_facts"):
        dst.execute(sql)
    dst.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    dst.commit()
    dst.close()
    with SessionStore(str(old)) as store:  # upgraded in place: counts from the events already saved
        assert store.schema_version == 8
    assert fast(old, ("domain", "model", "emotion")) == reference(db, ("domain", "model", "emotion"))
    with SessionStore(str(old)) as store:  # and the trigger counts what comes after
        _session(store, random.Random(5), 999)
    assert fast(old, ("domain",)) == reference(old, ("domain",))
