"""`tauplay judge` (substring, llm and ensemble over HTTP to the local OpenAI-compatible server) saves one
judgment per injected session in its own table; `tauplay agreement --against judges` gives Cohen's kappa and
confusion counts equal to a hand computation on a fixture."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.events import Event, InjectionData, MessageData, ToolCallData, ToolResultData
from tauplay.core.judging import Case, case_text, majority, one_verdict, parse_verdict, substring_judgment
from tauplay.core.labels import Judgment
from tauplay.store import SessionStore, StoreError
from tests.conftest import taubench_dir
from tests.support.llm_server import Reply


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def injected_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve published airline tasks, oracle, semantic_wrong injected; and six uninjected sessions."""
    db = tmp_path_factory.mktemp("judges") / "s.db"
    data = taubench_dir("airline")
    tasks = [str(i) for i in range(12)]
    common = ["run", "--domain", "airline", "--data", str(data), "--tasks", str(data / "tasks_test.json"), "--allow-invalid",
              "--db", str(db), "--json"]
    for extra in (["--inject", "semantic_wrong", "--seed", "2", "--task-ids", *tasks], ["--task-ids", *tasks[:6]]):
        code, out = cli(*common, *extra)
        assert code == 0, out
    return db


def injected_ids(db: Path) -> set[str]:
    with SessionStore(str(db)) as store:
        return {s.id for s in store.list_sessions() if any(e.kind == "injection" for e in store.events(s.id))}


