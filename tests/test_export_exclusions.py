"""`tauplay export training` leaves out, by default, sessions with a confirmed fault label, a policy violation or
a task verdict other than approve; each flag brings its kind back, and stderr says how many were left out and
why. A saved suggestion nobody confirmed does not count as a fault label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.tasks import load_tasks
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.participants import CallTools, Conversation, PlannedCall, Say
from tauplay.sim.scripted_user import ScriptedUser
from tauplay.sim.session import SessionSetup, run_session
from tauplay.store import SessionStore
from tests.support.store import add_annotation

DOMAIN = get_domain("airline")
TASKS = load_tasks(DOMAIN.task_set_path(), "airline")


class Hasty:
    """Carries out the gold actions without asking the user first: reward 1, and a policy violation."""

    kind = "hasty"

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> CallTools | Say:
        done = len(conversation.tool_calls())
        gold = conversation.task.actions
        if done < len(gold):
            return CallTools([PlannedCall(gold[done].name, dict(gold[done].kwargs))])
        return Say("All done. Anything else?")


async def _run(store: SessionStore, task_id: str, agent: Any = None) -> str:
    sid, out = await run_session(store, SessionSetup(DOMAIN, TASKS.by_id(task_id), DOMAIN.database()),
                                 agent or OracleAgent(), ScriptedUser())
    assert out.value == 1.0, task_id
    return sid


@pytest.fixture
async def db(tmp_path: Path) -> dict[str, Any]:
    path = str(tmp_path / "s.db")
    with SessionStore(path) as store:
        ids = {"clean": await _run(store, "airline-starter-01-book-direct"),
               "faulty": await _run(store, "airline-starter-02-cancel-business"),
               "suggested": await _run(store, "airline-starter-04-fix-passenger"),
               "violation": await _run(store, "airline-starter-03-add-bag", Hasty()),
               "rejected": await _run(store, "airline-starter-05-upgrade-cabin")}
        add_annotation(store, ids["faulty"], category="Misread Intent", who_erred="agent", severity="minor",
                             annotator="ann")
        add_annotation(store, ids["suggested"], category="Extra Action", who_erred="agent", severity="major",
                             annotator="ann", source="suggested")
        for task_id, verdict, who in (("airline-starter-05-upgrade-cabin", "approve", "bob"),
                                      ("airline-starter-05-upgrade-cabin", "reject", "ann"),
                                      ("airline-starter-01-book-direct", "reject", "ann"),
                                      ("airline-starter-01-book-direct", "approve", "ann")):  # ann changed her mind
            task = TASKS.by_id(task_id)
            store.add_task_review(domain="airline", task_id=task.id, task=task.to_json(), verdict=verdict,
                                  annotator=who)
        violations = store.events(ids["violation"])[-1].data["violations"]
    assert {v["rule"] for v in violations} >= {"write_without_yes"}
    return {"path": path, "ids": ids}


def _export(db: dict[str, Any], tmp_path: Path, *flags: str) -> set[str]:
    out = tmp_path / "t.jsonl"
    assert main(["export", "training", "--out", str(out), "--db", db["path"], *flags]) == 0
    names = {v: k for k, v in db["ids"].items()}
    return {names[json.loads(line)["metadata"]["session_id"]] for line in out.read_text().splitlines()}


def test_default_leaves_out_faulty_violating_and_unapproved_sessions(db, tmp_path, capsys):
    assert _export(db, tmp_path) == {"clean", "suggested"}
    err = capsys.readouterr().err
    assert ("training: left out 3 session(s): 1 with a confirmed fault label (--include-faulty); 1 with a policy "
            "violation (--include-violations); 1 whose task's verdict is not approve (--include-unapproved)") in err


@pytest.mark.parametrize(("flag", "back"), [("--include-faulty", "faulty"), ("--include-violations", "violation"),
                                            ("--include-unapproved", "rejected")])
def test_each_flag_brings_its_sessions_back(db, tmp_path, capsys, flag, back):
    assert _export(db, tmp_path, flag) == {"clean", "suggested", back}
    assert "left out 2 session(s)" in capsys.readouterr().err


def test_all_flags_keep_everything_and_say_nothing_left_out(db, tmp_path, capsys):
    got = _export(db, tmp_path, "--include-faulty", "--include-violations", "--include-unapproved")
    assert got == set(db["ids"])
    assert "left out" not in capsys.readouterr().err


def test_review_show_prints_violations_suggestions_and_unconfirmed_labels(db, capsys):
    ids = db["ids"]
    assert main(["review", "--show", ids["violation"][:12], "--db", db["path"]]) == 0
    text = capsys.readouterr().out
    assert f"session {ids['violation']}" in text and "→ update_reservation_baggages(" in text
    assert "policy violations: " in text and "write_without_yes (turn " in text
    assert "labels: none" in text
    assert main(["review", "--show", ids["suggested"], "--db", db["path"]]) == 0
    text = capsys.readouterr().out
    assert "Extra Action (session) by ann, agent, major [suggestion, not confirmed]" in text
    assert "policy violations: none" in text and "fault suggestions: none" in text
    assert main(["review", "--show", "zzz", "--db", db["path"]]) == 2
    assert "no session 'zzz'" in capsys.readouterr().err
