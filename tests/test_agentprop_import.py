"""`tauplay import agentprop-results`: AgentProp-Bench's released CSVs become sessions whose judges' verdicts and
people's labels are judgments; `agreement --against judges --json` then gives the kappa of every pair of judges.
Small files are written here (the kappa worked out by hand below); the released files, when this machine holds
the public repository, are checked against the release's own metrics file."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
import subprocess
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.store import SessionStore

ENSEMBLE_COLS = ["session_id", "task_id", "model", "injection_type", "heuristic_correct", "gpt4o_verdict",
                 "gemini_25_flash_verdict", "gpt4o_mini_verdict", "majority", "unanimous_yes", "unanimous_no",
                 "candidate", "reference"]
AGREEMENT_COLS = ["session_id", "task_id", "model", "injection_type", "source_db", "reference", "candidate",
                  "heuristic_correct", "oracle_correct", "agree"]
HUMAN_COLS = ["session_id", "task_id", "model", "annotator", "label", "ensemble_majority", "heuristic_correct"]
P2_COLS = ["session_id", "task_id", "model", "domain", "difficulty", "source", "error_type", "tool_selected",
           "tool_correct", "final_correct", "eps", "weps", "reached_output", "cascade_count", "cost"]

# session -> (task, model, injection, verdicts of heuristic, gpt4o, gemini, mini: T = the answer judged correct)
VERDICTS = {
    "s_weather_001": ("weather_001", "gpt4o_mini", "p2_semantic_wrong", "TFFF"),
    "s_calendar_002": ("calendar_002", "gpt4o_mini", "p2_out_of_range", "TTTF"),
    "s_medical_003": ("medical_003", "deepseek_v3", "p2_missing_required", "FFFF"),
    "s_weather_004": ("weather_004", "deepseek_v3", "p2_type_mismatch", "TTFT"),
    "s_calendar_005": ("calendar_005", "o3_mini", "p4_wrong_tool_spec", "TFFT"),
    "s_weather_006": ("weather_006", "o3_mini", "p2_semantic_wrong", "FTTT"),
}


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def write_csv(path: Path, cols: list[str], rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})
    return path


def ensemble_rows() -> list[dict[str, Any]]:
    rows = []
    for sid, (task, model, injection, v) in VERDICTS.items():
        votes = [c == "T" for c in v[1:]]
        rows.append({"session_id": sid, "task_id": task, "model": model, "injection_type": injection,
                     "heuristic_correct": v[0] == "T", "gpt4o_verdict": votes[0], "gemini_25_flash_verdict": votes[1],
                     "gpt4o_mini_verdict": votes[2], "majority": sum(votes) >= 2, "unanimous_yes": all(votes),
                     "unanimous_no": not any(votes), "candidate": f"answer of {sid}", "reference": "ref"})
    return rows


def kappa(a: list[bool], b: list[bool]) -> float:
    """Cohen's kappa of two yes/no raters, worked out directly."""
    n = len(a)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    ens = ensemble_rows()
    first = ens[0]
    agreement = [{**{k: first[k] for k in ("session_id", "task_id", "model", "injection_type", "reference",
                                         "candidate", "heuristic_correct")}, "oracle_correct": False},
                 {"session_id": "p3_false_belief_gpt35_turbo_medical_007_gggggg", "task_id": "medical_007",
                  "model": "gpt35_turbo", "injection_type": "p3_false_belief", "heuristic_correct": True,
                  "oracle_correct": True, "candidate": "x", "reference": "y"}]
    humans = [{"session_id": ens[1]["session_id"], "task_id": ens[1]["task_id"], "model": ens[1]["model"],
               "annotator": "ana", "label": "NO"},
              {"session_id": ens[2]["session_id"], "task_id": ens[2]["task_id"], "model": ens[2]["model"],
               "annotator": "ana", "label": "YES"}]
    p2 = [{"session_id": ens[0]["session_id"], "task_id": ens[0]["task_id"], "model": ens[0]["model"],
           "domain": "weather", "error_type": "semantic_wrong", "final_correct": True, "eps": 2},
          {"session_id": "p2_type_mismatch_gpt41_nano_weather_009_hhhhhh", "task_id": "weather_009",
           "model": "gpt41_nano", "domain": "weather", "error_type": "type_mismatch", "final_correct": False,
           "eps": 1}]
    return {"ensemble": write_csv(tmp_path / "ensemble_judge.csv", ENSEMBLE_COLS, ens),
            "agreement": write_csv(tmp_path / "judge_agreement.csv", AGREEMENT_COLS, agreement),
            "human": write_csv(tmp_path / "human_labels_ana.csv", HUMAN_COLS, humans),
            "p2": write_csv(tmp_path / "p2_all.csv", P2_COLS, p2)}


