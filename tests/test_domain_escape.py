"""The escape domain (what the contract tests do not cover): rooms generated per tier verify, carry their
difficulty, are exactly that deep and fail when their order is broken; the tools only take findings and
reveal step by step; the narrator; the shipped 270 rooms in batch; an LLM agent's per-tier results."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tauplay_domains.escape import faults, rooms
from tauplay_domains.escape.progress import room_progress
from tauplay_domains.escape.solve import (
    chain_composition,
    escaped,
    gold_actions,
    inputs_unexplained,
    longest_chain,
    order_fails,
    replay,
    room_of,
    shuffled_breaking,
    unenforced_needs,
)

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.tasks import Action, load_tasks
from tauplay.core.verify import verify_tasks
from tauplay.tracer import Settings, Tracer
from tests.support.llm_server import Reply

DOMAIN = get_domain("escape")
SHIPPED = load_tasks(DOMAIN.task_set_path(), "escape")


@pytest.fixture(scope="module")
def db() -> Any:
    return DOMAIN.database()


def _generate(tmp_path: Path, capsys: Any, *args: str) -> tuple[dict[str, Any], Any]:
    out = tmp_path / f"rooms-{'-'.join(args)}.json"
    code = main(["generate", "--domain", "escape", *args, "--out", str(out), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0, summary
    return summary, load_tasks(out, "escape")


def _room(db: Any, task: Any) -> Any:
    return room_of(db, task.known_info["room_id"])


def _orchestrator(task: Any, db: Any, agent: Any, user: Any, history: Any = ()) -> Any:
    """A session in memory (no store): what the orchestrator does is what is checked."""
    from tauplay.sim.orchestrator import Limits, Orchestrator
    from tauplay.sim.participants import Conversation

    env = Environment(DOMAIN, db)
    return Orchestrator(agent, user, Conversation(DOMAIN, task, env, None, list(history)), Limits(), [])


# -- generation, per tier -----------------------------------------------------------------------------

@pytest.mark.parametrize("tier", rooms.TIERS)
def test_generated_rooms_verify_carry_their_tier_and_fail_out_of_order(tier: int, tmp_path: Path, capsys: Any,
                                                                       db: Any) -> None:
    summary, tasks = _generate(tmp_path, capsys, "--difficulty", str(tier), "--n", "12", "--seed", "31")
    assert summary["accepted"] == 12 and summary["distribution"]["depth"] == {str(tier): 12}
    assert verify_tasks(DOMAIN, db, tasks.tasks).executed == 12
    raw = json.loads((tmp_path / f"rooms---difficulty-{tier}---n-12---seed-31.json").read_text())
    assert {t["difficulty"] for t in raw["tasks"]} == {tier}  # as the file says it
    for task in tasks.tasks:
        room = _room(db, task)
        assert task.difficulty == tier == room.room["difficulty"] == longest_chain(room), task.id
        assert room.room_id not in db.tables["rooms"]  # seed 31: built on entry, not in the database
        error, env = replay(DOMAIN, db, task.actions)
        assert error is None and escaped(env, room.room_id), task.id
        backwards = [task.actions[0], *reversed(task.actions[1:])]
        assert order_fails(DOMAIN, db, backwards, room.room_id), task.id
        assert order_fails(DOMAIN, db, list(reversed(task.actions)), room.room_id), task.id
        shuffled = shuffled_breaking(room, random.Random(task.id))
        assert order_fails(DOMAIN, db, shuffled, room.room_id), task.id
        assert inputs_unexplained(room) == [], task.id
    # every dependency is real: taking a step without one it needs is refused (four rooms of the tier)
    for task in tasks.tasks[:4]:
        assert unenforced_needs(DOMAIN, db, _room(db, task)) == [], task.id


def test_same_seed_same_rooms_other_seed_other_rooms(tmp_path: Path, capsys: Any) -> None:
    paths = []
    for seed in ("5", "5", "6"):
        out = tmp_path / f"r{len(paths)}.json"
        assert main(["generate", "--domain", "escape", "--difficulty", "10", "--n", "6", "--seed", seed,
                     "--out", str(out)]) == 0
        paths.append(out)
    capsys.readouterr()
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()
    assert rooms.build_room(5, 10, 3).tables() == rooms.build_room(5, 10, 3).tables()


def test_a_random_order_fails_exactly_when_it_breaks_a_dependency(db: Any) -> None:
    task = next(t for t in SHIPPED.tasks if t.difficulty == 10)
    room = _room(db, task)
    steps = list(room.steps.values())
    rng = random.Random(3)
    broken = kept = 0
    for _ in range(60):
        order = list(range(len(steps)))
        rng.shuffle(order)
        placed: set[str] = set()
        valid = True
        for i in order:
            valid = valid and all(n in placed for n in steps[i]["needs"])
            placed.add(steps[i]["step_id"])
        actions = [task.actions[0]] + [task.actions[1 + i] for i in order]
        assert order_fails(DOMAIN, db, actions, room.room_id) == (not valid)
        broken, kept = broken + (not valid), kept + valid
    assert broken > 0


def test_generate_refuses_what_escape_rooms_cannot_be(tmp_path: Path, capsys: Any) -> None:
    for args in (["--difficulty", "7", "--n", "3"], ["--difficulty", "5", "--depth", "5", "--n", "3"],
                 ["--depth", "1-4", "--n", "3"], ["--difficulty", "5", "--n", "3", "--model", "openai/x"]):
        assert main(["generate", "--domain", "escape", *args, "--out", str(tmp_path / "x.json")]) == 2, args
        err = capsys.readouterr().err.strip()
        assert err.startswith("tauplay generate: ") and "\n" not in err and "Traceback" not in err, err
    assert not (tmp_path / "x.json").exists()


def test_stage_five_drops_a_room_that_is_not_what_it_claims(db: Any) -> None:
    tracer = Tracer(DOMAIN, db, Settings(n=1, seed=7, depth=(5, 5)))
    good = tracer.build(0, 0)
    assert good is not None and tracer.filters.judge(good).ok
    wrong_tier = tracer.build(0, 0)
    wrong_tier.task.difficulty = 6
    assert tracer.filters.judge(wrong_tier).reason == "the longest chain is not the tier"
    room = _room(db, good.task)
    found = next(s["value"] for s in room.steps.values() if s["value"] is not None)
    wrong_answer = tracer.build(0, 0)
    wrong_answer.task.actions[-1] = Action("submit_answer", {"answer": found})
    verdict = tracer.filters.judge(wrong_answer)
    assert (verdict.filter, verdict.reason) == ("domain", "the gold answer does not open the door")
    twin = tracer.build(0, 0)
    assert tracer.filters.judge(twin).filter == "duplicate"  # the same room again


# -- depth as value-propagation hops (issue 24 item 4) --------------------------------------------------

def _step(sid: str, tool: str, kind: str, needs: list[str]) -> dict[str, Any]:
    return {"step_id": sid, "tool": tool, "kind": kind, "needs": needs}


def _toy(*steps: dict[str, Any]) -> Any:
    return rooms.BuiltRoom({"room_id": "toy"}, {}, {f"toy/{s['step_id']}": s for s in steps})


def test_depth_grows_only_where_a_step_consumes_a_found_value() -> None:
    # search a box, search what was in it, examine the item found there, submit what it says: four calls,
    # one value handed on (to the panel), so two hops; the old measure (calls on the chain) said four.
    nested = _toy(_step("S1", "search", "object", []), _step("S2", "search", "object", ["S1"]),
                  _step("S3", "examine", "number", ["S2"]), _step("S4", "submit_answer", "answer", ["S3"]))
    assert longest_chain(nested) == 2
    assert chain_composition(nested) == {"hops": 2, "calls": 4, "reveals": 2}
    # examine, look the value up, compute with it, open a lock with the result, examine what the lock held,
    # submit: every call but the last examine consumes a value another produced.
    handed = _toy(_step("S1", "examine", "word", []), _step("S2", "lookup", "number", ["S1"]),
                  _step("S3", "compute", "number", ["S2"]), _step("S4", "open_lock", "object", ["S3"]),
                  _step("S5", "examine", "number", ["S4"]), _step("S6", "submit_answer", "answer", ["S5"]))
    assert longest_chain(handed) == 5
    assert chain_composition(handed) == {"hops": 5, "calls": 6, "reveals": 1}
    assert rooms.hop_depth([]) == 1 and rooms.hop_depth([(3, "object"), (2, "number")]) == 3
    assert rooms.hop_depth([(3, "object"), (3, "word")]) == 4


@pytest.mark.parametrize("tier", rooms.TIERS)
def test_built_rooms_are_exactly_their_tier_in_hops_with_stored_depths_agreeing(tier: int) -> None:
    for index in range(1, 9):
        room = rooms.build_room(41, tier, index)
        rooms.check_room(room)
        steps = {s["step_id"]: s for s in room.steps.values()}
        for s in steps.values():  # each stored depth is the hop depth of its needs
            assert s["depth"] == rooms.hop_depth([(steps[n]["depth"], steps[n]["kind"]) for n in s["needs"]])
        assert longest_chain(room) == tier == max(s["depth"] for s in steps.values())
        parts = chain_composition(room)
        assert parts["hops"] == tier and parts["calls"] == tier + parts["reveals"]
        assert inputs_unexplained(room) == []


def test_generate_json_reports_the_composition_of_each_tier(tmp_path: Path, capsys: Any) -> None:
    summary, tasks = _generate(tmp_path, capsys, "--depth", "5-10", "--n", "6", "--seed", "12")
    comp = summary["composition"]
    assert comp["measure"] == "value-propagation hops"
    assert {k for k in comp if k != "measure"} == {"5", "10"}
    for tier in ("5", "10"):
        row = comp[tier]
        assert row["rooms"] == summary["distribution"]["depth"][tier] and row["hops"] == [int(tier)]
        assert row["chain_calls_per_room"] > int(tier) and 0 < row["chain_calls_adding_no_hop"] < 1
        assert row["steps_per_room"] >= row["chain_calls_per_room"]


# -- the shipped set -----------------------------------------------------------------------------------

def test_the_shipped_set_is_270_rooms_in_five_tiers(db: Any) -> None:
    tasks = SHIPPED.tasks
    assert len(tasks) == 270 and DOMAIN.default_task_set == "test"
    assert Counter(t.difficulty for t in tasks) == {tier: 54 for tier in rooms.TIERS}
    assert len(db.tables["rooms"]) == 270
    prints = set()
    for task in tasks:
        room = _room(db, task)
        assert task.id == room.room_id and task.actions == gold_actions(room)
        assert task.difficulty == room.room["difficulty"] == longest_chain(room)  # in value-propagation hops
        assert chain_composition(room)["hops"] == task.difficulty
        prints.add(room.fingerprint())
    assert len(prints) == 270  # no two rooms hold the same puzzle
    assert SHIPPED.provenance["depth"] == "5-25" and SHIPPED.provenance["emotions"] == "none"


def test_every_shipped_room_is_solved_by_the_oracle_in_batch(tmp_path: Path, capsys: Any) -> None:
    """`tauplay run --domain escape`: the default task set (all 270 rooms), oracle agent and narrator."""
    code = main(["run", "--domain", "escape", "--concurrency", "4", "--db", str(tmp_path / "s.db"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    sessions = report["sessions"]
    assert len(sessions) == 270 and all(s["reward"] == 1.0 and s["reason"] == "user_stop" for s in sessions)
    assert all(s["tool_errors"] == 0 for s in sessions)
    tiers = {r["name"]: r for r in report["summary"] if r["group"] == "difficulty"}
    assert list(tiers) == [str(t) for t in rooms.TIERS]
    calls = [tiers[str(t)]["mean_tool_calls"] for t in rooms.TIERS]
    for tier in rooms.TIERS:
        row = tiers[str(tier)]
        assert (row["sessions"], row["success"], row["mean_tool_errors"]) == (54, 1.0, 0.0)
        assert row["mean_seconds"] > 0 and row["mean_steps"] == pytest.approx(row["mean_tool_calls"] + 3)
    assert calls == sorted(calls) and calls[0] > 5  # deeper rooms take more calls


# -- tools -----------------------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == {"calculate", "think", "look_around"}
    assert {t.name for t in DOMAIN.write_tools} == {
        "enter_room", "examine", "search", "open_lock", "combine", "compute", "convert_units", "date_part",
        "add_days", "decode", "letter_sum", "lookup", "submit_answer"}
    # a room has no one to hand over to: the narrator ends it once the panel has an answer
    assert [t.name for t in DOMAIN.tools if t.terminal] == []


def _entered(db: Any, task: Any) -> Environment:
    env = Environment(DOMAIN, db)
    assert not env.call("enter_room", {"room_id": task.known_info["room_id"]}).error
    return env


def _shipped(tier: int, want: str | None = None) -> Any:
    """A shipped room of this tier, one whose gold calls use the tool `want` when asked."""
    return next(t for t in SHIPPED.tasks if t.difficulty == tier and (want is None or any(
        a.name == want for a in t.actions)))


def test_nothing_works_outside_a_room_and_a_session_plays_one_room(db: Any) -> None:
    env = Environment(DOMAIN, db)
    for name, args in (("look_around", {}), ("search", {"object_id": "desk"}), ("submit_answer", {"answer": "1"})):
        result = env.call(name, args)
        assert result.error and "not in a room yet" in result.output
    assert "not a room id" in env.call("enter_room", {"room_id": "the attic"}).output
    first, second = SHIPPED.tasks[0], SHIPPED.tasks[1]
    assert not env.call("enter_room", {"room_id": first.id}).error
    assert "one room" in env.call("enter_room", {"room_id": second.id}).output


def test_devices_only_take_findings_and_only_clued_calls_reveal(db: Any) -> None:
    task = _shipped(10, "compute")
    index = next(i for i, a in enumerate(task.actions) if a.name == "compute")
    env = Environment(DOMAIN, db)
    for action in task.actions[:index]:
        assert not env.call(action.name, action.kwargs).error
    args = task.actions[index].kwargs
    # the right numbers worked out elsewhere are refused: a + b is nothing the room has shown
    start = env.hash
    refused = env.call("compute", {"operation": "add", "a": args["a"] + args["b"], "b": args["a"]})
    assert refused.error and "not among your findings" in refused.output and env.hash == start
    # both inputs found, but an operation no clue asks for: an answer, and nothing revealed
    other = "modulo" if args["operation"] != "modulo" else "add"
    unclued = env.call("compute", {"operation": other, "a": args["a"], "b": args["b"]})
    assert not unclued.error and "fits no clue" in unclued.output and not unclued.changed
    good = env.call("compute", args)
    assert not good.error and "You note value" in good.output and good.changed
    again = env.call("compute", args)
    assert "already" in again.output and not again.changed


def test_hidden_objects_wrong_codes_and_one_answer(db: Any) -> None:
    from tauplay_domains.escape.tools import findings

    task = _shipped(15, "open_lock")
    room = _room(db, task)
    env = _entered(db, task)
    hidden = next(o for o in room.objects.values() if not o["found"])
    assert "not in sight" not in hidden["description"]
    assert "no '" in env.call("examine", {"object_id": hidden["object_id"]}).output  # not in sight yet
    assert hidden["name"] not in env.call("look_around").output
    last_lock = max(i for i, a in enumerate(task.actions) if a.name == "open_lock")
    for action in task.actions[1:last_lock]:
        assert not env.call(action.name, action.kwargs).error
    lock = task.actions[last_lock].kwargs
    others = [v for v in findings(env.state, room.room_id) if v != lock["code"].upper()]
    assert others, "the tier-15 room has found more than the code by its last lock"
    start = env.hash
    shut = env.call("open_lock", {**lock, "code": others[0]})
    assert shut.error and "stays shut" in shut.output and env.hash == start
    unseen = env.call("open_lock", {**lock, "code": "NOT A FINDING"})
    assert unseen.error and "not among your findings" in unseen.output
    assert "clicks open" in env.call("open_lock", lock).output
    for action in task.actions[last_lock + 1:-1]:
        assert not env.call(action.name, action.kwargs).error
    answer = task.actions[-1].kwargs["answer"]
    wrong = next(v for v in findings(env.state, room.room_id) if v != str(answer).upper())
    given = env.call("submit_answer", {"answer": wrong})
    assert not given.error and "not the answer" in given.output
    assert env.state.get("submissions", room.room_id) == {"room_id": room.room_id, "answer": wrong, "correct": False}
    assert "one try" in env.call("submit_answer", {"answer": answer}).output


def test_the_ciphers_and_conversions_are_real_functions() -> None:
    from tauplay_domains.escape import puzzles

    assert puzzles.decode("KHOOR", "caesar", "3") == "HELLO" and puzzles.decode("KHOOR", "caesar", "29") == "HELLO"
    assert puzzles.decode("RIJVS", "vigenere", "KEY") == "HELLO"
    assert puzzles.decode("SVOOL", "atbash") == "HELLO" and puzzles.decode("OLLEH", "reverse") == "HELLO"
    assert puzzles.decode("8-5-12-12-15", "a1z26") == "HELLO"
    assert puzzles.decode(".... . .-.. .-.. ---", "morse") == "HELLO"
    for method, key in (("caesar", "7"), ("vigenere", "LAMP"), ("atbash", None), ("a1z26", None), ("morse", None)):
        assert puzzles.decode(puzzles.encode("LANTERN", method, key), method, key) == "LANTERN"
    assert puzzles.letter_sum("cab") == 6
    assert puzzles.convert(3, "miles", "yards") == 5280 and puzzles.convert(212, "fahrenheit", "celsius") == 100
    assert puzzles.convert(2, "stone", "ounces") == 448 and puzzles.convert(90, "minutes", "hours") == 1.5
    assert puzzles.add_days("2024-02-27", 3) == "2024-03-01" and puzzles.date_part("2024-03-01", "weekday") == "FRIDAY"
    assert puzzles.date_part("2024-03-01", "day_of_year") == 61
    assert puzzles.compute("modulo", 17, 5) == 2 and puzzles.compute("divide", 7, 2) == 3.5
    with pytest.raises(puzzles.PuzzleError):
        puzzles.compute("divide", 1, 0)
    with pytest.raises(puzzles.PuzzleError):
        puzzles.convert(1, "miles", "hours")


# -- the narrator, the graph of what is discovered, the failure labels -------------------------------------

async def test_the_narrator_opens_ends_on_the_answer_and_calls_time(tmp_path: Path, db: Any) -> None:
    from tauplay.sim.human import HumanAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import SessionSetup, run_session
    from tauplay.store import SessionStore

    task = _shipped(5)
    store = SessionStore(str(tmp_path / "s.db"))
    try:
        agent = HumanAgent()
        for action in task.actions:  # the whole room in one go; then the panel has its answer
            agent.call_tool(action.name, action.kwargs)
        sid, out = await run_session(store, SessionSetup(DOMAIN, task, db), agent, ScriptedUser())
        events = store.events(sid)
        said = [e.data["content"] for e in events if e.kind == "message" and e.role == "user"]
        assert task.id in said[0] and task.goal in said[0]
        assert said[-1].endswith("###STOP###") and "You are out" in said[-1]
        assert (out.reason, out.value) == ("user_stop", 1.0)
        # after the submission the narrator spoke at once: the agent was not asked again
        assert [e.kind for e in events[-3:]] == ["tool_result", "message", "terminated"]

        from tauplay_domains.escape.narrator import PATIENCE

        idle = HumanAgent()
        for _ in range(PATIENCE + 1):  # the narrator nudges PATIENCE times, then calls time
            idle.say("Hello? Is anyone there?")
        _, out = await run_session(store, SessionSetup(DOMAIN, task, db), idle, ScriptedUser())
        assert (out.reason, out.value) == ("user_stop", 0.0)
        assert "time in the room is up" in out.events[-2].data["content"]
        nudges = [e.data["content"] for e in out.events if e.kind == "message" and e.data.get("intent") == "nudge"]
        assert len(nudges) == PATIENCE and all(task.id in n for n in nudges)  # still at the door: named again
    finally:
        store.close()


def test_only_discovered_steps_are_in_the_graph_until_the_end(db: Any) -> None:
    task = _shipped(15)
    room = _room(db, task)
    env = Environment(DOMAIN, db)
    assert room_progress(env.state, task, reveal=False) == []
    for action in task.actions:
        env.call(action.name, action.kwargs)
        nodes = {n.id: n for n in room_progress(env.state, task, reveal=False)}
        done = {s["step_id"] for s in room.steps.values() if env.state.get("steps", s["id"])["done"]}
        for s in room.steps.values():
            clue = s["hint_after"] is None or s["hint_after"] in done
            if s["step_id"] in done:
                assert nodes[s["step_id"]].status == "done"
            elif clue and s["tool"] != "submit_answer":
                assert nodes[s["step_id"]].status == "known" and nodes[s["step_id"]].detail == s["hint"]
            elif not clue:
                assert s["step_id"] not in nodes  # hidden: not listed, its value and clue unseen
        text = " ".join(f"{n.label} {n.detail} {' '.join(n.needs)}" for n in nodes.values())
        for s in room.steps.values():
            if s["step_id"] not in nodes:
                assert s["hint"] not in text and (s["value"] is None or f"= {s['value']}" not in text)
                assert not re.search(rf"\b{s['step_id']}\b", text)
    everything = room_progress(env.state, task, reveal=True)
    assert [n.id for n in everything] == [s["step_id"] for s in room.steps.values()]
    assert [n.gold_index for n in everything] == list(range(len(everything)))
    assert all(n.status == "done" for n in everything)


def test_failure_labels_come_from_what_the_tools_answered(db: Any) -> None:
    assert set(DOMAIN.fault_labels) == {"Lost State", "Ignored Clue", "Dropped Intermediate Result",
                                        "Wrong Final Answer"}
    from tauplay.core.vocabulary import FAULT_CATEGORIES

    assert not set(DOMAIN.fault_labels) & set(FAULT_CATEGORIES)  # beside the taxonomy, not in it
    task = _shipped(10, "compute")
    env = Environment(DOMAIN, db)
    calls = [("examine", {"object_id": "desk"})]  # before entering
    i = next(i for i, a in enumerate(task.actions) if a.name == "compute")
    calls += [(a.name, a.kwargs) for a in task.actions[:i]]
    args = task.actions[i].kwargs
    calls += [("compute", {**args, "a": 123456789}), ("compute", {**args, "operation": "subtract" if
                                                                    args["operation"] != "subtract" else "add"})]
    results = [env.call(name, kwargs) for name, kwargs in calls]
    found = faults.suggest([(c[0], c[1], r.output, r.error) for c, r in zip(calls, results, strict=True)])
    assert [(s.category, s.call_index) for s in found] == [("Lost State", 0), ("Dropped Intermediate Result",
                                                                               len(calls) - 2),
                                                           ("Ignored Clue", len(calls) - 1)]


# -- an LLM agent over HTTP, per tier ---------------------------------------------------------------------

def test_llm_agent_runs_rooms_and_results_come_per_tier(llm_server: Any, tmp_path: Path, capsys: Any,
                                                        db: Any) -> None:
    picked = [min((t for t in SHIPPED.tasks if t.difficulty == tier), key=lambda t: len(t.actions))
              for tier in rooms.TIERS]  # the shortest room of each tier: fewer model calls
    wrong = picked[-1].id  # on the deepest room the model gives an earlier finding to the panel
    gold = {t.id: t.actions for t in picked}

    def play(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        assert "escape room" in messages[0]["content"]  # the domain's own preamble, then the policy
        opening = next(m["content"] for m in messages if m["role"] == "user")
        room = re.search(r"\bs\d+-d\d{2}-\d{3}\b", opening)[0]
        done = sum(1 for m in messages if m["role"] == "tool")
        action = gold[room][done]
        kwargs = dict(action.kwargs)
        if room == wrong and action.name == "submit_answer":  # a finding, but not the answer
            kwargs["answer"] = next(s["value"] for s in room_of(db, room).steps.values()
                                    if s["value"] is not None and s["value"] != kwargs["answer"])
        call = {"id": f"call_{done}", "type": "function",
                "function": {"name": action.name, "arguments": json.dumps(kwargs)}}
        return Reply(tool_calls=[call])

    llm_server.queue("agent").fallback = Reply(builder=play)
    code = main(["run", "--domain", "escape", "--task-ids", *gold, "--agent-model", "openai/agent",
                 "--agent-api-base", llm_server.url, "--db", str(tmp_path / "s.db"), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["agent"]["kind"] == "llm" and report["user"] == {"kind": "scripted"}
    tiers = {r["name"]: r for r in report["summary"] if r["group"] == "difficulty"}
    assert list(tiers) == ["5", "10", "15", "20", "25"]
    assert [tiers[str(t)]["success"] for t in rooms.TIERS] == [1.0, 1.0, 1.0, 1.0, 0.0]
    for task in picked:
        row = tiers[str(task.difficulty)]
        assert row["mean_tool_calls"] == len(task.actions) and row["mean_tool_errors"] == 0
        assert row["mean_steps"] == len(task.actions) + 3  # + the greeting, the scene, the narrator's end
        assert 0 < row["mean_seconds"] < 60  # time per tier: from the first saved event to the last
    assert len(llm_server.requests_for("agent")) == sum(len(a) for a in gold.values())
    from tauplay.store import SessionStore

    with SessionStore(str(tmp_path / "s.db")) as store:
        saved = store.list_sessions(batch_id=report["batch_id"])
        assert sorted(s.reward for s in saved) == [0.0, 1.0, 1.0, 1.0, 1.0]


async def test_a_session_cut_right_after_the_answer_resumes_with_the_narrator(db: Any) -> None:
    """The answer hands the turn to the narrator (the tool `ends_turn`), in a live session and after a
    resume from saved events alike: the agent is not asked again."""
    from tauplay.sim.oracle import OracleAgent
    from tauplay.sim.scripted_user import ScriptedUser
    from tauplay.sim.session import replay_into

    task = _shipped(5)
    full = await _orchestrator(task, db, OracleAgent(), ScriptedUser()).run()
    cut = next(i for i, e in enumerate(full.events) if e.kind == "tool_result" and e.data["name"] == "submit_answer")
    again = _orchestrator(task, db, OracleAgent(), ScriptedUser(), history=full.events[:cut + 1])
    replay_into(again.env, full.events[:cut + 1])
    out = await again.run()
    after = out.events[cut + 1:]
    assert [(e.kind, e.role) for e in after] == [("message", "user"), ("terminated", "system")]
    assert (out.reason, out.value) == ("user_stop", 1.0)


async def test_another_valid_order_and_equivalent_calls_are_no_fault(db: Any) -> None:
    """A person may take the steps in any order the room allows, write a sum's operands either way round
    and the answer in small letters: the reward is 1 and alignment suggests no fault (the domain's
    call_key and gold_order_matters); a wrong answer still shows as a missed gold write."""
    from tauplay.sim.human import HumanAgent
    from tauplay.sim.scripted_user import ScriptedUser

    task = next(t for t in SHIPPED.tasks if t.difficulty == 15 and any(
        a.name == "compute" and a.kwargs["operation"] in ("add", "multiply") for a in t.actions)
        and t.actions[-1].kwargs["answer"].isalpha())
    room = _room(db, task)
    steps = list(room.steps.values())
    order: list[int] = []
    placed: set[str] = set()
    while len(order) < len(steps):  # the last step whose needs are met, each time: not the gold order
        ready = [i for i, s in enumerate(steps) if i not in order and all(n in placed for n in s["needs"])]
        order.append(ready[-1])
        placed.add(steps[ready[-1]]["step_id"])
    assert order != sorted(order)
    agent = HumanAgent()
    agent.call_tool("enter_room", {"room_id": room.room_id.upper()})
    for i in order:
        args = dict(task.actions[1 + i].kwargs)
        if task.actions[1 + i].name == "compute" and args["operation"] in ("add", "multiply"):
            args["a"], args["b"] = args["b"], args["a"]
        if task.actions[1 + i].name == "submit_answer":
            args["answer"] = args["answer"].lower()
        agent.call_tool(task.actions[1 + i].name, args)
    out = await _orchestrator(task, db, agent, ScriptedUser()).run()
    assert (out.reason, out.value, out.faults) == ("user_stop", 1.0, [])
