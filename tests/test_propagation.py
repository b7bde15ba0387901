"""`tauplay propagation`: classes that match a count made directly from the saved sessions (published airline
tasks, oracle, with and without injection), the interceptor turning malformed calls into rejections, a model
agent that recovers (over HTTP to the local server), human calibration, and the statistics by hand."""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.events import InjectionData, MessageData, ToolCallData, ToolResultData, of_kind
from tauplay.core.labels import Judgment
from tauplay.core.propagation import incomplete_beta, ranks, spearman, wilson
from tauplay.core.tasks import task_from_json
from tauplay.store import SessionStore
from tests.conftest import taubench_dir

NOT_SCORABLE = 2  # published airline test tasks whose gold replay fails on the published database
SCORABLE = 70 - NOT_SCORABLE


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def run_batch(db: Path, *extra: str, tasks: tuple[str, ...] = ()) -> str:
    data = taubench_dir("airline")
    argv = ["run", "--domain", "airline", "--data", str(data), "--tasks", str(data / "tasks_test.json"), "--allow-invalid",
            "--db", str(db), "--json", *extra]
    if tasks:
        argv += ["--task-ids", *tasks]
    code, out = cli(*argv)
    assert code == 0, out
    return str(json.loads(out)["batch_id"])


def report(db: Path, *extra: str) -> dict[str, Any]:
    code, out = cli("propagation", "--db", str(db), "--json", *extra)
    assert code == 0, out
    return dict(json.loads(out))


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    db = tmp_path_factory.mktemp("prop") / "s.db"
    found = {"db": db, "plain": run_batch(db)}
    for kind in ("semantic_wrong", "out_of_range", "type_mismatch", "missing_required"):
        found[kind] = run_batch(db, "--inject", kind, "--seed", "5")
    for kind in ("semantic_wrong", "type_mismatch", "missing_required"):
        found[f"{kind}+interceptor"] = run_batch(db, "--inject", kind, "--seed", "5", "--interceptor")
    return found


def direct_count(db: Path, batch: str) -> dict[str, Any]:
    """Classes counted straight from the saved sessions, for the oracle: its only calls are the gold actions
    and its look-up of who the user is (checked here), so after a refused injected call nothing wrong can be written and a refusal is a rejection
    (the published airline tasks expect no output, so the answers are always right)."""
    counts = {"rejected": 0, "recovered": 0, "propagated": 0, "unaffected": 0}
    plain = []
    unscored = 0
    with SessionStore(str(db)) as store:
        for record in store.list_sessions(batch_id=batch):
            if (record.reward_info or {}).get("not_scorable"):
                unscored += 1  # run with --allow-invalid: its gold replay fails on the published database
                continue
            events = store.events(record.id)
            injected = [i for _, i in of_kind(events, InjectionData)]
            if not injected:
                plain.append(record.reward)
                continue
            task = task_from_json(record.task, Path("t"), 0, "airline")
            assert not task.outputs
            gold = [(a.name, a.kwargs) for a in task.actions]
            injected_ids = {i.call_id for i in injected}
            sent = [(c.name, c.arguments) for _, c in of_kind(events, ToolCallData) if c.call_id not in injected_ids
                    and not c.call_id.startswith("oracle_identify_")]  # its look-up of who the user is
            sent += [(i.tool, i.original) for i in injected]
            assert all(call in gold for call in sent)  # the oracle made gold calls only
            results = {r.call_id: r for _, r in of_kind(events, ToolResultData)}
            refused = all(results[i].error for i in injected_ids)
            info = record.reward_info or {}
            right = info["db_match"] and all(info["outputs"].values()) and not info["abandoned"]
            if refused:
                counts["rejected"] += 1
            elif right:
                counts["unaffected"] += 1  # the oracle never calls a tool twice: no correction
            else:
                counts["propagated"] += 1
    return {"counts": counts, "plain": plain, "not_scorable": unscored}


def row(rep: dict[str, Any], kind: str = "all", interceptor: bool = False, model: str = "oracle") -> dict[str, Any]:
    return next(r for r in rep["rows"] if (r["model"], r["kind"], r["interceptor"]) == (model, kind, interceptor))


