"""`tauplay stats`, `plot` and `report` over real SQLite stores: two batches run by `tauplay run` (the offline
oracle with 3 trials, an LLM agent over HTTP to the local test server with 2), checked against a direct
computation from the sessions table; the labelled fixture (tests/analysis_fixture.py) checked against figures
worked out by hand; every plot kind written as a real image; the v3 -> v4 migration."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections import defaultdict
from math import comb
from pathlib import Path
from typing import Any

import pytest

from tauplay.analysis.bootstrap import mean_interval, pass_k_intervals, resampled_counts
from tauplay.analysis.stats import compute_stats
from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.store import SessionStore
from tests import analysis_fixture
from tests.conftest import REPO

STARTER = load_tasks(get_domain("airline").task_set_path(), "airline")
BAG_TASK = "airline-starter-03-add-bag"
CANCEL_TASK = "airline-starter-02-cancel-business"
BAG_WRITE = STARTER.by_id(BAG_TASK).actions[1].kwargs


def stats_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code = main(["stats", *argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def direct(db: str, key_sql: str, k_max: int = 3) -> dict[str, dict[str, Any]]:
    """pass^k and reward counts straight from the sessions table, without tauplay's code."""
    raw = sqlite3.connect(db)
    rows = raw.execute(f"SELECT {key_sql}, domain, task_id, status, reward FROM sessions "
                       "WHERE status != 'running'").fetchall()
    raw.close()
    trials: dict[str, dict[tuple[str, str], list[bool]]] = defaultdict(lambda: defaultdict(list))
    rewards: dict[str, dict[str, int]] = defaultdict(lambda: {"1": 0, "0": 0, "-1": 0, "errors": 0})
    for key, domain, task_id, status, reward in rows:
        error = status in ("failed", "interrupted") or reward is None
        trials[key][(domain, task_id)].append(not error and reward == 1)
        rewards[key]["errors" if error else "1" if reward == 1 else "-1" if reward == -1 else "0"] += 1
    out = {}
    for key, tasks in trials.items():
        pass_k: dict[str, float | None] = {}
        for k in range(1, k_max + 1):
            scores = [comb(sum(t), k) / comb(len(t), k) for t in tasks.values() if len(t) >= k]
            pass_k[str(k)] = round(sum(scores) / len(scores), 4) if scores else None
        out[key] = {"pass_hat_k": pass_k, "rewards": rewards[key], "sessions": sum(map(len, tasks.values())),
                    "tasks": len(tasks)}
    return out


