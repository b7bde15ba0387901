"""The Tracer pipeline: generated tasks verify, the same seed gives the same file, every filter rejects
a crafted bad candidate, leaves stay in their family, and the model path works over real HTTP."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import available_domains, get_domain
from tauplay.core.emotions import FAMILIES
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, load_tasks
from tauplay.core.verify import verify_tasks
from tauplay.llm import LLMConfig
from tauplay.tracer import Settings, Tracer, generate
from tauplay.tracer.emotion import (
    DistributionError,
    condition_for,
    parse_distribution,
    quotas,
    resolve_weights,
)
from tauplay.tracer.facts import fact, missing, tool_names_in
from tauplay.tracer.verify import Candidate
from tests.support.llm_server import Reply

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def airline() -> Any:
    domain = get_domain("airline")
    return domain, domain.database()


@pytest.fixture(scope="module")
def generated(airline: Any) -> Any:
    domain, db = airline
    return generate(domain, db, Settings(n=30, seed=11, depth=(1, 5)))


# -- what comes out -----------------------------------------------------------------------------------

def test_every_generated_task_verifies_and_sits_in_its_tier(airline: Any, generated: Any) -> None:
    domain, db = airline
    tasks = generated.tasks.tasks
    assert len(tasks) == 30 and generated.complete
    report = verify_tasks(domain, db, tasks)
    assert report.executed == report.total == 30
    graph = ToolGraph(domain)
    settings = Settings(n=30, seed=11, depth=(1, 5))
    for slot, task in enumerate(tasks):
        names = [a.name for a in task.actions]
        assert all(s.valid for s in graph.path(names)), task.id
        assert task.difficulty == graph.depth(names) == settings.depth_of(slot)
        assert any(domain.tool_map[n].is_write for n in names)
        assert not tool_names_in(task.instruction, [t.name for t in domain.tools]), task.instruction
        assert task.user_id and task.user_id in task.instruction
    assert Counter(t.difficulty for t in tasks) == {d: 6 for d in range(1, 6)}
    assert Counter(t.emotion.family for t in tasks) == {f: 6 for f in FAMILIES}
    assert len({r.hash for r in report.replays}) == 30  # no two tasks end in the same state


def test_report_counts_add_up(generated: Any) -> None:
    report = generated.report.to_json()
    stages = report["stages"]
    for stage in stages.values():
        assert stage["seen"] == stage["passed"] + stage["dropped"]
    assert stages["sample"]["passed"] == stages["instruct"]["seen"]
    assert stages["verify"]["passed"] == report["accepted"] == 30
    assert generated.tasks.provenance["report"] == report
    assert generated.tasks.provenance["seed"] == 11 and generated.tasks.provenance["depth"] == "1-5"


def test_same_seed_gives_the_same_file_and_the_cli_verifies_it(tmp_path: Path, capsys: Any) -> None:
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    for path, seed in ((a, "5"), (b, "5"), (c, "6")):
        assert main(["generate", "--domain", "airline", "--n", "12", "--seed", seed, "--depth", "1-4",
                     "--out", str(path)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    capsys.readouterr()
    assert main(["verify", str(a), "--domain", "airline"]) == 0
    assert "verified: 12/12 executable" in capsys.readouterr().out
    loaded = load_tasks(a, "airline")
    assert len(loaded.tasks) == 12 and loaded.provenance["instruction"] == "offline templates"


def test_cli_json_summary_and_refusals(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "t.json"
    assert main(["generate", "--domain", "airline", "--n", "5", "--seed", "1", "--depth", "2",
                 "--emotions", "anger=3,fear=2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["accepted"] == 5 and summary["distribution"]["depth"] == {"2": 5}
    assert summary["distribution"]["family"] == {"anger": 3, "fear": 2}
    bad = [
        ["--domain", "nowhere", "--n", "3"],
        ["--domain", "airline", "--n", "0"],
        ["--domain", "airline", "--n", "3", "--depth", "4-2"],
        ["--domain", "airline", "--n", "3", "--depth", "deep"],
        ["--domain", "airline", "--n", "3", "--emotions", "joy=1"],
        ["--domain", "airline", "--n", "3", "--emotions", "anger=-1"],
        ["--domain", "airline", "--n", "3", "--emotions", "anger=nan"],  # non-finite weights: one line, not a crash
        ["--domain", "airline", "--n", "3", "--emotions", "anger=inf,fear=1"],
        ["--domain", "airline", "--n", "3", "--api-base", "http://127.0.0.1:9"],
        ["--domain", "airline", "--n", "3", "--out", str(out)],  # exists: never overwritten silently
        ["--domain", "airline", "--n", "3", "--out", str(tmp_path / "missing" / "t.json")],
    ]
    before = out.read_bytes()
    for args in bad:
        assert main(["generate", *args]) == 2, args
        err = capsys.readouterr().err.strip()
        assert err.startswith("tauplay generate: ") and "\n" not in err and "Traceback" not in err, err
    assert out.read_bytes() == before
    for args in (["--domain", "airline"], ["--domain", "airline", "--n", "many"]):  # caught by argparse
        with pytest.raises(SystemExit) as exit_:
            main(["generate", *args])
        err = capsys.readouterr().err.strip()
        assert exit_.value.code == 2 and err.startswith("tauplay generate: ") and "\n" not in err, err


# -- stage 5: each filter rejects a crafted bad candidate --------------------------------------------

def _reservation(db: Any, *, cabin: str, insurance: str) -> dict[str, Any]:
    """A reservation with every flight ahead, booked over 24 hours ago, in this cabin."""
    flights = db.tables["flights"]
    for r in db.tables["reservations"].values():
        if r["cabin"] == cabin and r["insurance"] == insurance and r["created_at"] < "2024-05-14" and all(
                s["date"] > "2024-05-15" and flights[s["flight_number"]]["dates"][s["date"]]["status"] == "available"
                for s in r["flights"]):
            return r
    raise AssertionError("the generated database has no such reservation")


def _cancel_candidate(r: dict[str, Any], reason: str, instruction: str | None = None,
                      actions: list[Action] | None = None) -> Candidate:
    rid = r["reservation_id"]
    facts = [fact("reservation_id", rid), fact("cancel_reason", reason, reason)]
    task = Task(id=f"crafted-{rid}-{reason}", domain="airline",
                instruction=instruction or f"You want to cancel reservation {rid}; the reason is {reason}.",
                actions=actions if actions is not None else [Action("get_reservation_details", {"reservation_id": rid}),
                                                             Action("cancel_reservation", {"reservation_id": rid})],
                user_id=r["user_id"])
    known = {"cancel_reason": reason}
    return Candidate(task, facts, [known] * len(task.actions))


def _filters(airline: Any) -> Any:
    domain, db = airline
    return Tracer(domain, db, Settings(n=1, seed=0)).filters


def test_a_sound_candidate_passes_and_then_counts_as_a_duplicate(airline: Any) -> None:
    _, db = airline
    filters = _filters(airline)
    good = _cancel_candidate(_reservation(db, cabin="business", insurance="no"), "change of plans")
    assert filters.judge(good).ok
    again = replace(good, task=replace(good.task, id="again", instruction=good.task.instruction + " Thanks."))
    verdict = filters.judge(again)
    assert verdict.filter == "duplicate" and verdict.detail == good.task.id


def test_executes_filter(airline: Any) -> None:
    _, db = airline
    filters = _filters(airline)
    r = _reservation(db, cabin="business", insurance="no")
    broken = _cancel_candidate(r, "change of plans", actions=[
        Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
        Action("cancel_reservation", {"reservation_id": "NOSUCH"})])
    verdict = filters.judge(broken)
    assert verdict.filter == "executes" and "NOSUCH" in verdict.detail
    drifted = replace(_cancel_candidate(r, "change of plans"), trace_hash="0" * 32)
    assert filters.judge(drifted).filter == "executes"


def test_changes_filter(airline: Any) -> None:
    _, db = airline
    filters = _filters(airline)
    r = _reservation(db, cabin="economy", insurance="yes")
    same = [Action("get_reservation_details", {"reservation_id": r["reservation_id"]}),
            Action("update_reservation_passengers", {"reservation_id": r["reservation_id"],
                                                    "passengers": r["passengers"]})]
    verdict = filters.judge(_cancel_candidate(r, "health", actions=same))
    assert verdict.filter == "changes" and "changed nothing" in verdict.detail
    reads_only = _cancel_candidate(r, "health", actions=same[:1])
    assert filters.judge(reads_only).filter == "changes"


def test_policy_filter_graph_and_domain_rules(airline: Any) -> None:
    _, db = airline
    filters = _filters(airline)
    business = _reservation(db, cabin="business", insurance="no")
    unchecked = _cancel_candidate(business, "change of plans",
                                  actions=[Action("cancel_reservation", {"reservation_id": business["reservation_id"]})])
    verdict = filters.judge(unchecked)
    assert verdict.filter == "policy" and "get_reservation_details" in verdict.detail
    # The tool would cancel it, but the policy does not allow an uninsured economy fare for a change of plans.
    economy = _reservation(db, cabin="economy", insurance="no")
    verdict = filters.judge(_cancel_candidate(economy, "change of plans"))
    assert verdict.filter == "policy" and "not covered" in verdict.detail
    insured = _reservation(db, cabin="economy", insurance="yes")
    assert filters.judge(_cancel_candidate(insured, "health")).ok  # covered reason with insurance: allowed


def test_informed_filter(airline: Any) -> None:
    _, db = airline
    filters = _filters(airline)
    r = _reservation(db, cabin="business", insurance="no")
    names_tool = _cancel_candidate(r, "change of plans", instruction=(
        f"Call cancel_reservation on {r['reservation_id']}; the reason is change of plans."))
    verdict = filters.judge(names_tool)
    assert verdict.filter == "informed" and "cancel_reservation" in verdict.detail
    vague = _cancel_candidate(r, "change of plans", instruction="You want to cancel your trip; plans changed.")
    verdict = filters.judge(vague)
    assert verdict.filter == "informed" and r["reservation_id"] in verdict.detail


def test_surface_forms() -> None:
    assert not missing("Your trip is on May 22.", [fact("date", "2024-05-22")])
    assert missing("Flight HAT0123 please", [fact("flight_number", "HAT012")])
    assert not missing("You want no travel insurance", [fact("insurance", "no")])
    assert not missing("in basic economy", [fact("cabin", "basic_economy")])
    assert missing("on 2024-05-22", [fact("total_baggages", 2)])  # a bare digit inside a date does not count
    assert tool_names_in("please update reservation baggages now", ["update_reservation_baggages"])
    assert not tool_names_in("cancel reservation ABC123", ["cancel_reservation"])


# -- stage 4 ------------------------------------------------------------------------------------------

def test_a_leaf_outside_its_family_never_appears(airline: Any, generated: Any) -> None:
    domain, db = airline
    for task in generated.tasks.tasks:
        assert task.emotion.leaf in FAMILIES[task.emotion.family]
        assert task.emotion.trigger
    tracer = Tracer(domain, db, Settings(n=1, seed=3))
    trace = tracer.sampler.sample(random.Random(1), 2)
    rng = random.Random(7)
    seen: Counter[tuple[str, str]] = Counter()
    for _ in range(400):
        for family in FAMILIES:
            condition = condition_for(family, trace, tracer.hints, rng)
            assert condition.family == family and condition.leaf in FAMILIES[family]
            seen[(family, condition.leaf)] += 1
    assert all(sum(n for (f, _), n in seen.items() if f == family) == 400 for family in FAMILIES)
    assert len({leaf for _, leaf in seen}) > 10  # leaves vary within families


def test_distribution_quotas_and_parsing() -> None:
    slots = quotas(parse_distribution("anger=3,fear=1"), 8, random.Random(0))
    assert Counter(slots) == {"anger": 6, "fear": 2}
    balanced = resolve_weights(parse_distribution("balanced"), None)  # a domain without its own set: all five
    assert Counter(quotas(balanced, 10, random.Random(0))) == {f: 2 for f in FAMILIES}
    assert quotas(parse_distribution("none"), 3, random.Random(0)) == [None, None, None]
    for bad in ("joy=1", "anger=x", "anger=0", "anger=-2", "", "anger=nan", "anger=inf", "fear=1,anger=-inf"):
        with pytest.raises(DistributionError):
            parse_distribution(bad)


# -- stage 3 through a model, over real HTTP ----------------------------------------------------------

def _draft_of(request: dict[str, Any]) -> str:
    text = request["messages"][-1]["content"]
    return text.split("Draft card:\n", 1)[1].split("\n\nFacts to keep:", 1)[0]


async def test_model_writes_instructions_and_bad_replies_fall_back(airline: Any, llm_server: Any) -> None:
    domain, db = airline
    queue = llm_server.queue("writer")
    queue.build(lambda req: Reply(content="Hello! " + _draft_of(req).replace("You want", "You would like")))
    queue.build(lambda req: Reply(content=_draft_of(req) + " Ask them to run get_user_details first."))
    queue.text("You need some help with your travel plans.")
    queue.error(500, "overloaded")
    config = LLMConfig("openai/writer", api_base=llm_server.url, timeout=10, retries=0)
    tracer = Tracer(domain, db, Settings(n=4, seed=2, depth=(1, 2), model=config, concurrency=1))
    result = await tracer.run_async()
    assert result.complete
    by = Counter(t.provenance["instruction_by"] for t in result.tasks.tasks)
    assert by == {"model": 1, "template": 3}
    written = next(t for t in result.tasks.tasks if t.provenance["instruction_by"] == "model")
    assert written.instruction.startswith("Hello! ") and "You would like" in written.instruction
    fallbacks = result.report.to_json()["model_fallbacks"]
    assert {f["reason"]: f["count"] for f in fallbacks} == {
        "reply names a tool": 1, "reply misses facts the user must say": 1, "model call failed (http)": 1}
    assert sum("model_fallback" in t.provenance for t in result.tasks.tasks) == 3
    assert verify_tasks(domain, db, result.tasks.tasks).executed == 4
    request = llm_server.requests_for("writer")[0]
    assert "Never name tools" in request["messages"][0]["content"]
    assert "Facts to keep:" in request["messages"][1]["content"]
    assert result.tasks.provenance["instruction"]["model"] == "openai/writer"


def test_cli_with_a_model(tmp_path: Path, llm_server: Any, capsys: Any) -> None:
    llm_server.queue("cli").fallback = Reply(builder=lambda req: Reply(content="Hi. " + _draft_of(req)))
    out = tmp_path / "m.json"
    assert main(["generate", "--domain", "airline", "--n", "3", "--seed", "4", "--depth", "1-2", "--model",
                 "openai/cli", "--api-base", llm_server.url, "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accepted"] == 3
    tasks = load_tasks(out, "airline").tasks
    assert all(t.provenance["instruction_by"] == "model" and t.instruction.startswith("Hi. ") for t in tasks)


# -- other domains: the generic path, or the domain's own hints ---------------------------------------

# What a user says to be found when a domain's policy has them identified by a look-up, not their id.
IDENTIFIERS = ("email", "phone", "first_name")


@pytest.mark.parametrize("name", ["retail", "telecom", "telehealth"])
def test_generic_pipeline_on_other_domains(name: str) -> None:
    if name not in available_domains():
        pytest.skip(f"domain '{name}' is not installed")
    domain = get_domain(name)
    db = domain.database()
    result = generate(domain, db, Settings(n=10, seed=1, depth=(2, 3)))
    assert result.complete, result.report.render()
    assert verify_tasks(domain, db, result.tasks.tasks).executed == 10
    graph = ToolGraph(domain)
    for task in result.tasks.tasks:
        assert all(s.valid for s in graph.gold_path(task))
        handles = [task.user_id, *(str(v) for k, v in task.known_info.items() if k in IDENTIFIERS)]
        assert task.user_id and any(h in task.instruction for h in handles), task.instruction


# -- the shipped airline test set ---------------------------------------------------------------------

def test_shipped_airline_test_set_is_what_the_pipeline_makes(airline: Any, tmp_path: Path) -> None:
    from tauplay.core.task_checks import check_tasks

    domain, db = airline
    path = domain.task_set_path("test")
    shipped = load_tasks(path, "airline")
    assert len(shipped.tasks) == 70
    p = shipped.provenance
    assert p["instruction"] == "offline templates" and p["database"] == db.source
    lo, hi = (int(x) for x in p["depth"].split("-"))
    again = generate(domain, db, Settings(n=p["n"], seed=p["seed"], depth=(lo, hi), emotions=p["emotions"],
                                          attempts=p["attempts_per_slot"]))
    fresh = tmp_path / "regenerated.json"
    again.tasks.save(fresh)
    assert fresh.read_bytes() == path.read_bytes()
    for facts in check_tasks(domain, db, shipped.tasks):
        assert facts.passed, [c for c in facts.checks if c.ok is False]