@pytest.mark.parametrize("kind", ["semantic_wrong", "out_of_range"])
def test_rates_match_a_count_from_the_saved_sessions(batches: dict[str, Any], kind: str) -> None:
    db, batch = batches["db"], batches[kind]
    rep = report(db, "--batch", batch)
    expected = direct_count(db, batch)["counts"]
    got = row(rep, kind)
    n = sum(expected.values())
    assert got["sessions"] == n == rep["injected_sessions"] and got["counts"] == expected
    assert got["rates"] == {k: round(v / n, 4) for k, v in expected.items()}
    p, low, high = wilson(expected["propagated"], n) or (0, 0, 0)
    assert got["propagation"] == {"p": round(p, 4), "low": round(low, 4), "high": round(high, 4), "method": "wilson"}
    assert got["rejection_rate"] == round(expected["rejected"] / n, 4)
    assert expected["propagated"] > 0 and expected["unaffected"] > 0  # the kinds do both
    assert row(rep) == {**got, "kind": "all"}  # one kind in the batch: the "all" row is the same
    # two published test tasks cannot be scored on the published database (their gold replay fails): counted, left out
    assert rep["not_scorable"] == direct_count(db, batch)["not_scorable"] == NOT_SCORABLE
    assert rep["not_injected"] == 70 - NOT_SCORABLE - n
    for s in rep["sessions"]:  # every session's class comes with its reason
        assert s["class"] in expected and s["reason"].startswith(kind)
        # the published tasks have no outputs: no answer to judge against, and every session says so
        assert s["answer"] == "no answer to judge against" and "no answer to judge against" in s["reason"]
    assert rep["no_answer_to_judge_against"] == n


def test_the_batch_without_injection_is_the_baseline(batches: dict[str, Any]) -> None:
    rep = report(batches["db"], "--batch", batches["plain"])
    plain = direct_count(batches["db"], batches["plain"])["plain"]
    assert rep["rows"] == [] and rep["injected_sessions"] == 0 and len(plain) == SCORABLE
    assert rep["not_scorable"] == NOT_SCORABLE
    (base,) = rep["baselines"]
    assert base == {"model": "oracle", "interceptor": False, "sessions": SCORABLE, "mean_reward": 1.0, "wrong": 0,
                    "wrong_rate": 0.0}
    # the whole database: every injected batch counted once, plain sessions as the baseline
    everything = report(batches["db"])
    assert everything["injected_sessions"] == sum(row(report(batches["db"], "--batch", batches[k]), k.split("+")[0],
                                                      "+" in k)["sessions"]
                                                  for k in batches if k not in ("db", "plain"))
    assert everything["baselines"][0]["sessions"] == SCORABLE


@pytest.mark.parametrize("kind", ["type_mismatch", "missing_required"])
def test_the_interceptor_turns_malformed_injections_into_rejections(batches: dict[str, Any], kind: str) -> None:
    rep = report(batches["db"], "--batch", batches[f"{kind}+interceptor"])
    got = row(rep, kind, interceptor=True)
    assert got["sessions"] == SCORABLE and got["counts"]["rejected"] == SCORABLE and got["rejection_rate"] == 1.0
    assert got["propagation"]["p"] == 0.0
    assert all(s["refused_by_interceptor"] for s in rep["sessions"])  # stopped before the tool saw it
    with SessionStore(str(batches["db"])) as store:
        for record in store.list_sessions(batch_id=batches[f"{kind}+interceptor"]):
            events = store.events(record.id)
            (injection,) = [i for _, i in of_kind(events, InjectionData)]
            (result,) = [r for _, r in of_kind(events, ToolResultData) if r.call_id == injection.call_id]
            assert result.refused_by == "interceptor" and "refused by the interceptor" in result.output
            assert "Call it again" in result.output  # an error the agent can act on


def test_the_report_compares_runs_with_and_without_the_interceptor(batches: dict[str, Any]) -> None:
    rep = report(batches["db"])
    effect = next(e for e in rep["interceptor_effect"] if e["kind"] == "semantic_wrong")
    off, on = row(rep, "semantic_wrong"), row(rep, "semantic_wrong", interceptor=True)
    assert effect["propagation_without"] == off["propagation"]["p"]
    assert effect["propagation_with"] == on["propagation"]["p"]
    # the rates are shown rounded to four places, the effect is worked out before rounding
    assert abs(effect["points"] - round(100 * (on["propagation"]["p"] - off["propagation"]["p"]), 1)) <= 0.1
    assert on["rejection_rate"] > off["rejection_rate"]  # unseen values are refused before they reach the tool
    code, text = cli("propagation", "--db", str(batches["db"]))
    assert code == 0
    for words in ("Propagation of injected errors", "semantic_wrong", "interceptor, oracle / semantic_wrong",
                  "AgentProp-Bench", "0.62", "without injection: oracle"):
        assert words in text, words


