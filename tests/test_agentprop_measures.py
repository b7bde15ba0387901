"""AgentProp as published, beside tauplay's own: the public injector's rules (`--inject-style agentprop`), the
after-the-fact abstaining interceptor (`--interceptor abstain`), whose rejection it was, EPS and the
hop-conditional rates, and the paper's figures labelled as the paper's."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.events import InjectionData, MessageData, NoticeData, SessionStartedData, of_kind
from tauplay.core.injection import agentprop_corruption
from tauplay.core.interceptor import ABSTENTION_TEXT, abstain_check
from tauplay.core.labels import Judgment
from tauplay.core.propagation import Classified, build_report, hop_rates
from tauplay.core.tools import ToolSpec
from tauplay.core.vocabulary import NoticeAbout
from tauplay.store import SessionStore
from tests.conftest import taubench_dir


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def spec(properties: dict[str, Any], required: list[str] | None = None) -> ToolSpec:
    return ToolSpec("tool", lambda **_: None, "read", "",
                    {"type": "object", "properties": properties, "required": list(properties) if required is None else required})


S, INT, B = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}


@pytest.mark.parametrize(("kind", "properties", "arguments", "expected"), [
    # type_mismatch: an integer as a word, beyond ten as its digits; else a boolean as text; else a string as 0
    ("type_mismatch", {"name": S, "count": INT}, {"name": "Ann", "count": 2}, {"name": "Ann", "count": "two"}),
    ("type_mismatch", {"count": INT}, {"count": 42}, {"count": "42"}),
    ("type_mismatch", {"name": S, "ok": B}, {"name": "Ann", "ok": True}, {"name": "Ann", "ok": "true"}),
    ("type_mismatch", {"name": S, "city": S}, {"name": "Ann", "city": "Paris"}, {"name": 0, "city": "Paris"}),
    # out_of_range: max x 10, else min - 100, else an invalid enum value, else the first number x 1000
    ("out_of_range", {"n": {"type": "integer", "maximum": 9}}, {"n": 3}, {"n": 90}),
    ("out_of_range", {"n": {"type": "integer", "minimum": 1}}, {"n": 3}, {"n": -99}),
    ("out_of_range", {"cabin": {"type": "string", "enum": ["economy", "business"]}}, {"cabin": "economy"},
     {"cabin": "INVALID_ENUM"}),
    ("out_of_range", {"n": INT, "cabin": {"type": "string", "enum": ["a"]}}, {"n": 3, "cabin": "a"},
     {"n": 3, "cabin": "INVALID_ENUM"}),
    ("out_of_range", {"n": INT}, {"n": 3}, {"n": 3000}),
    # missing_required: the first required argument the call has, in the schema's order
    ("missing_required", {"a": S, "b": S}, {"b": "x", "a": "y"}, {"b": "x"}),
    # semantic_wrong: a city swap, else a date + 180 days, else an id + 1, else a _WRONG suffix
    ("semantic_wrong", {"date": S, "city": S}, {"date": "2024-05-20", "city": "Paris"},
     {"date": "2024-05-20", "city": "Marseille"}),
    ("semantic_wrong", {"city": S}, {"city": "Atlantis"}, {"city": "Reykjavik"}),
    ("semantic_wrong", {"user_id": S, "date": S}, {"user_id": "P001", "date": "2024-05-20"},
     {"user_id": "P001", "date": "2024-11-16"}),
    ("semantic_wrong", {"note": S, "user_id": S}, {"note": "hi", "user_id": "mia_li_3668"},
     {"note": "hi", "user_id": "mia_li_3669"}),
    ("semantic_wrong", {"user_id": S}, {"user_id": "P009"}, {"user_id": "P010"}),
    ("semantic_wrong", {"reservation_id": S}, {"reservation_id": "ZFA04Y"}, {"reservation_id": "ZFA04Y_WRONG"}),
])
def test_the_public_rules(kind: str, properties: dict[str, Any], arguments: dict[str, Any],
                          expected: dict[str, Any]) -> None:
    found = agentprop_corruption(kind, spec(properties), arguments)
    assert found is not None and found.arguments == expected and found.kind == kind
    assert arguments != expected  # the call's own arguments are left as they were


def test_a_rule_that_fits_nothing_gives_no_injection() -> None:
    assert agentprop_corruption("out_of_range", spec({"name": S}), {"name": "Ann"}) is None
    assert agentprop_corruption("missing_required", spec({"name": S}, required=[]), {"name": "Ann"}) is None


def airline_run(db: Path, *extra: str, tasks: tuple[str, ...] = ("60", "61", "62", "63", "64")) -> dict[str, Any]:
    data = taubench_dir("airline")
    code, out = cli("run", "--domain", "airline", "--data", str(data), "--tasks", str(data / "tasks_test.json"),
                    "--db", str(db), "--json", "--task-ids", *tasks, *extra)
    assert code == 0, out
    return dict(json.loads(out))


def test_inject_style_agentprop_on_the_published_airline_tasks(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    batch = airline_run(db, "--inject", "semantic_wrong", "--inject-style", "agentprop", "--seed", "3")["batch_id"]
    plain = airline_run(db, "--inject", "semantic_wrong", "--seed", "3")["batch_id"]
    with SessionStore(str(db)) as store:
        details = []
        for record in store.list_sessions(batch_id=batch):
            events = store.events(record.id)
            (started,) = [s for _, s in of_kind(events, SessionStartedData)]
            assert started.injection is not None and started.injection["style"] == "agentprop"
            details += [i.detail for _, i in of_kind(events, InjectionData)]
        assert details and set(details) <= {"another city", "the date moved by 180 days", "the id's number + 1",
                                            "the value with _WRONG appended"}
        other = [i.detail for r in store.list_sessions(batch_id=plain) for _, i in of_kind(store.events(r.id),
                                                                                             InjectionData)]
        assert other and not set(other) & set(details)  # tauplay's own plausible values, not the public rules
        plan = store.get_batch(batch).plan
        assert plan["injection"]["style"] == "agentprop"  # what resume rebuilds the batch from
    rep = json.loads(cli("propagation", "--db", str(db), "--json")[1])
    assert {(r["style"], r["kind"]) for r in rep["rows"]} >= {("agentprop", "all"), ("plausible", "all")}


def test_inject_style_needs_inject(tmp_path: Path, capsys: Any) -> None:
    code = main(["run", "--domain", "airline", "--db", str(tmp_path / "s.db"), "--inject-style", "agentprop"])
    assert code == 2 and "--inject-style needs --inject KIND" in capsys.readouterr().err


# -- the abstaining interceptor -------------------------------------------------------------------------------

def test_the_three_layers() -> None:
    assert abstain_check("Here you are.", "", True, "Error: no such id").layer == "L1"  # type: ignore[union-attr]
    found = abstain_check("Here you are.", "The id looks invalid, maybe wrong.", False)
    assert found is not None and found.layer == "L2" and "invalid" in found.reason and "wrong" in found.reason
    assert abstain_check("Here you are.", "One invalid thing.", False) is None  # one word is not enough
    assert abstain_check("Done successfully.", "", False) is None  # a success claim with no error is fine


def test_abstain_withholds_an_answer_that_follows_a_tool_error(llm_server: Any, tmp_path: Path) -> None:
    agent = llm_server.queue("agent")
    agent.tool_call("get_reservation_details", {"reservation_id": "NOSUCH"}, "c1")
    agent.text("Your reservation was cancelled successfully.")
    agent.fallback = None
    db = tmp_path / "s.db"
    out = airline_run(db, "--interceptor", "abstain", "--agent-model", "openai/agent", "--agent-api-base",
                      llm_server.url, "--max-steps", "10", tasks=("60",))
    assert out["interceptor"] is True and out["interceptor_mode"] == "abstain"
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        events = store.events(record.id)
    (started,) = [s for _, s in of_kind(events, SessionStartedData)]
    assert started.abstain is True and not started.interceptor
    notices = [n for _, n in of_kind(events, NoticeData) if n.about == NoticeAbout.ABSTAINED]
    assert len(notices) == 1 and "L1" in notices[0].text and "cancelled successfully" in notices[0].text
    said = [m.content for e, m in of_kind(events, MessageData) if e.role == "agent"]
    assert said[-1] == ABSTENTION_TEXT and "cancelled successfully" not in said[-1]
    assert record.termination_reason == "agent_stop"


def test_a_bare_interceptor_flag_is_the_precall_one(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    out = airline_run(db, "--inject", "missing_required", "--interceptor", tasks=("60",))
    assert out["interceptor_mode"] == "precall"
    rep = json.loads(cli("propagation", "--db", str(db), "--json")[1])
    (session,) = rep["sessions"]
    assert session["refused_by_interceptor"] and session["rejected_by"] == "environment"
    assert session["interceptor_mode"] == "precall"


# -- whose rejection, EPS, hop rates ---------------------------------------------------------------------------

def test_the_oracles_rejections_are_all_the_environments(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    airline_run(db, "--inject", "missing_required", "--seed", "1")
    rep = json.loads(cli("propagation", "--db", str(db), "--json")[1])
    (overall,) = [r for r in rep["rows"] if r["kind"] == "all"]
    assert overall["counts"]["rejected"] == overall["rejected_by_environment"] > 0
    assert overall["rejected_by_agent"] == 0
    # every refused call is a tool error: the tool stage shows it, and each session's EPS counts it
    assert all(s["eps"] >= 1 for s in rep["sessions"] if s["refused"])
    code, text = cli("propagation", "--db", str(db))
    assert code == 0 and "rej. by agent" in text and "by env." in text and "r_23" in text
    assert "AgentProp-Bench paper (published, not measured here)" in text
    assert rep["anchors_source"].startswith("AgentProp-Bench paper")


def made(sid: str, eps: int, completed: bool) -> Classified:
    return Classified(sid, "m", False, "semantic_wrong", "propagated" if not completed else "unaffected", "",
                      False, False, completed, True, False, 0, False, 1.0, eps=eps)


def test_hop_rates_by_hand() -> None:
    # EPS 0, 1, 1, 2, 2, 2; final answer wrong on the 2nd, 4th and 5th
    items = [made("a", 0, True), made("b", 1, False), made("c", 1, True), made("d", 2, False),
             made("e", 2, False), made("f", 2, True)]
    rep = build_report(items)
    hop = rep.rows[0].hop
    assert hop is not None
    assert (hop["n"], hop["n_S1"], hop["n_S2"], hop["n_S3"]) == (6, 5, 3, 3)
    assert hop["p_S1"] == round(5 / 6, 4) and hop["p_S2"] == 0.5 and hop["p_S3"] == 0.5
    assert hop["r_1_2"] == round(3 / 5, 4)  # p(S2) / p(S1)
    assert hop["r_2_3"] == round(2 / 3, 4)  # of d, e, f: d and e wrong
    assert hop["injection_to_error"] == round(3 / 5, 4)  # of b..f: b, d, e
    assert hop["s3_from"] == ["outcome"] and hop["hallucination_rate"] == 0.5
    # an answer the abstaining interceptor withheld is no hallucination (AgentProp's interceptor measure)
    withheld = build_report([*items[:3], replace(items[3], abstained=True), *items[4:]]).rows[0].hop
    assert withheld is not None and withheld["hallucination_rate"] == round(2 / 6, 4) and withheld["n_S3"] == 3
    # a judge's answer stands for the final answer when there is one (AgentProp reads S3 from its ensemble)
    judged = build_report(items, judged_wrong={"f": (True, "ensemble:x+y+z"), "d": (False, "ensemble:x+y+z")})
    hop2 = judged.rows[0].hop
    assert hop2 is not None and hop2["r_2_3"] == round(2 / 3, 4) and hop2["n_S3"] == 3
    assert hop2["s3_from"] == ["ensemble:x+y+z", "outcome"]
    assert hop_rates([]) is None


def test_an_ensemble_judgment_gives_the_s3_of_a_session(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    airline_run(db, "--inject", "semantic_wrong", "--seed", "2", tasks=("60",))
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        store.save_judgment(record.id, Judgment(judge="ensemble", label="yes", model="a+b+c"))
    rep = json.loads(cli("propagation", "--db", str(db), "--json")[1])
    (overall,) = [r for r in rep["rows"] if r["kind"] == "all"]
    assert overall["hop"]["n_S3"] == 1 and overall["hop"]["s3_from"] == ["ensemble:a+b+c"]