@pytest.fixture
def two_batches(llm_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    """An oracle batch (2 tasks x 3 trials, all solved) and an LLM batch (the bag task x 2: one solved, one whose
    model fails for good, an error)."""
    db = str(tmp_path / "s.db")
    batches = []
    assert main(["run", "--domain", "airline", "--trials", "3", "--task-ids", BAG_TASK, CANCEL_TASK,
                 "--db", db, "--json"]) == 0
    batches.append(json.loads(capsys.readouterr().out)["batch_id"])
    llm_server.queue("agent").tool_call("get_reservation_details", {"reservation_id": "842X51"}) \
        .text("One more paid bag on credit_card_2727081, 2 in total. Shall I go ahead (yes/no)?") \
        .tool_call("update_reservation_baggages", BAG_WRITE).text("Done, you now have two bags.") \
        .error(500).error(500).error(500)
    code = main(["run", "--domain", "airline", "--task-ids", BAG_TASK, "--trials", "2", "--concurrency", "1",
                 "--agent-model", "openai/agent", "--agent-api-base", llm_server.url, "--llm-timeout", "5",
                 "--db", db, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert sorted(str(s["reason"]) for s in report["sessions"]) == ["llm_error", "user_stop"]
    batches.append(report["batch_id"])
    return db, batches


def test_stats_json_over_two_batches_equals_a_direct_computation(two_batches: tuple[str, list[str]],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db, (oracle_batch, llm_batch) = two_batches
    by_model = stats_json(capsys, "--db", db, "--by", "model")
    expected = direct(db, "coalesce(json_extract(agent, '$.model'), json_extract(agent, '$.kind'))")
    assert {g["key"]["model"] for g in by_model["groups"]} == {"oracle", "openai/agent"} == set(expected)
    for g in by_model["groups"]:
        want = expected[g["key"]["model"]]
        assert g["pass_hat_k"] == want["pass_hat_k"]
        assert g["rewards"] == {k: want["rewards"][k] for k in ("1", "0", "-1")}
        assert g["errors"] == want["rewards"]["errors"]
        assert (g["sessions"], g["tasks"]) == (want["sessions"], want["tasks"])
    llm = next(g for g in by_model["groups"] if g["key"]["model"] == "openai/agent")
    assert llm["pass_hat_k"] == {"1": 0.5, "2": 0.0, "3": None} and llm["errors"] == 1  # the error is a failure
    # One group per domain: the bag task has 5 trials (4 solved), the cancel task 3 (all solved).
    (domain,) = stats_json(capsys, "--db", db)["groups"]
    assert domain["key"] == {"domain": "airline"}
    assert domain["pass_hat_k"] == direct(db, "domain")["airline"]["pass_hat_k"] == {"1": 0.9, "2": 0.8, "3": 0.7}
    assert domain["rewards"] == {"1": 7, "0": 0, "-1": 0} and domain["errors"] == 1 and domain["sessions"] == 8
    # Every bootstrap interval holds its point estimate.
    for g in [*by_model["groups"], domain]:
        for k, value in g["pass_hat_k"].items():
            ci = g["pass_hat_k_ci"][k]
            assert (ci is None) == (value is None)
            if ci is not None:
                assert ci[0] <= value <= ci[1]
    # --batch keeps one batch; the same seed gives the same intervals.
    (only,) = stats_json(capsys, "--db", db, "--batch", llm_batch)["groups"]
    assert only["sessions"] == 2 and only["pass_hat_k"]["1"] == 0.5
    again = stats_json(capsys, "--db", db, "--by", "model")
    assert [g["pass_hat_k_ci"] for g in again["groups"]] == [g["pass_hat_k_ci"] for g in by_model["groups"]]
    assert oracle_batch != llm_batch


def test_the_labelled_fixture_gives_the_hand_computed_figures(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = analysis_fixture.build(tmp_path / "f.db")
    report = stats_json(capsys, "--db", db, "--by", "simulator")
    a, b = report["groups"]
    assert (a["key"], b["key"]) == ({"simulator": "llm:openai/userA"}, {"simulator": "scripted"})
    # s9 is still running: left out.
    assert (a["sessions"], b["sessions"]) == (4, 4)
    # User simulator A: failures s1 (user erred), s3 (agent erred), s4 (not judged) -> 1 of 2 judged.
    assert a["failures"] == {"sessions": 3, "judged": 2, "user_erred": 1, "user_share": 0.5}
    # Scripted: s5 (reviewed, no fault), s6 (an error, user erred), s8 (user and agent) -> 2 of 3.
    assert b["failures"] == {"sessions": 3, "judged": 3, "user_erred": 2, "user_share": round(2 / 3, 4)}
    assert b["errors"] == 1 and b["rewards"] == {"1": 1, "0": 1, "-1": 1}
    # Violations: checked on s1 (none) and s2 (one) for A; on s5 (one) for the scripted user.
    assert a["policy_violations"] == {"checked": 2, "violated": 1, "rate": 0.5}
    assert b["policy_violations"] == {"checked": 1, "violated": 1, "rate": 1.0}
    # Tool calls over follow-up questions (the greeting's question is not one): A 8 / 4, scripted 4 / 4.
    assert (a["tool_call_follow_up_ratio"], b["tool_call_follow_up_ratio"]) == (2.0, 1.0)
    assert a["avg_user_turns"] == 2.0 and a["avg_agent_turns"] == 3.0 and a["avg_gold_actions"] == 2.0
    assert b["faults"]["Missed Action"] == 2 and b["faults"]["Early Stop"] == 1 and b["who_erred"]["user"] == 2
    # Emotion fidelity of A, by hand: pairs (anger, anger) x2, (fear, fear), (fear, none).
    # p_o = 3/4; p_e = (2*2 + 2*1) / 16 = 3/8; kappa = (3/4 - 3/8) / (5/8) = 0.6.
    fid = a["emotion_fidelity"]
    assert fid["labels"] == 4 and fid["agreement"] == 0.75 and fid["kappa"] == pytest.approx(0.6)
    assert fid["intensity_agreement"] == round(2 / 3, 4)  # s1's second turn was read as mild, not moderate
    assert fid["confusion"] == {"anger": {"anger": 2}, "fear": {"fear": 1, "none": 1}}
    # fear as yes/no: (F,F) (F,F) (T,T) (T,F): p_o = 3/4, p_e = (2*1 + 2*3) / 16 = 1/2, kappa = 1/2.
    assert fid["by_family"]["fear"] == {"labels": 2, "agreement": 0.5, "kappa": 0.5,
                                        "perceived": {"fear": 1, "none": 1}}
    assert fid["by_family"]["anger"]["kappa"] == 1.0
    assert b["emotion_fidelity"]["labels"] == 0 and b["emotion_fidelity"]["kappa"] is None
    # The filters of the review list.
    (only,) = stats_json(capsys, "--db", db, "--by", "simulator", "--label", "EarlyStop")["groups"]
    assert only["key"] == {"simulator": "scripted"} and only["sessions"] == 1
    groups = stats_json(capsys, "--db", db, "--by", "emotion", "difficulty")["groups"]
    assert {(g["key"]["emotion"], g["key"]["difficulty"]): g["sessions"] for g in groups} == {
        ("anger", 2): 3, ("fear", 2): 1, ("fear", "none"): 2, ("none", "none"): 2}
    # The table output names the fidelity and prints keys literally.
    assert main(["stats", "--db", db, "--by", "simulator"]) == 0
    out = capsys.readouterr().out
    assert "Emotion fidelity" in out and "llm:openai/userA" in out


def test_behavior_groups_read_the_user_description(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.core.labels import SessionBundle

    bundles = [SessionBundle(domain="airline", task_id="t", task={"id": "t"}, events=[], reward=1.0, id=f"b{i}",
                             user={"kind": "scripted", **({"behavior": behavior} if behavior is not None else {})})
               for i, behavior in enumerate([{"patience": "low", "disclosure": "minimal"}, None,
                                             {"disclosure": "minimal", "patience": "low"}])]
    db = str(tmp_path / "b.db")
    with SessionStore(db) as store:
        store.import_sessions(bundles)
    groups = stats_json(capsys, "--db", db, "--by", "behavior")["groups"]
    assert {g["key"]["behavior"]: g["sessions"] for g in groups} == {"disclosure=minimal,patience=low": 2,
                                                                     "none": 1}


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    SessionStore(db).close()  # an existing (empty) database: stats and plot only read, and refuse a missing one
    for argv, message in ((["--k", "0"], "--k must be from 1 to 100"), (["--label", "Nope"], "unknown label 'Nope'"),
                          (["--k", "1000000"], "--k must be from 1 to 100, got 1000000"),  # it ran for minutes
                          (["--db", "nosuchdriver://x/y"], "nosuchdriver")):
        assert main(["stats", "--db", db, *argv] if argv[0] != "--db" else ["stats", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert main(["plot", "rewards", "--db", db, "--out", str(tmp_path / "x.gif")]) == 2
    assert ".png, .svg or .pdf" in capsys.readouterr().err
    assert main(["plot", "graph", "--out", str(tmp_path / "g.png")]) == 2
    assert "needs --domain" in capsys.readouterr().err


PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("kind", ["success-by-emotion", "pass-k", "ratio", "violations", "faults", "coverage",
                                  "rewards", "graph"])
def test_every_plot_kind_writes_a_real_image(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = analysis_fixture.build(tmp_path / "f.db")
    out = tmp_path / f"{kind}.png"
    extra = ["--domain", "airline"] if kind == "graph" else ["--db", db]
    assert main(["plot", kind, *extra, "--out", str(out)]) == 0, capsys.readouterr().err
    data = out.read_bytes()
    assert data[:8] == PNG and len(data) > 10_000
    from PIL import Image  # matplotlib's own dependency

    with Image.open(out) as image:
        assert image.size[0] > 400 and image.size[1] > 200
        assert sum(1 for n in image.convert("L").histogram() if n) > 8  # drawn, not blank


def test_plot_formats_by_extension(tmp_path: Path) -> None:
    db = analysis_fixture.build(tmp_path / "f.db")
    assert main(["plot", "rewards", "--db", db, "--out", str(tmp_path / "r.svg")]) == 0
    assert (tmp_path / "r.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    assert main(["plot", "graph", "--domain", "retail", "--out", str(tmp_path / "g.pdf")]) == 0
    assert (tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"


def test_report_writes_every_table_and_figure_with_an_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = analysis_fixture.build(tmp_path / "f.db")
    out = tmp_path / "report"
    assert main(["report", "--db", db, "--out", str(out), "--graphs", "airline", "retail"]) == 0
    capsys.readouterr()
    tables = sorted(p.name for p in (out / "tables").iterdir())
    assert "emotion_fidelity_by_simulator.csv" in tables and "user_share_by_simulator.md" in tables
    assert len([t for t in tables if t.endswith(".csv")]) == len([t for t in tables if t.endswith(".md")]) >= 10
    figures = sorted(p.name for p in (out / "figures").iterdir())
    assert {"graph-airline.png", "graph-retail.png", "ratio.png", "coverage.png"} <= set(figures)
    index = (out / "index.md").read_text()
    for name in [*tables, *figures]:
        assert name in index
    assert "Table 6" in index and "Figure 14" in index and (out / "index.html").read_text().count("<img") == 9
    share = (out / "tables" / "user_share_by_simulator.csv").read_text().splitlines()
    assert share[0].split(",")[0] == "simulator" and share[1].split(",")[-1] == "0.5"


def test_report_refuses_what_would_write_empty_tables_over_a_report(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A filter that matches nothing (a typo in --batch) wrote empty tables over the report in --out, exit 0;
    an absurd --k ran for minutes. Both are one line, exit 2, and the report already there stays as it was."""
    db = analysis_fixture.build(tmp_path / "f.db")
    out = tmp_path / "report"
    assert main(["report", "--db", db, "--out", str(out), "--graphs", "--resamples", "0"]) == 0
    capsys.readouterr()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    for argv, message in ((["--batch", "typo"], f"no finished sessions in {db} matching the filters: nothing written"),
                          (["--k", "1000000"], "--k must be from 1 to 100, got 1000000")):
        assert main(["report", "--db", db, "--out", str(out), "--graphs", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert main(["plot", "pass-k", "--db", db, "--k", "1000", "--out", str(tmp_path / "p.png")]) == 2
    assert "--k must be from 1 to 100" in capsys.readouterr().err and not (tmp_path / "p.png").exists()
    figure = tmp_path / "rewards.png"  # a figure made before: a typo in --batch drew "no finished sessions" over it
    assert main(["plot", "rewards", "--db", db, "--out", str(figure)]) == 0
    capsys.readouterr()
    drawn = figure.read_bytes()
    assert main(["plot", "rewards", "--db", db, "--batch", "typo", "--out", str(figure)]) == 2
    assert "matching the filters: nothing written to" in capsys.readouterr().err and figure.read_bytes() == drawn
    empty = tmp_path / "e.db"
    SessionStore(str(empty)).close()
    assert main(["report", "--db", str(empty), "--out", str(tmp_path / "r2")]) == 2
    assert "no finished sessions in" in capsys.readouterr().err and not (tmp_path / "r2").exists()


def test_bootstrap_draws_are_multinomial_and_reproducible() -> None:
    weights = [300, 600, 100]  # 1,000 items in three kinds
    counts = resampled_counts(weights, 4000, "x")
    assert counts.shape == (4000, 3) and set(counts.sum(axis=1).tolist()) == {1000}  # each a resample of 1,000
    for i, w in enumerate(weights):
        p = w / 1000
        column = counts[:, i].tolist()
        mean = sum(column) / len(column)
        var = sum((c - mean) ** 2 for c in column) / len(column)
        assert abs(mean - 1000 * p) < 1.5 and abs(var / (1000 * p * (1 - p)) - 1) < 0.1  # n p, n p (1 - p)
    assert (resampled_counts(weights, 50, "x") == counts[:50]).all()  # the same seed, the same draws
    assert not (resampled_counts(weights, 50, "y") == counts[:50]).all()
    values = [1.0] * 30 + [0.0] * 70 + [0.5] * 10
    ci = mean_interval(values, resamples=500, confidence=0.95, seed="x")
    assert ci == mean_interval(values, resamples=500, confidence=0.95, seed="x")
    point = sum(values) / len(values)
    assert ci is not None and ci[0] < point < ci[1] and ci[1] - ci[0] < 0.25


def test_pass_k_intervals_match_the_normal_approximation() -> None:
    """400 tasks of 4 trials: the bootstrap's 95% interval of pass^1 is close to mean +- 1.96 sd / sqrt(T) of
    the tasks' scores (the bootstrap's own sampling error aside), and pass^4 only counts the solved tasks."""
    rng = random.Random(5)
    tasks = [(4, rng.choice((0, 1, 2, 3, 4, 4))) for _ in range(400)]
    ks = [1, 4, 5]

    def score(n: int, c: int, k: int) -> float:
        return comb(c, k) / comb(n, k)

    ci = pass_k_intervals(tasks, ks, score, resamples=2000, confidence=0.95, seed="0:all")
    assert ci[5] is None  # no task has 5 trials
    for k in (1, 4):
        scores = [score(n, c, k) for n, c in tasks]
        mean = sum(scores) / len(scores)
        half = 1.96 * (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5 / len(scores) ** 0.5
        low, high = ci[k] or (0.0, 0.0)
        assert abs(low - (mean - half)) < 0.15 * half and abs(high - (mean + half)) < 0.15 * half, (k, ci[k])
    assert pass_k_intervals(tasks, ks, score, resamples=2000, confidence=0.95, seed="0:all") == ci
    assert pass_k_intervals(tasks, ks, score, resamples=2000, confidence=0.95, seed="1:all") != ci


def test_a_v3_store_gains_the_perceptions_table(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(REPO / "tests" / "fixtures" / "store_v3_main.db", db)
    with SessionStore(str(db)) as store:
        assert store.schema_version == 8
        report = compute_stats(store, ["domain"], k=2)
        assert report.groups[0].sessions == 4  # the running session of the killed batch is left out
    fresh = tmp_path / "fresh.db"
    SessionStore(str(fresh)).close()
    from tests.test_store import _shape

    assert _shape(db, "perceptions") == _shape(fresh, "perceptions")
    assert _shape(db, "perceptions")["unique"] == [("session_id", "seq", "annotator")]


def test_an_80_column_terminal_gets_every_figure_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """In an 80-column terminal `tauplay stats` and `tauplay run` cut every column to fit ("1…" for a mean of
    1.000, "ba…" for bank): the figures could not be read. They come in parts of the same rows, none cut."""
    import re
    import sys

    db = analysis_fixture.build(tmp_path / "f.db")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["stats", "--db", db, "--by", "domain", "emotion"]) == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    lines = out.splitlines()
    assert lines and all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert "…" not in out
    for column in ("sessions", "mean", "pass^1", "pass^1 CI", "calls/ask", "user-erred"):
        assert any(column in line.split("  ") or f" {column} " in f" {line} " for line in lines), column
    first = stats_json(capsys, "--db", db, "--by", "domain", "emotion")["groups"][0]
    row = next(line for line in lines if line.split()[:2] == [first["key"]["domain"], first["key"]["emotion"]])
    assert f"{first['mean_reward']:.3f}" in out and row.split()[2] == str(first["sessions"])
    assert main(["run", "--domain", "bank", "--tasks", "starter", "--db", str(tmp_path / "r.db"),
                 "--task-ids", "bank-starter-01-lock-misplaced-card"]) == 0
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert "…" not in out and "1.000" in out and " bank " in out