def test_people_calibrate_the_propagation_probability(batches: dict[str, Any], tmp_path: Path) -> None:
    import shutil

    db = tmp_path / "labelled.db"
    shutil.copy(batches["db"], db)
    rep = report(db, "--batch", batches["semantic_wrong"])
    by_class: dict[str, list[str]] = {}
    for s in rep["sessions"]:
        by_class.setdefault(s["class"], []).append(s["session_id"])
    prop, unaffected = by_class["propagated"][:4], by_class["unaffected"][:2]
    with SessionStore(str(db)) as store:
        for sid, label in zip(prop, ("yes", "yes", "yes", "no"), strict=True):
            store.save_judgment(sid, Judgment("human", label, annotator="ana"))
        for sid, label in zip(unaffected, ("yes", "no"), strict=True):
            store.save_judgment(sid, Judgment("human", label, annotator="ana"))
        store.save_judgment(prop[0], Judgment("substring", "no"))  # a judge's answer never calibrates
    cal = row(report(db, "--batch", batches["semantic_wrong"]), "semantic_wrong")["calibrated"]
    n = len(rep["sessions"])
    share = {c: len(v) / n for c, v in by_class.items()}
    # by hand: each class's share times the people's "yes" share in it (unlabelled classes keep the class's answer)
    expected = share["propagated"] * 3 / 4 + share["unaffected"] * 1 / 2
    assert cal["p"] == round(expected, 4) and cal["labelled"] == 6 and cal["human_yes"] == 4
    assert cal["low"] <= cal["p"] <= cal["high"] and cal["method"] == "bootstrap"
    # the classifier against ana: propagated/yes 3, propagated/no 1, unaffected/yes 1, unaffected/no 1
    p_o, p_e = 4 / 6, (4 * 4 + 2 * 2) / 36
    assert cal["kappa_vs_human"] == round((p_o - p_e) / (1 - p_e), 4)


@pytest.mark.parametrize("between", [False, True])
def test_a_model_agent_that_redoes_the_corrupted_call(llm_server: Any, tmp_path: Path, between: bool) -> None:
    """Published task 60 (look up VRWM8U, cancel it): the first look-up is made to read another reservation of
    the same user; the model sees its call with that value, looks VRWM8U up again and cancels the right one.
    Redone as its very next call, the agent caught the value itself (AgentProp's rejection, by the agent); redone
    after another call, it recovered."""
    agent = llm_server.queue("agent")
    agent.tool_call("get_reservation_details", {"reservation_id": "VRWM8U"}, "c1")
    if between:
        agent.tool_call("list_all_airports", {}, "c1b")
    agent.tool_call("get_reservation_details", {"reservation_id": "VRWM8U"}, "c2")
    agent.tool_call("cancel_reservation", {"reservation_id": "VRWM8U"}, "c3")
    agent.text("Your reservation VRWM8U is cancelled.")
    agent.fallback = None
    db = tmp_path / "s.db"
    batch = run_batch(db, "--inject", "semantic_wrong", "--inject-at", "1", "--seed", "0", "--agent-model",
                      "openai/agent", "--agent-api-base", llm_server.url, "--max-steps", "20", tasks=("60",))
    rep = report(db, "--batch", batch)
    (session,) = rep["sessions"]
    assert session["corrected"] and session["model"] == "openai/agent"
    mine = row(rep, model="openai/agent")
    if between:
        assert session["class"] == "recovered" and session["rejected_by"] is None and session["caught"] is None
        assert mine["recovery_rate"] == 1.0 and mine["rejected_by_agent"] == 0
    else:
        assert session["class"] == "rejected" and session["rejected_by"] == "agent"
        assert session["caught"] == "corrected"
        assert mine["rejected_by_agent"] == 1 and mine["rejected_by_environment"] == 0
        assert mine["rejected_by_agent_rate"] == 1.0 and mine["recovery_rate"] is None
    # the look-up of the wrong reservation ran and nothing went wrong after: one stage (EPS 0 — no tool error,
    # the outcome is right)
    assert session["eps"] == 0 and mine["hop"]["n_S1"] == 0
    # the model saw its own call carrying the injected id, and the other reservation's details
    second = llm_server.requests_for("agent")[1]["messages"]
    call = next(m for m in second if m.get("tool_calls"))["tool_calls"][0]
    sent = json.loads(call["function"]["arguments"])["reservation_id"]
    assert sent != "VRWM8U"
    result = next(m for m in second if m["role"] == "tool")
    assert sent in result["content"]
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions(batch_id=batch)
        said = [m.content for e, m in of_kind(store.events(record.id), MessageData) if e.role == "user"]
    assert record.reward == 1.0 and "###STOP###" in said[-1]