def copy(db: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "copy.db"
    shutil.copy(db, target)
    return target


def test_substring_judge_gives_no_verdict_without_an_answer_to_judge_against(injected_db: Path,
                                                                              tmp_path: Path) -> None:
    """The published airline tasks have no outputs: a "no" there would only say the task asked for nothing."""
    db = copy(injected_db, tmp_path)
    code, out = cli("judge", "--judge", "substring", "--db", str(db))
    assert code == 0 and "substring: 0 session(s) judged (0 yes, 0 no)" in out
    assert "12 session(s) not judged: no answer to judge against (their tasks have no outputs)" in out
    code, out = cli("judge", "--judge", "substring", "--db", str(db), "--json")
    report = json.loads(out)
    assert report["judgments"] == [] and report["one_verdict"] is None
    assert sorted(n["session_id"] for n in report["not_judged"]) == sorted(injected_ids(db))
    assert {n["reason"] for n in report["not_judged"]} == {"no answer to judge against"}
    with SessionStore(str(db)) as store:
        assert store.judgments() == [] and store.annotations() == []


@pytest.fixture(scope="module")
def answered_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The school starter tasks that ask for a value (outputs), oracle, semantic_wrong injected."""
    from tauplay.core.domain import get_domain
    from tauplay.core.tasks import load_tasks

    domain = get_domain("school")
    ids = [t.id for t in load_tasks(domain.task_set_path("starter"), "school").tasks if t.outputs][:5]
    db = tmp_path_factory.mktemp("answered") / "s.db"
    # no --seed: it would also pick another generated database, where the starter tasks cannot be scored
    code, out = cli("run", "--domain", "school", "--task-ids", *ids, "--inject", "semantic_wrong",
                    "--db", str(db), "--json")
    assert code == 0, out
    return db


def test_substring_judge_saves_one_judgment_per_injected_session_and_says_when_all_agree(answered_db: Path,
                                                                                       tmp_path: Path) -> None:
    db = copy(answered_db, tmp_path)
    injected = injected_ids(db)
    assert len(injected) >= 2
    code, out = cli("judge", "--judge", "substring", "--db", str(db))
    # the oracle says every expected output after the injection: "no" on every one of them, and it says so
    assert code == 0 and f"substring: {len(injected)} session(s) judged (0 yes, {len(injected)} no)" in out
    assert (f'note: the substring judge said "no" on every one of the {len(injected)} sessions: one verdict for '
            "all") in out
    with SessionStore(str(db)) as store:
        saved = store.judgments()
        assert sorted(j.session_id for j in saved) == sorted(injected)  # one each, none for the others
        assert {(j.judge, j.model, j.annotator, j.label) for j in saved} == {("substring", "", "", "no")}
        assert all(j.reason.startswith("the final answer holds ") for j in saved)
        assert store.annotations() == []  # never among the fault labels
    code, out = cli("judge", "--judge", "substring", "--db", str(db))
    assert code == 0 and "0 session(s) judged" in out and f"{len(injected)} already judged" in out
    assert "note:" not in out  # nothing judged this time
    code, out = cli("judge", "--judge", "substring", "--db", str(db), "--again", "--json")
    assert code == 0 and len(json.loads(out)["judgments"]) == len(injected)
    assert json.loads(out)["one_verdict"].startswith('the substring judge said "no" on every one')
    with SessionStore(str(db)) as store:
        assert len(store.judgments()) == len(injected)  # asked again: replaced, not added


def test_substring_judge_says_yes_when_the_answer_lacks_an_expected_output(llm_server: Any, tmp_path: Path) -> None:
    """A model agent on a starter task that must answer 224: the injected search returns another route and the
    agent answers with that fare; the substring judge finds 224 missing."""
    agent = llm_server.queue("agent")
    agent.tool_call("search_direct_flight", {"origin": "ATL", "destination": "CLT", "date": "2024-05-24"}, "c1")
    agent.fallback = Reply(content="The cheapest economy fare is 999 dollars.")
    db = tmp_path / "s.db"
    code, out = cli("run", "--domain", "airline", "--task-ids", "airline-starter-10-cheapest-fare", "--inject",
                    "semantic_wrong", "--inject-at", "1", "--seed", "0", "--agent-model", "openai/agent",
                    "--agent-api-base", llm_server.url, "--db", str(db), "--json", "--max-steps", "16")
    assert code == 0, out
    code, out = cli("judge", "--judge", "substring", "--db", str(db), "--json")
    (judgment,) = json.loads(out)["judgments"]
    assert (judgment["label"], judgment["reason"]) == ("yes", "the final answer lacks 224")


def test_llm_judge_asks_the_model_with_the_rubric_and_saves_its_answers(injected_db: Path, tmp_path: Path,
                                                                       llm_server: Any) -> None:
    db = copy(injected_db, tmp_path)
    judge = llm_server.queue("judge")
    judge.text("I cannot tell from this.")  # one reply says neither yes nor no
    judge.fallback = Reply(content='```json\n{"propagated": "yes", "reason": "the wrong reservation was cancelled"}\n```')
    code, out = cli("judge", "--judge", "llm", "--model", "openai/judge", "--api-base", llm_server.url,
                    "--db", str(db), "--concurrency", "3")
    assert code == 1 and "11 session(s) judged (11 yes, 0 no)" in out and "1 failed" in out
    with SessionStore(str(db)) as store:
        saved = store.judgments(judge="llm")
        assert len(saved) == 11 and len({j.session_id for j in saved}) == 11
        assert {(j.model, j.label, j.reason) for j in saved} == {("openai/judge", "yes",
                                                                   "the wrong reservation was cancelled")}
    requests = llm_server.requests_for("judge")
    assert len(requests) == 12
    system, user = requests[0]["messages"]
    assert system["role"] == "system" and "PROPAGATED" in system["content"]
    assert "# The injection" in user["content"] and "semantic_wrong" in user["content"]
    # the failed one is asked on the next run; the others are not asked again
    code, out = cli("judge", "--judge", "llm", "--model", "openai/judge", "--api-base", llm_server.url,
                    "--db", str(db))
    assert code == 0 and "1 session(s) judged" in out and "11 already judged" in out
    assert len(llm_server.requests_for("judge")) == 13


def test_ensemble_takes_the_majority_of_three(injected_db: Path, tmp_path: Path, llm_server: Any) -> None:
    db = copy(injected_db, tmp_path)
    for model, label in (("m1", "yes"), ("m2", "no"), ("m3", "yes")):
        llm_server.queue(model).fallback = Reply(content=json.dumps({"propagated": label, "reason": f"{model} says"}))
    code, out = cli("judge", "--judge", "ensemble", "--model", "openai/m1", "--model", "openai/m2", "--model",
                    "openai/m3", "--api-base", llm_server.url, "--db", str(db))
    assert code == 0, out
    with SessionStore(str(db)) as store:
        ensemble = store.judgments(judge="ensemble")
        members = store.judgments(judge="llm")
    assert len(ensemble) == 12 and {j.label for j in ensemble} == {"yes"}
    assert {j.model for j in ensemble} == {"openai/m1+openai/m2+openai/m3"}
    assert ensemble[0].reason.startswith("2 of 3 said yes: openai/m1: yes (m1 says); openai/m2: no (m2 says)")
    assert len(members) == 36 and {j.model for j in members} == {"openai/m1", "openai/m2", "openai/m3"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--judge", "llm"], "needs exactly one --model"),
    (["--judge", "ensemble", "--model", "a", "--model", "b"], "needs three models"),
    (["--judge", "ensemble", "--model", "a", "--model", "a", "--model", "b"], "three different models"),
    (["--judge", "substring", "--model", "a"], "apply to the llm and ensemble judges"),
])
def test_bad_judge_flags(argv: list[str], message: str, tmp_path: Path, capsys: Any) -> None:
    assert main(["judge", "--db", str(tmp_path / "s.db"), *argv]) == 2
    assert message in capsys.readouterr().err


def test_no_injected_session_to_judge(tmp_path: Path, capsys: Any) -> None:
    assert main(["judge", "--judge", "substring", "--db", str(tmp_path / "s.db")]) == 2
    assert "no ended injected sessions" in capsys.readouterr().err


def test_judgments_are_checked_before_saving(tmp_path: Path) -> None:
    with SessionStore(str(tmp_path / "s.db")) as store:
        sid = store.create_session(domain="airline", task_id="1", role="batch", agent={}, user={}, task={})
        for bad, words in ((Judgment("oracle", "yes"), "unknown judge"), (Judgment("llm", "maybe"), "unknown judgment"),
                           (Judgment("human", "yes"), "needs an annotator"),
                           (Judgment("llm", "yes", annotator="ana"), "has no annotator")):
            with pytest.raises(StoreError, match=words):
                store.save_judgment(sid, bad)
        with pytest.raises(StoreError, match="no session"):
            store.save_judgment("nope", Judgment("llm", "yes"))


# -- pure parts -----------------------------------------------------------------------------------------

def _case(outputs: tuple[str, ...], said_after: str, said_before: str = "") -> Case:
    inj = InjectionData(call_id="c", tool="t", argument="x", kind="semantic_wrong", original={"x": 1},
                        injected={"x": 2})
    events = [Event.of(0, "agent", MessageData(content=said_before)), Event.of(1, "system", inj),
              Event.of(2, "agent", ToolCallData(call_id="c", name="t", arguments={"x": 2})),
              Event.of(3, "env", ToolResultData(call_id="c", name="t", output="{}")),
              Event.of(4, "agent", MessageData(content=said_after))]
    return Case("s", "find the fare", outputs, ({"name": "t", "kwargs": {"x": 1}},), tuple(events))


def test_substring_reads_only_what_was_said_after_the_injection() -> None:
    held = substring_judgment(_case(("1224",), "It is 1,224 dollars."))
    assert held is not None and held.label == "no"  # commas ignored
    found = substring_judgment(_case(("224", "HAT1"), "It is 999.", said_before="224 HAT1"))
    assert found is not None and (found.label, found.reason) == ("yes", "the final answer lacks 224, HAT1")
    assert substring_judgment(_case((), "It is 999.")) is None  # no answer to judge against: no verdict


def test_one_verdict_is_named_only_when_every_session_got_it() -> None:
    assert one_verdict("substring", ["no", "no", "no"]).startswith('the substring judge said "no" on every one of '
                                                                   "the 3 sessions")
    assert one_verdict("llm", ["yes", "no"]) == "" and one_verdict("llm", ["yes"]) == ""
    text = case_text(_case(("224",), "It is 999."))
    assert "the agent sent {\"x\": 1}, the tool ran {\"x\": 2}" in text and "- 224" in text


@pytest.mark.parametrize(("reply", "label"), [
    ('{"propagated": "no", "reason": "caught"}', "no"), ("Yes. The wrong record changed.", "yes"),
    ('Sure: {"propagated": true}', "yes"), ("```\n{\"propagated\": \"NO\"}\n```", "no")])
def test_verdicts_are_read_from_replies(reply: str, label: str) -> None:
    assert parse_verdict(reply)[0] == label


def test_majority_of_votes() -> None:
    assert majority([("a", "yes", ""), ("b", "no", "r"), ("c", "no", "")]) == \
        ("no", "2 of 3 said no: a: yes; b: no (r); c: no")


# -- agreement against people, by hand ------------------------------------------------------------------

HUMAN = "Y Y Y Y Y Y N N N N".split()  # ana, ten sessions
SUBSTRING = "Y Y Y N N N Y N N N".split()  # judge yes/ana yes 3, no/yes 3, yes/no 1, no/no 3
LLM = "Y Y Y Y Y Y Y Y N N".split()  # yes/yes 6, yes/no 2, no/no 2
BO = "Y Y Y Y N N N N N Y".split()  # a second person


def fixture_store(path: Path) -> list[str]:
    with SessionStore(str(path)) as store:
        ids = [store.create_session(domain="airline", task_id=str(i), role="batch", agent={"kind": "oracle"},
                                    user={"kind": "scripted"}, task={}) for i in range(10)]
        for sid, a, s, m, b in zip(ids, HUMAN, SUBSTRING, LLM, BO, strict=True):
            store.save_judgment(sid, Judgment("human", "yes" if a == "Y" else "no", annotator="ana"))
            store.save_judgment(sid, Judgment("human", "yes" if b == "Y" else "no", annotator="bo"))
            store.save_judgment(sid, Judgment("substring", "yes" if s == "Y" else "no"))
            store.save_judgment(sid, Judgment("llm", "yes" if m == "Y" else "no", model="openai/x"))
    return ids


def kappa(p_o: float, p_e: float) -> float:
    return round((p_o - p_e) / (1 - p_e), 4)


def test_agreement_against_judges_equals_a_hand_computation(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    fixture_store(db)
    code, out = cli("agreement", "--against", "judges", "--db", str(db), "--json")
    assert code == 0, out
    rep = json.loads(out)
    assert rep["people"] == ["ana", "bo"]
    got = {(a["judge"], a["person"]): a for a in rep["judges"]}
    sub = got[("substring", "ana")]
    # p_o = (3 + 3) / 10; judge says yes 4 times, ana 6: p_e = (4*6 + 6*4) / 100
    assert sub["kappa"] == kappa(0.6, 0.48) == 0.2308
    assert sub["confusion"] == {"yes_yes": 3, "yes_no": 1, "no_yes": 3, "no_no": 3} and sub["units"] == 10
    assert sub["bias"] == "conservative"  # it misses more propagations (3) than it invents (1)
    llm = got[("llm:openai/x", "ana")]
    # p_o = 8/10; judge yes 8, ana yes 6: p_e = (8*6 + 2*4) / 100
    assert llm["kappa"] == kappa(0.8, 0.56) and llm["bias"] == "liberal"
    (between,) = rep["between_people"]
    # ana/bo agree on 4 yes + 3 no = 7; ana yes 6, bo yes 5: p_e = (6*5 + 4*5) / 100
    assert (between["judge"], between["person"], between["kappa"]) == ("ana", "bo", kappa(0.7, 0.5))
    # against the people's majority: the sessions where ana and bo agree (they tie on the other three)
    people = got[("substring", "people")]
    agreed = [(s, a) for s, a, b in zip(SUBSTRING, HUMAN, BO, strict=True) if a == b]
    assert people["units"] == len(agreed) == 7
    assert rep["anchors"]["substring"] == "κ = 0.049 (chance)"


def test_agreement_table_and_its_errors(tmp_path: Path, capsys: Any) -> None:
    db = tmp_path / "k.db"
    fixture_store(db)
    code, out = cli("agreement", "--against", "judges", "--db", str(db), "--annotators", "ana")
    assert code == 0
    for words in ("Propagation judges against people", "substring", "0.231", "conservative", "κ = 0.049"):
        assert words in out, words
    empty = tmp_path / "e.db"
    SessionStore(str(empty)).close()
    assert main(["agreement", "--against", "judges", "--db", str(empty)]) == 2
    assert "no person has labelled propagation yet" in capsys.readouterr().err
    assert main(["agreement", "--db", str(db), "--batch", "x"]) == 2
    assert "--batch applies with --against judges" in capsys.readouterr().err


def test_a_judge_and_a_person_with_no_session_in_common_have_no_bias(tmp_path: Path) -> None:
    """Nothing compared is not "balanced": the bias is undefined (null, "—"), as kappa is; and the paper's column
    says its figures are published ones."""
    db = tmp_path / "n.db"
    with SessionStore(str(db)) as store:
        one, two = (store.create_session(domain="airline", task_id=str(i), role="batch", agent={"kind": "oracle"},
                                         user={"kind": "scripted"}, task={}) for i in range(2))
        store.save_judgment(one, Judgment("human", "yes", annotator="ana"))
        store.save_judgment(two, Judgment("substring", "no"))
    code, out = cli("agreement", "--against", "judges", "--db", str(db), "--json")
    assert code == 0, out
    (row,) = json.loads(out)["judges"]
    assert row["units"] == 0 and row["kappa"] is None and row["bias"] is None
    code, out = cli("agreement", "--against", "judges", "--db", str(db))
    assert code == 0 and "balanced" not in out
    line = next(x for x in out.splitlines() if "substring" in x)
    assert [c.strip() for c in line.split("│")][1:-1][9] == "—"
    assert "AgentProp-Bench paper (published)" in out and "not measured by tauplay" in out


def test_a_v3_store_gets_the_judgments_table_a_fresh_one_has(tmp_path: Path) -> None:
    import shutil
    import sqlite3

    from tests.test_store import _shape

    old = tmp_path / "v3.db"
    shutil.copy(Path(__file__).parent / "fixtures" / "store_v3_main.db", old)
    with SessionStore(str(old)) as store:
        assert store.schema_version == 8
        sid = store.list_sessions()[0].id
        store.save_judgment(sid, Judgment("human", "yes", "the wrong flight", annotator="ana"))
        assert [j.reason for j in store.judgments(session_id=sid)] == ["the wrong flight"]
    fresh = tmp_path / "fresh.db"
    SessionStore(str(fresh)).close()
    assert _shape(old, "judgments") == _shape(fresh, "judgments")
    assert _shape(old, "judgments")["unique"] == [("session_id", "judge", "model", "annotator")]
    check = sqlite3.connect(old.with_name(old.name + ".v3.bak"))
    assert check.execute("SELECT value FROM meta").fetchone() == ("3",)  # the untouched copy
    check.close()