def import_all(db: Path, *paths: Path) -> str:
    code, out = cli("import", "agentprop-results", *map(str, paths), "--db", str(db))
    assert code == 0, out
    return out


def between(db: Path) -> dict[tuple[str, str], dict[str, Any]]:
    code, out = cli("agreement", "--against", "judges", "--db", str(db), "--json")
    assert code == 0, out
    return {(p["a"], p["b"]): p for p in json.loads(out)["between_judges"]}


def test_every_pair_of_judges_gets_the_kappa_worked_out_by_hand(files: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    import_all(db, *files.values())
    pairs = between(db)
    names = {"substring": 0, "llm:gpt4o": 1, "llm:gemini_25_flash": 2, "llm:gpt4o_mini": 3}
    correct = {sid: [c == "T" for c in v[3]] for sid, v in VERDICTS.items()}
    majority = {sid: sum(v[1:]) >= 2 for sid, v in correct.items()}
    ensemble = "ensemble:gpt4o+gemini_25_flash+gpt4o_mini"
    for name, i in names.items():
        a, b = sorted((name, ensemble))
        found = pairs[(a, b)]
        assert found["n"] == len(VERDICTS)
        expected = kappa([v[i] for v in correct.values()], list(majority.values()))
        assert found["kappa"] == pytest.approx(expected, abs=1e-4)
    for x, y in combinations(sorted(names), 2):
        found = pairs[(x, y)]
        assert found["kappa"] == pytest.approx(kappa([v[names[x]] for v in correct.values()],
                                                     [v[names[y]] for v in correct.values()]), abs=1e-4)
    # the oracle of judge_agreement.csv judged two sessions, one of them beside the ensemble's
    assert pairs[("llm:oracle", "substring")]["n"] == 2
    assert pairs[(ensemble, "llm:oracle")]["n"] == 1
    judges = {"substring", ensemble, "llm:oracle", *names}
    assert set(pairs) == {tuple(sorted(p)) for p in combinations(judges, 2)}


def test_a_released_verdict_of_correct_is_saved_as_not_propagated(files: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    out = import_all(db, *files.values())
    assert "8 new session(s)" in out
    with SessionStore(str(db)) as store:
        sessions = {s.reward_info["agentprop"]["session_id"]: s for s in store.list_sessions()}
        first = sessions["s_weather_001"]
        said = {j.rater: j.label for j in store.judgments(session_id=first.id)}
        assert said == {"substring": "no", "llm:gpt4o": "yes", "llm:gemini_25_flash": "yes", "llm:gpt4o_mini": "yes",
                        "ensemble:gpt4o+gemini_25_flash+gpt4o_mini": "yes", "llm:oracle": "yes"}
        assert first.agent["model"] == "gpt4o_mini" and first.domain == "agentprop-weather"
        assert first.reward_info["agentprop"]["eps"] == 2
        assert first.reward_info["agentprop"]["injection"] == "semantic_wrong"
        answer = [e.data["content"] for e in store.events(first.id) if e.kind == "message"]
        assert answer == ["answer of s_weather_001"]
        people = {(j.annotator, j.label) for j in store.judgments(judge="human")}
        assert people == {("ana", "yes"), ("ana", "no")}  # NO (answer wrong) = propagated


def test_importing_again_adds_nothing_and_a_later_labels_file_adds_its_labels(files: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    import_all(db, files["ensemble"], files["agreement"], files["p2"])
    with SessionStore(str(db)) as store:
        count = len(store.judgments())
    out = import_all(db, files["ensemble"], files["human"])
    assert "0 new session(s)" in out and "2 judgment(s) they lacked added" in out
    with SessionStore(str(db)) as store:
        assert len(store.judgments()) == count + 2


@pytest.mark.parametrize(("change", "message"), [
    ({"heuristic_correct": "maybe"}, "expected True or False"),
    ({"model": ""}, "empty model"),
])
def test_a_bad_row_stops_the_import_naming_the_line(change: dict[str, str], message: str, files: dict[str, Path],
                                                   tmp_path: Path, capsys: Any) -> None:
    rows = ensemble_rows()
    rows[3].update(change)
    bad = write_csv(tmp_path / "bad.csv", ENSEMBLE_COLS, rows)
    db = tmp_path / "s.db"
    code, _ = cli("import", "agentprop-results", str(files["p2"]), str(bad), "--db", str(db))
    err = capsys.readouterr().err
    assert code == 2 and message in err and "line 5" in err and "Traceback" not in err
    assert not db.exists() or not SessionStore(str(db)).list_sessions()


def test_files_that_disagree_on_a_verdict_stop_the_import(files: dict[str, Path], tmp_path: Path,
                                                          capsys: Any) -> None:
    rows = [{"session_id": "s_weather_001", "task_id": "weather_001",
             "model": "gpt4o_mini", "domain": "weather", "error_type": "semantic_wrong", "final_correct": False,
             "eps": 0}]
    other = write_csv(tmp_path / "p2_other.csv", P2_COLS, rows)
    code, _ = cli("import", "agentprop-results", str(files["ensemble"]), str(other), "--db", str(tmp_path / "s.db"))
    err = capsys.readouterr().err
    assert code == 2 and "substring says incorrect here, the opposite in" in err


def test_labels_alone_or_an_unknown_file_are_refused(files: dict[str, Path], tmp_path: Path, capsys: Any) -> None:
    code, _ = cli("import", "agentprop-results", str(files["human"]), "--db", str(tmp_path / "s.db"))
    assert code == 2 and "is labelled but not in any results file" in capsys.readouterr().err
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    code, _ = cli("import", "agentprop-results", str(other), "--db", str(tmp_path / "s.db"))
    assert code == 2 and "not a released AgentProp-Bench results file" in capsys.readouterr().err
    other.write_bytes(b"session_id,task_id\n\xff\xfe,1\n")
    code, _ = cli("import", "agentprop-results", str(other), "--db", str(tmp_path / "s.db"))
    assert code == 2 and "not UTF-8" in capsys.readouterr().err


REJUDGED_COLS = [*P2_COLS, "final_answer", "ground_truth", "query", "gpt4o_verdict", "gemini_25_flash_verdict",
                 "gpt4o_mini_verdict", "ensemble_correct", "heuristic_correct"]


def test_released_hop_rates_from_the_releases_own_eps_and_verdicts(tmp_path: Path) -> None:
    """Five semantic_wrong sessions of one model: EPS 0, 1, 1, 2, 2; the re-judging ensemble calls the answers
    of the 2nd, 4th and 5th wrong (the first file's ensemble says otherwise for the 4th: the re-judge wins)."""
    eps = [0, 1, 1, 2, 2]
    wrong = [False, True, False, True, True]
    rows = [{"session_id": f"r{i}", "task_id": f"weather_{i:03d}", "model": "m1", "domain": "weather",
             "error_type": "semantic_wrong", "final_correct": True, "eps": e, "final_answer": f"answer {i}",
             "ground_truth": "ref", "query": f"question {i}", "gpt4o_verdict": not w, "gemini_25_flash_verdict": not w,
             "gpt4o_mini_verdict": True, "ensemble_correct": not w, "heuristic_correct": True}
            for i, (e, w) in enumerate(zip(eps, wrong, strict=True))]
    rejudged = write_csv(tmp_path / "p2_all_rejudged.csv", REJUDGED_COLS, rows)
    first = [{"session_id": "r3", "task_id": "weather_003", "model": "m1", "injection_type": "p2_semantic_wrong",
              "heuristic_correct": True, "gpt4o_verdict": True, "gemini_25_flash_verdict": True,
              "gpt4o_mini_verdict": True, "majority": True}]
    ensemble = write_csv(tmp_path / "ensemble_judge.csv", ENSEMBLE_COLS, first)
    db = tmp_path / "s.db"
    import_all(db, ensemble, rejudged)
    code, out = cli("propagation", "--db", str(db), "--json")
    assert code == 0, out
    (rates,) = json.loads(out)["released"]
    assert (rates["model"], rates["kind"], rates["n"]) == ("m1", "semantic_wrong", 5)
    assert (rates["n_S1"], rates["n_S2"], rates["n_S3"]) == (4, 2, 3)
    assert rates["r_1_2"] == 0.5 and rates["r_2_3"] == 1.0 and rates["injection_to_error"] == 0.75
    assert rates["s3_from"] == ["ensemble:gpt4o+gemini_25_flash+gpt4o_mini@rejudge"]
    pairs = between(db)  # no person labelled here: the judges are still compared with each other
    assert pairs[("ensemble:gpt4o+gemini_25_flash+gpt4o_mini", "ensemble:gpt4o+gemini_25_flash+gpt4o_mini@rejudge")][
        "n"] == 1
    with SessionStore(str(db)) as store:
        (r3,) = [s for s in store.list_sessions() if s.reward_info["agentprop"]["session_id"] == "r3"]
        said = {j.rater: j.label for j in store.judgments(session_id=r3.id)}
    assert said["ensemble:gpt4o+gemini_25_flash+gpt4o_mini"] == "no"
    assert said["ensemble:gpt4o+gemini_25_flash+gpt4o_mini@rejudge"] == "yes"
    code, text = cli("propagation", "--db", str(db))
    assert code == 0 and "AgentProp-Bench's released sessions (imported)" in text


RELEASE = Path("/work/.mirror/bhaskargurram-ai+agenthallu-bench/repo")
RELEASED = ("ensemble_judge.csv", "judge_agreement.csv", "human_labels_Bhaskar.csv", "human_labels_yoshitha.csv",
            "p2_all.csv", "p2_all_rejudged.csv", "ensemble_judge_metrics.json", "judge_agreement_metrics.json",
            "hop_rates.json")


@pytest.mark.skipif(not RELEASE.is_dir() or shutil.which("git") is None,
                    reason="the public AgentProp-Bench repository is not on this machine")
def test_the_released_files_give_the_releases_own_kappas(tmp_path: Path) -> None:
    for name in RELEASED:
        blob = subprocess.run(["git", "--git-dir", str(RELEASE), "show", f"HEAD:data/results/{name}"],
                              capture_output=True, check=True).stdout
        (tmp_path / name).write_bytes(blob)
    db = tmp_path / "s.db"
    import_all(db, *(tmp_path / n for n in RELEASED if n.endswith(".csv")))
    pairs = between(db)
    metrics = json.loads((tmp_path / "ensemble_judge_metrics.json").read_text())
    ensemble = "ensemble:gpt4o+gemini_25_flash+gpt4o_mini"
    assert pairs[(ensemble, "substring")]["n"] == metrics["n"]
    assert pairs[(ensemble, "substring")]["kappa"] == pytest.approx(metrics["heuristic_kappa"], abs=1e-4)
    for model in ("gpt4o", "gemini_25_flash", "gpt4o_mini"):
        assert pairs[(ensemble, f"llm:{model}")]["kappa"] == pytest.approx(metrics[f"{model}_kappa"], abs=1e-4)
    oracle = json.loads((tmp_path / "judge_agreement_metrics.json").read_text())
    assert pairs[("llm:oracle", "substring")]["n"] == oracle["n"]
    assert pairs[("llm:oracle", "substring")]["kappa"] == pytest.approx(oracle["cohens_kappa"], abs=1e-4)
    # the hop-conditional rates of the release's own table (semantic_wrong, S3 from its re-judging ensemble)
    hop = json.loads((tmp_path / "hop_rates.json").read_text())
    code, out = cli("propagation", "--db", str(db), "--json")
    assert code == 0
    mine = {r["model"]: r for r in json.loads(out)["released"] if r["kind"] == "semantic_wrong"}
    assert set(mine) == set(hop)
    for model, theirs in hop.items():
        got = mine[model]
        assert [got[k] for k in ("n", "n_S1", "n_S2", "n_S3")] == [theirs[k] for k in ("n", "n_S1", "n_S2", "n_S3")]
        assert got["r_1_2"] == pytest.approx(theirs["r_1_2"], abs=1e-4)
        assert got["r_2_3"] == pytest.approx(theirs["r_2_3"]["point"], abs=1e-4)
        assert got["injection_to_error"] == pytest.approx(theirs["injection_to_error"]["point"], abs=1e-4)
        assert got["p_S3"] == pytest.approx(theirs["p_S3"]["point"], abs=1e-4)