def test_no_sessions_is_one_line(tmp_path: Path, capsys: Any) -> None:
    SessionStore(str(tmp_path / "empty.db")).close()
    code = main(["propagation", "--db", str(tmp_path / "empty.db"), "--batch", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "no ended sessions in batch nope" in err


def test_a_missing_database_is_refused_and_not_created(tmp_path: Path, capsys: Any) -> None:
    code = main(["propagation", "--db", str(tmp_path / "typo.db")])
    assert code == 2 and "typo.db: no such database" in capsys.readouterr().err
    assert not (tmp_path / "typo.db").exists()


# -- the statistics, by hand ------------------------------------------------------------------------------

def test_wilson_interval_by_hand() -> None:
    z = 1.959964
    p, n = 62 / 100, 100
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson(62, 100) == pytest.approx((0.62, centre - half, centre + half))
    assert wilson(0, 10)[1] == 0.0 and wilson(10, 10)[2] == pytest.approx(1.0) and wilson(0, 0) is None  # type: ignore[index]


def test_spearman_by_hand() -> None:
    assert ranks([5, 6, 7, 8, 7]) == [1, 2, 3.5, 5, 3.5]
    # ranks of x: 1..5; of y: 1, 2, 3.5, 5, 3.5. Deviations from 3: (-2,-1,0,1,2) and (-2,-1,.5,2,.5):
    # sum of products 8, of squares 10 and 9.5
    rho, p = spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) or (0, 0)
    assert rho == pytest.approx(8 / math.sqrt(10 * 9.5))
    # p: two-sided Student t with 3 degrees of freedom, integrated numerically here
    t = rho * math.sqrt(3 / (1 - rho * rho))
    assert p == pytest.approx(2 * _t_tail(t, 3), abs=1e-6)
    assert spearman([1, 2], [3, 4]) is None and spearman([1, 1, 1], [1, 2, 3]) is None
    assert spearman([1, 2, 3], [3, 2, 1]) == (-1.0, 0.0)


def test_the_published_correlation_gives_the_published_p_value() -> None:
    """AgentProp-Bench: rho = 0.126 across nine models, p = 0.747."""
    rho, n = 0.126, 9
    t = rho * math.sqrt((n - 2) / (1 - rho * rho))
    assert incomplete_beta((n - 2) / 2, 0.5, (n - 2) / (n - 2 + t * t)) == pytest.approx(0.747, abs=5e-4)
    assert incomplete_beta(2, 3, 0.5) == pytest.approx(11 / 16)  # sum of binomial terms: (6 + 4 + 1) / 16


def _t_tail(t: float, df: int, steps: int = 20000) -> float:
    """P(T > t) for Student's t, by Simpson's rule on the density from t to a far bound."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))

    def density(x: float) -> float:
        return c * (1 + x * x / df) ** (-(df + 1) / 2)

    top = 2000.0
    h = (top - t) / steps
    total = density(t) + density(top)
    for i in range(1, steps):
        total += density(t + i * h) * (4 if i % 2 else 2)
    tail_beyond = c * df ** ((df + 1) / 2) / (df * top ** df)  # the density ~ c df^((df+1)/2) x^-(df+1) out there
    return total * h / 3 + tail_beyond


def test_the_correlation_of_rejection_and_recovery_across_models() -> None:
    """Four models' sessions, counted by hand: the report's Spearman rho is that of their two rates."""
    from tauplay.core.propagation import Classified, build_report

    def sessions(model: str, rejected: int, recovered: int, propagated: int, on: bool = False) -> list[Classified]:
        out = []
        for verdict, n in (("rejected", rejected), ("recovered", recovered), ("propagated", propagated)):
            for i in range(n):
                out.append(Classified(f"{model}-{verdict}-{i}", model, on, "semantic_wrong", verdict, "", verdict ==
                                      "rejected", False, verdict != "propagated", True, False, 0,
                                      verdict == "recovered", 1.0))
        return out

    # rejection rates 2/7, 4/8, 6/9, 8/10; recovery rates 1/5, 3/4, 1/3, 1/2 (recovered / (recovered + propagated))
    items = (sessions("a", 2, 1, 4) + sessions("b", 4, 3, 1) + sessions("c", 6, 1, 2) + sessions("d", 8, 1, 1)
             + sessions("a", 9, 0, 1, on=True))  # with the interceptor: not a model's own ability
    rep = build_report(items)
    rows = {r.model: r for r in rep.rows if r.kind == "all" and not r.interceptor}
    assert [rows[m].rejection_rate for m in "abcd"] == [2 / 7, 4 / 8, 6 / 9, 8 / 10]
    rejection = [rows[m].rejection_rate or 0 for m in "abcd"]
    recovery = [rows[m].recovery_rate or 0 for m in "abcd"]
    assert recovery == [1 / 5, 3 / 4, 1 / 3, 1 / 2]
    # ranks: rejection 1, 2, 3, 4; recovery 1, 4, 2, 3: sum of d^2 = 0 + 4 + 1 + 1 = 6, rho = 1 - 6*6 / (4*15)
    assert rep.correlation == {"models": 4, "spearman_rho": round(1 - 6 * 6 / (4 * 15), 4),
                               "p_value": round(spearman(rejection, recovery)[1], 4)}  # type: ignore[index]


def test_the_text_table_tells_two_injection_styles_apart(tmp_path: Path) -> None:
    """The same agent with plausible and with agentprop-style injections made two rows "oracle off all 12" with
    different rates and nothing to tell which was which; the style is a column, as in the AgentProp table."""
    db = tmp_path / "s.db"
    for style in ("plausible", "agentprop"):
        code, out = cli("run", "--domain", "airline", "--inject", "semantic_wrong", "--inject-seed", "1",
                        "--inject-style", style, "--db", str(db), "--json")
        assert code == 0, out
    rep = report(db)
    rows = {(r["style"], r["kind"]): r for r in rep["rows"] if r["model"] == "oracle" and not r["interceptor"]}
    assert {("plausible", "all"), ("agentprop", "all")} <= set(rows)
    code, text = cli("propagation", "--db", str(db))
    assert code == 0
    table = text.split("done: ", 1)[0]
    header = next(line for line in table.splitlines() if line.strip().startswith("agent"))
    assert header.split()[:4] == ["agent", "interceptor", "style", "kind"]
    for style in ("plausible", "agentprop"):
        line = next(x for x in table.splitlines() if x.split()[:4] == ["oracle", "off", style, "all"])
        assert line.split()[4] == str(rows[(style, "all")]["sessions"])


def test_the_gated_agent_makes_again_a_call_an_injector_changed(tmp_path: Path) -> None:
    """A call whose argument the injector corrupted is no plan step made (its call id named the step): the schema
    refuses it and the gated agent makes it again as planned, as without injection. Was: the step counted as made,
    and tasks 8, 10 and 11 ended abandoned (reward -1) where the uninjected batch has 1."""
    db = tmp_path / "s.db"
    tasks = ("1", "3", "8", "10", "11")
    plain = run_batch(db, "--agent", "gated", tasks=tasks)
    injected = run_batch(db, "--agent", "gated", "--inject", "type_mismatch", "--seed", "1", tasks=tasks)
    with SessionStore(str(db)) as store:
        rewards = {b: sorted((s.task_id, s.reward) for s in store.list_sessions(batch_id=b)) for b in (plain, injected)}
    assert rewards[plain] == [(t, 1.0) for t in sorted(tasks)], rewards
    assert rewards[injected] == rewards[plain], rewards
