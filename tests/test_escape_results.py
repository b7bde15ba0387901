"""Escape rooms beside the general taxonomy and per tier (issue 17): the domain's own fault categories are
accepted on its sessions only, kept through export and import, filtered on and counted by `tauplay stats`;
`tauplay stats --by difficulty model` gives success, steps, tool errors and time per tier for people and each
model; an LLM narrator is told the room's premise and nothing hidden, and the room still ends the session."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.escape.narrator import premise
from tauplay_domains.escape.solve import room_of

from tauplay.cli import main
from tauplay.core.domain import domain_fault_categories, get_domain
from tauplay.core.labels import FaultLabel
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import FAULT_CATEGORIES, STOP_TOKEN
from tauplay.store import SessionStore, StoreError
from tests.support.llm_server import Reply
from tests.support.store import add_annotation

ESCAPE = get_domain("escape")
ROOMS = load_tasks(ESCAPE.task_set_path(), "escape").tasks
OWN = ("Lost State", "Ignored Clue", "Dropped Intermediate Result", "Wrong Final Answer")


def _room(tier: int, nth: int = 0) -> Any:
    return [t for t in ROOMS if t.difficulty == tier][nth]


def _play(store: SessionStore, domain: Any, task: Any, agent: Any) -> str:
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session

    sid, _ = asyncio.run(run_session(store, SessionSetup(domain, task, domain.database()), agent, ScriptedUser()))
    return sid


def _person(calls: list[tuple[str, dict[str, Any]]]) -> Any:
    from tauplay.sim.human import HumanAgent

    agent = HumanAgent()
    for name, kwargs in calls:
        agent.call_tool(name, kwargs)
    return agent


@pytest.fixture
def played(tmp_path: Path) -> dict[str, Any]:
    """Escape sessions by the oracle and by a person (one room per tier 5 and 10; the person fails the second
    with a refused call and a wrong answer), and an airline session."""
    from tauplay.sim.oracle import OracleAgent

    path = tmp_path / "s.db"
    five, ten = _room(5), _room(10)
    wrong = next(s["value"] for s in room_of(ESCAPE.database(), ten.id).steps.values()
                 if s["value"] is not None and str(s["value"]) != ten.actions[-1].kwargs["answer"])
    with SessionStore(str(path)) as store:
        ids = {
            "oracle5": _play(store, ESCAPE, five, OracleAgent()),
            "oracle10": _play(store, ESCAPE, ten, OracleAgent()),
            "person5": _play(store, ESCAPE, five, _person([(a.name, a.kwargs) for a in five.actions])),
            # a submission before the room is entered is refused (a tool error), then a finding that is not
            # the answer goes to the panel
            "person10": _play(store, ESCAPE, ten, _person(
                [("submit_answer", {"answer": "X"}), *[(a.name, a.kwargs) for a in ten.actions[:-1]],
                 ("submit_answer", {"answer": str(wrong)})])),
        }
        airline = get_domain("airline")
        task = load_tasks(airline.task_set_path(), "airline").tasks[0]
        ids["airline"] = _play(store, airline, task, OracleAgent())
    return {"path": path, **ids}


def test_the_domain_declares_its_categories_apart_from_the_general_ones() -> None:
    assert ESCAPE.fault_categories == OWN and domain_fault_categories("escape") == OWN
    assert not set(OWN) & set(FAULT_CATEGORIES)
    assert get_domain("airline").fault_categories == ()  # the default: none
    assert domain_fault_categories("no-such-domain") == ()


def test_the_domains_own_labels_are_suggested_on_the_calls_that_show_them(played: dict[str, Any]) -> None:
    from tauplay.core.faults import domain_suggestions, fault_suggestions

    with SessionStore(str(played["path"])) as store:
        person = store.get_session(played["person10"])
        events = store.events(person.id)
        oracle = store.events(played["oracle10"])
        airline = store.events(played["airline"])
    calls = [e for e in events if e.kind == "tool_call"]
    own = [(s.category, s.seq) for s in domain_suggestions(events, "escape")]
    # the answer given before entering: lost track of where the room stands; a finding that is not the answer
    assert own == [("Lost State", calls[0].seq), ("Wrong Final Answer", calls[-1].seq)]
    everything = fault_suggestions(events, person.task, "escape") or []
    assert {(s.category, s.seq) for s in everything} >= set(own)  # beside alignment's suggestions
    assert domain_suggestions(oracle, "escape") == [] and domain_suggestions(airline, "airline") == []


def test_the_store_takes_a_domain_category_on_that_domains_sessions_only(played: dict[str, Any]) -> None:
    with SessionStore(str(played["path"])) as store:
        for category in OWN:
            add_annotation(store, played["person10"], category=category, who_erred="agent", severity="major",
                                 annotator="ann")
        add_annotation(store, played["person10"], category="Extra Action", who_erred="agent", severity="minor",
                             annotator="ann")  # the general taxonomy still applies
        with pytest.raises(StoreError) as refused:
            add_annotation(store, played["airline"], category="Lost State", who_erred="agent", severity="major",
                                 annotator="ann")
        message = str(refused.value)
        assert "unknown fault category 'Lost State'" in message and "airline" in message
        assert "\n" not in message
        with pytest.raises(StoreError, match="unknown fault category 'Lost Stat'.*escape.*Lost State"):
            add_annotation(store, played["person10"], category="Lost Stat", who_erred="agent", severity="major",
                                 annotator="ann")
        saved = [a.category for a in store.annotations(played["person10"])]
        assert saved == [*OWN, "Extra Action"]
        assert store.annotations(played["airline"]) == []
        # whole sessions imported with such labels: the same rule, and all of them or none
        from dataclasses import replace

        from tauplay.store.bundles import bundle_of

        escape = bundle_of(store, store.get_session(played["oracle5"]))
        airline = bundle_of(store, store.get_session(played["airline"]))
    with SessionStore(str(played["path"].with_name("other.db"))) as other:
        good = replace(escape, labels=[FaultLabel("Ignored Clue", "agent", "major", "ann")])
        bad = replace(airline, labels=[FaultLabel("Ignored Clue", "agent", "major", "ann")])
        with pytest.raises(StoreError, match="Ignored Clue"):
            other.import_sessions([good, bad])
        assert other.list_sessions() == []  # nothing half saved
        other.import_sessions([good])
        assert [a.category for a in other.annotations(escape.id)] == ["Ignored Clue"]


def test_export_and_import_keep_the_domain_labels(played: dict[str, Any], tmp_path: Path) -> None:
    with SessionStore(str(played["path"])) as store:
        add_annotation(store, played["person10"], category="Wrong Final Answer", who_erred="agent",
                             severity="critical", annotator="ann", note="gave the panel a finding")
        add_annotation(store, played["person10"], category="Missed Action", who_erred="agent", severity="major",
                             annotator="ann")
    out = tmp_path / "s.jsonl"
    assert main(["export", "sessions", "--db", str(played["path"]), "--out", str(out)]) == 0
    again = tmp_path / "again.db"
    assert main(["import", "sessions", str(out), "--db", str(again)]) == 0
    with SessionStore(str(again)) as store:
        (imported,) = store.list_sessions()  # only labelled sessions are exported
        assert (imported.domain, imported.task_id) == ("escape", _room(10).id)
        labels = [(a.category, a.severity, a.note) for a in store.annotations(imported.id)]
    assert labels == [("Wrong Final Answer", "critical", "gave the panel a finding"), ("Missed Action", "major", "")]
    # a file whose escape-only label sits on an airline session is refused, in one line, with nothing saved
    lines = out.read_text(encoding="utf-8").splitlines()
    session = json.loads(lines[0])
    session["domain"], session["id"] = "airline", "moved"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(session) + "\n", encoding="utf-8")
    third = tmp_path / "third.db"
    assert main(["import", "sessions", str(bad), "--db", str(third)]) != 0
    if third.exists():
        with SessionStore(str(third)) as store:
            assert store.list_sessions() == []


def test_stats_count_the_domain_labels_and_filter_on_them(played: dict[str, Any], capsys: Any) -> None:
    with SessionStore(str(played["path"])) as store:
        add_annotation(store, played["person10"], category="Wrong Final Answer", who_erred="agent",
                             severity="major", annotator="ann")
        add_annotation(store, played["person10"], category="Lost State", who_erred="agent", severity="major",
                             annotator="ann")
        add_annotation(store, played["oracle10"], category="Lost State", who_erred="agent", severity="minor",
                             annotator="bob")
        add_annotation(store, played["airline"], category="Extra Action", who_erred="agent", severity="minor",
                             annotator="ann")
    db = str(played["path"])
    assert main(["stats", "--db", db, "--by", "domain", "--json", "--resamples", "0"]) == 0
    groups = {g["key"]["domain"]: g for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups["escape"]["faults"]["Lost State"] == 2 and groups["escape"]["faults"]["Wrong Final Answer"] == 1
    assert groups["airline"]["faults"]["Extra Action"] == 1 and "Lost State" not in groups["airline"]["faults"]
    assert main(["stats", "--db", db, "--label", "lost_state", "--json", "--resamples", "0"]) == 0
    (only,) = json.loads(capsys.readouterr().out)["groups"]
    assert only["sessions"] == 2 and only["key"] == {"domain": "escape"}
    assert main(["stats", "--db", db, "--label", "WrongFinalAnswer", "--domain", "escape", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["sessions"] == 1
    assert main(["stats", "--db", db, "--label", "Lost Stat"]) == 2
    err = capsys.readouterr().err
    assert "unknown label 'Lost Stat'" in err and "Lost State" in err and "Traceback" not in err
    from tauplay.analysis.stats import compute_stats
    from tauplay.analysis.tables import faults_table

    with SessionStore(db, readonly=True) as store:
        table = faults_table(compute_stats(store, ["domain"], resamples=0))
    # the general columns, then the domain's own that were used (not the unused ones)
    n = len(FAULT_CATEGORIES)
    assert table.header[1:n + 3] == [*FAULT_CATEGORIES, "Lost State", "Wrong Final Answer"]
    escape = next(r for r in table.rows if r[0] == "escape")
    assert escape[1:n + 3] == [0] * n + [2, 1]
    assert main(["stats", "--db", db, "--by", "domain", "--resamples", "0"]) == 0
    assert "Fault labels by domain" in capsys.readouterr().out


def test_stats_by_difficulty_and_model_give_success_steps_tool_errors_and_time(played: dict[str, Any],
                                                                              capsys: Any) -> None:
    db = str(played["path"])
    assert main(["stats", "--db", db, "--domain", "escape", "--by", "difficulty", "model", "--json",
                 "--resamples", "0"]) == 0
    rows = {(g["key"]["difficulty"], g["key"]["model"]): g for g in json.loads(capsys.readouterr().out)["groups"]}
    assert set(rows) == {(5, "oracle"), (10, "oracle"), (5, "human"), (10, "human")}
    with SessionStore(db) as store:
        for (tier, who), row in rows.items():
            sid = played[f"{'person' if who == 'human' else 'oracle'}{tier}"]
            events = store.events(sid)
            steps = sum(1 for e in events if e.kind in ("message", "tool_call"))
            errors = sum(1 for e in events if e.kind == "tool_result" and e.data["error"])
            seconds = events[-1].at - events[0].at
            assert row["sessions"] == 1
            assert row["avg_steps"] == steps and row["avg_tool_errors"] == errors
            assert row["avg_seconds"] == pytest.approx(seconds, abs=1e-3)
            assert row["success_rate"] == (0.0 if (tier, who) == (10, "human") else 1.0)
    assert rows[(10, "human")]["avg_tool_errors"] >= 1 and rows[(5, "oracle")]["avg_tool_errors"] == 0
    assert main(["stats", "--db", db, "--domain", "escape", "--by", "difficulty", "--resamples", "0"]) == 0
    printed = capsys.readouterr().out
    assert "Success, steps, tool errors and time by difficulty" in printed
    assert re.search(r"tool\s+errors", printed) and "seconds" in printed


# -- the narrator ----------------------------------------------------------------------------------------

def _hidden(task: Any) -> list[str]:
    """What of a room nobody may say before it is found: every step's value and clue, the answer."""
    room = room_of(ESCAPE.database(), task.id)
    out = [str(task.actions[-1].kwargs["answer"])]
    for s in room.steps.values():
        out.append(s["hint"])
        if s["value"] is not None:
            out.append(str(s["value"]))
    return [h for h in out if len(h) >= 3]  # short numbers would match anywhere in prose


def test_the_greeting_states_the_premise_and_nothing_hidden() -> None:
    from tauplay_domains.escape.narrator import opening

    for tier in (5, 25):
        task = _room(tier, 3)
        for text in (opening(task), premise(task)):
            assert task.goal in text and task.id in text
            for secret in _hidden(task):
                assert secret not in text.replace(task.id, ""), secret


def test_an_llm_narrator_sets_the_scene_and_the_room_ends_the_session(llm_server: Any, tmp_path: Path,
                                                                     capsys: Any) -> None:
    task = _room(5, 1)
    ASK = "Narrator, is there anything else in here?"  # noqa: N806
    line = f"Dust hangs in the air of room {task.id}. Step inside when you are ready. {STOP_TOKEN}"
    llm_server.queue("narrator").text(line).text("The walls listen, but they do not answer.")

    def player(request: dict[str, Any]) -> Reply:
        done = sum(1 for m in request["messages"] if m["role"] == "tool")
        if done == 2 and not any(m["role"] == "assistant" and m.get("content") == ASK for m in request["messages"]):
            return Reply(content=ASK)
        action = task.actions[done]
        return Reply(tool_calls=[{"id": f"c{done}", "type": "function",
                                  "function": {"name": action.name, "arguments": json.dumps(action.kwargs)}}])

    llm_server.queue("agent").fallback = Reply(builder=player)
    db = tmp_path / "n.db"
    code = main(["run", "--domain", "escape", "--task-ids", task.id, "--agent-model", "openai/agent",
                 "--agent-api-base", llm_server.url, "--user", "llm", "--user-model", "openai/narrator",
                 "--user-api-base", llm_server.url, "--db", str(db), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["user"]["kind"] == "llm"
    asked = llm_server.requests_for("narrator")
    assert len(asked) == 2  # the greeting and the one reply; the end is the room's, not the model's
    assert asked[0]["messages"][1] == {"role": "user", "content": "Hello? Where am I?"}  # the player's greeting
    system = asked[0]["messages"][0]["content"]
    assert "narrator" in system.lower() and task.goal in system and task.id in system
    for secret in _hidden(task):
        assert secret not in system.replace(task.id, ""), secret
    with SessionStore(str(db)) as store:
        (session,) = store.list_sessions()
        events = store.events(session.id)
        assert session.reward == 1.0 and session.termination_reason == "user_stop"
        said = [e.data for e in events if e.kind == "message" and e.role == "user"]
    # the model's control word is not the model's to use: the scene went on after its greeting
    assert said[0]["content"] == line.replace(STOP_TOKEN, "").strip()
    assert said[1]["content"] == "The walls listen, but they do not answer."
    assert said[-1]["content"].endswith(STOP_TOKEN) and "You are out" in said[-1]["content"]
    assert len(said) == 3
    calls = [e.data["name"] for e in events if e.kind == "tool_call"]
    assert calls == [a.name for a in task.actions]
