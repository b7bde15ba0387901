"""Injected parameter errors (AgentProp-style), offline on the published airline tasks: what each kind does to
the oracle, that every injection is saved with its original and injected arguments, that a seed fixes them
whatever the concurrency, that a resumed session neither loses nor repeats its injection; and the pure parts
(the four kinds, domain alternatives, the generic fallback, the interceptor)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.db import Database
from tauplay.core.domain import get_domain
from tauplay.core.environment import Environment
from tauplay.core.events import InjectionData, SessionStartedData, ToolCallData, ToolResultData, of_kind
from tauplay.core.injection import (
    SessionView,
    candidates,
    change_text,
    corrupt,
    generic_alternatives,
    leaves,
    parse_path,
    path_text,
)
from tauplay.core.interceptor import Interceptor
from tauplay.core.labels import SessionBundle
from tauplay.core.schema import validate
from tauplay.core.vocabulary import INJECTION_KINDS
from tauplay.store import SessionStore
from tests.conftest import taubench_dir

AIRLINE = get_domain("airline")
RETAIL = get_domain("retail")


def run_batch(db: Path, *extra: str, tasks: tuple[str, ...] = ()) -> dict[str, Any]:
    """`tauplay run --json` on the published airline tasks (all 70, or `tasks`), its report."""
    import contextlib
    import io

    data = taubench_dir("airline")
    argv = ["run", "--domain", "airline", "--data", str(data), "--tasks", str(data / "tasks_test.json"), "--allow-invalid",
            "--db", str(db), "--json", *extra]
    if tasks:
        argv += ["--task-ids", *tasks]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(argv)
    assert code == 0, buffer.getvalue()
    return json.loads(buffer.getvalue())


def injected_calls(store: SessionStore, batch: str) -> list[tuple[Any, InjectionData, ToolCallData, ToolResultData]]:
    """(session, injection, the call that ran, its result) for every injection of a batch."""
    out = []
    for record in store.list_sessions(batch_id=batch):
        events = store.events(record.id)
        calls = {c.call_id: c for _, c in of_kind(events, ToolCallData)}
        results = {r.call_id: r for _, r in of_kind(events, ToolResultData)}
        for _, injection in of_kind(events, InjectionData):
            out.append((record, injection, calls[injection.call_id], results[injection.call_id]))
    return out


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One database: the 70 published airline tasks run by the oracle without injection, then once per kind."""
    db = tmp_path_factory.mktemp("study") / "s.db"
    batches = {"none": run_batch(db)}
    for kind in INJECTION_KINDS:
        batches[kind] = run_batch(db, "--inject", kind, "--seed", "11", "--concurrency", "4")
    return {"db": db, "batches": batches}


def mean_reward(report: dict[str, Any]) -> float:
    return next(r["mean_reward"] for r in report["summary"] if r["group"] == "domain")


# -- the published airline tasks, offline -----------------------------------------------------------------

def test_semantic_wrong_lowers_the_oracles_reward_by_changing_the_wrong_record(study: dict[str, Any]) -> None:
    assert mean_reward(study["batches"]["none"]) == 1.0  # the oracle solves every published task uninjected
    report = study["batches"]["semantic_wrong"]
    assert mean_reward(report) < 0.3  # well below 1
    with SessionStore(str(study["db"])) as store:
        found = injected_calls(store, report["batch_id"])
        assert len(found) == 70  # every published task has a gold action with such an argument
        # writes that went through on the wrong value and left the end state off gold: the wrong record changed
        wrong_writes = [(rec, i) for rec, i, call, res in found
                        if AIRLINE.tool_map[call.name].is_write and not res.error and res.diff
                        and not rec.reward_info["db_match"]]
        assert len(wrong_writes) >= 20
        details = {i.detail for _, i, _, _ in found}
        assert "another reservation of the same user" in details and "another flight on the same route" in details
        for rec, injection in wrong_writes:
            changed = {c["key"] for c in next(r for _, r in of_kind(store.events(rec.id), ToolResultData)
                                                if r.call_id == injection.call_id).diff["changes"]}
            before, after = change_text(injection.original, injection.injected, injection.argument)
            if injection.argument == "reservation_id":  # the other reservation is the one that changed
                assert json.loads(after) in changed and json.loads(before) not in changed


def test_missing_required_calls_are_refused_by_the_tool(study: dict[str, Any]) -> None:
    with SessionStore(str(study["db"])) as store:
        found = injected_calls(store, study["batches"]["missing_required"]["batch_id"])
    assert len(found) == 70
    for _, injection, call, result in found:
        path = parse_path(injection.argument)
        assert result.error and result.diff is None and result.refused_by is None  # the tool's own schema check
        assert "missing required argument" in result.output or "is required" in result.output, result.output
        assert path[-1] not in _at(call.arguments, path[:-1])  # the call ran without it


def _at(arguments: dict[str, Any], path: tuple[Any, ...]) -> Any:
    for part in path:
        arguments = arguments[part]
    return arguments


def test_every_injection_is_saved_with_original_and_injected_arguments(study: dict[str, Any]) -> None:
    with SessionStore(str(study["db"])) as store:
        for kind in INJECTION_KINDS:
            found = injected_calls(store, study["batches"][kind]["batch_id"])
            assert len(found) >= 69, kind  # out_of_range: one task's gold has no enum, number or date
            for record, injection, call, _ in found:
                assert injection.kind == kind and injection.tool == call.name and injection.call_id == call.call_id
                assert injection.original != injection.injected, (kind, record.task_id)
                assert call.arguments == injection.injected  # the call ran (and is shown) with the injected value
                gold = [a.kwargs for a in _task(record).actions if a.name == call.name]
                assert injection.original in gold  # the oracle sent the gold arguments
                problems = validate(injection.injected, AIRLINE.tool_map[call.name].parameters)
                # the schema refuses a wrong type, a missing argument and a value outside an enum; not the others
                refused = kind in ("type_mismatch", "missing_required") or "not one of" in injection.detail
                assert bool(problems) == refused, (kind, problems)
            started = [s for r, *_ in found[:1] for _, s in of_kind(store.events(r.id), SessionStartedData)]
            assert started[0].injection == {"kind": kind, "at": None, "rate": None, "seed": 11, "style": "plausible"}
        # the uninjected batch has no injection event at all
        assert injected_calls(store, study["batches"]["none"]["batch_id"]) == []


def _task(record: Any) -> Any:
    from tauplay.core.tasks import task_from_json

    return task_from_json(record.task, Path("t"), 0, "airline")


def _signature(db: Path, batch: str) -> list[tuple[Any, ...]]:
    with SessionStore(str(db)) as store:
        return sorted((rec.task_id, rec.trial, i.tool, i.argument, json.dumps(i.injected, sort_keys=True), i.detail)
                      for rec, i, _, _ in injected_calls(store, batch))


def test_the_same_seed_gives_the_same_injections(study: dict[str, Any], tmp_path: Path) -> None:
    first = _signature(study["db"], study["batches"]["semantic_wrong"]["batch_id"])
    again = run_batch(tmp_path / "again.db", "--inject", "semantic_wrong", "--seed", "11",
                      "--concurrency", "1")  # one at a time: another finishing order
    assert _signature(tmp_path / "again.db", again["batch_id"]) == first
    other = run_batch(tmp_path / "other.db", "--inject", "semantic_wrong", "--seed", "12")
    assert _signature(tmp_path / "other.db", other["batch_id"]) != first


def test_inject_at_and_rate(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    at = run_batch(db, "--inject", "type_mismatch", "--inject-at", "2", "--seed", "1", tasks=("3", "60"))
    rate = run_batch(db, "--inject", "type_mismatch", "--inject-rate", "1", "--seed", "1", tasks=("3",))
    with SessionStore(str(db)) as store:
        for record, injection, _, _ in injected_calls(store, at["batch_id"]):
            calls = [c.call_id for _, c in of_kind(store.events(record.id), ToolCallData)]
            assert calls.index(injection.call_id) == 1 and injection.source == "at"  # the 2nd call
        every = injected_calls(store, rate["batch_id"])
        (record,) = {r.id: r for r, *_ in every}.values()
        assert len(every) == len(list(of_kind(store.events(record.id), ToolCallData)))  # rate 1: each call
        assert {i.source for _, i, _, _ in every} == {"rate"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--inject", "nonsense"], "invalid choice"),
    (["--inject-at", "2"], "--inject-at / --inject-rate need --inject KIND"),
    (["--inject", "type_mismatch", "--inject-rate", "1.5"], "--inject-rate must be in (0, 1]"),
    (["--inject", "type_mismatch", "--inject-at", "0"], "counts tool calls from 1"),
    (["--inject", "type_mismatch", "--inject-at", "1", "--inject-rate", "0.5"], "exclude each other"),
])
def test_bad_injection_flags_are_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path,
                                                     capsys: Any) -> None:
    with pytest.raises(SystemExit) if message == "invalid choice" else _no_raise():
        code = main(["run", "--domain", "airline", "--db", str(tmp_path / "s.db"), *argv])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


async def test_a_resumed_session_keeps_its_injection_and_does_not_repeat_it(study: dict[str, Any],
                                                                           tmp_path: Path) -> None:
    """Cut an injected session right after its injected call's result and resume it: the saved injected call
    replays (the state hashes match) and no second injection is made."""
    from tauplay.sim.session import resume_session

    with SessionStore(str(study["db"])) as store:
        record, injection, _, _ = next(x for x in injected_calls(store, study["batches"]["semantic_wrong"]["batch_id"])
                                       if x[3].diff)  # a write that went through on the wrong value
        events = store.events(record.id)
    cut = next(e.seq for e in events if e.kind == "tool_result" and e.payload.call_id == injection.call_id)
    kept = [e for e in events if e.seq <= cut]
    db = tmp_path / "resume.db"
    with SessionStore(str(db)) as store:
        store.import_sessions([SessionBundle(record.domain, record.task_id, record.task, kept, record.agent,
                                             record.user, record.emotion, status="running",
                                             data_source=record.data_source, seed=record.seed, trial=record.trial,
                                             batch_id="cut", id="c" * 32)])
        outcome = await resume_session(store, "c" * 32)
        again = store.events("c" * 32)
    assert [i for _, i in of_kind(again, InjectionData)] == [injection]
    assert outcome.reward.final_hash == record.reward_info["final_hash"]  # the same end state as uncut
    assert outcome.value == record.reward


# -- the four kinds, on their own -------------------------------------------------------------------------

BOOK = AIRLINE.tool_map["book_reservation"]
BOOK_ARGS = {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way",
             "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
             "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
             "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 100}], "total_baggages": 1,
             "nonfree_baggages": 0, "insurance": "no"}


@pytest.fixture(scope="module")
def airline_db() -> Database:
    return AIRLINE.database(taubench_dir("airline"))


def view(db: Database, *outputs: str, said: tuple[str, ...] = ()) -> SessionView:
    return SessionView(Environment(AIRLINE, db).state, outputs, said)


def test_paths_and_leaves() -> None:
    paths = [path_text(leaf.path) for leaf in leaves(BOOK_ARGS, BOOK.parameters)]
    assert "flights[0].flight_number" in paths and "payment_methods[0].amount" in paths and "cabin" in paths
    assert parse_path("flights[0].date") == ("flights", 0, "date")
    assert all(parse_path(p) == leaf.path for p, leaf in zip(paths, leaves(BOOK_ARGS, BOOK.parameters),
                                                             strict=True))


@pytest.mark.parametrize("seed", range(6))
def test_each_kind_breaks_what_it_says(seed: int, airline_db: Database) -> None:
    v = view(airline_db)
    for kind in ("type_mismatch", "out_of_range", "missing_required"):
        found = corrupt(kind, BOOK, BOOK_ARGS, v, AIRLINE, random.Random(seed))
        assert found is not None and found.arguments != BOOK_ARGS and BOOK_ARGS["flights"][0]["date"] == "2024-05-20"
        problems = validate(found.arguments, BOOK.parameters)
        if kind == "type_mismatch":
            assert any("must be" in p for p in problems), problems
        elif kind == "missing_required":
            assert any("required" in p for p in problems), problems
        else:  # out of an enum (the schema refuses it), or below zero / not a date (the schema cannot tell)
            before, after = change_text(BOOK_ARGS, found.arguments, found.argument)
            assert bool(problems) == ("not one of" in found.detail), (found, problems)
            assert after != before
    same = [corrupt("semantic_wrong", BOOK, BOOK_ARGS, v, AIRLINE, random.Random(seed)) for _ in range(2)]
    assert same[0] == same[1] and same[0] is not None  # the same generator state, the same corruption
    assert validate(same[0].arguments, BOOK.parameters) == []  # right type and range


def test_semantic_alternatives_come_from_the_domains_data(airline_db: Database) -> None:
    v = view(airline_db)
    reservation = airline_db.tables["reservations"]["VRWM8U"]
    user = airline_db.tables["users"][reservation["user_id"]]
    cancel = AIRLINE.tool_map["cancel_reservation"]
    found = corrupt("semantic_wrong", cancel, {"reservation_id": "VRWM8U"}, v, AIRLINE, random.Random(0))
    assert found is not None and found.detail == "another reservation of the same user"
    assert found.arguments["reservation_id"] in set(user["reservations"]) - {"VRWM8U"}
    # a flight: another on the same route flying that day
    segment = {"flight_number": "HAT136", "date": "2024-05-20"}
    flight = airline_db.tables["flights"]["HAT136"]
    update = AIRLINE.tool_map["update_reservation_flights"]
    args = {"reservation_id": "VRWM8U", "cabin": "economy", "flights": [segment], "payment_id": "x"}
    options = {str(c): c for c in candidates("semantic_wrong", update, args, v, AIRLINE)}
    assert "('flights', 0, 'flight_number')" in options
    for seed in range(20):
        got = corrupt("semantic_wrong", update, args, v, AIRLINE, random.Random(seed))
        assert got is not None
        if got.argument == "flights[0].flight_number":
            other = airline_db.tables["flights"][got.arguments["flights"][0]["flight_number"]]
            assert (other["origin"], other["destination"]) == (flight["origin"], flight["destination"])
            assert other["dates"]["2024-05-20"]["status"] == "available"


def test_retail_alternatives_another_variant_of_the_same_product() -> None:
    db = RETAIL.database(taubench_dir("retail"))
    state = Environment(RETAIL, db).state
    order_id, order = next((k, o) for k, o in db.tables["orders"].items() if o["status"] == "pending")
    item = order["items"][0]
    product = db.tables["products"][item["product_id"]]
    spec = RETAIL.tool_map["modify_pending_order_items"]
    new_item = next(v["item_id"] for v in product["variants"].values() if v["item_id"] != item["item_id"])
    args = {"order_id": order_id, "item_ids": [item["item_id"]], "new_item_ids": [new_item],
            "payment_method_id": order["payment_history"][0]["payment_method_id"]}
    hook = RETAIL.alternatives
    assert hook is not None
    from tauplay.core.injection import AlternativeQuery

    found = hook(AlternativeQuery(spec.name, ("new_item_ids", 0), new_item, args, SessionView(state)))
    assert found and all(d == "another variant of the same product" for _, d in found)
    assert {v for v, _ in found} <= {v["item_id"] for v in product["variants"].values()} - {new_item}


def test_the_generic_fallback_uses_values_the_session_has_seen(airline_db: Database) -> None:
    from tauplay.core.injection import Leaf

    seen = json.dumps({"reservations": ["AAA111", "BBB222"], "payment_methods": {"gift_card_1": {"id": "g"}}})
    v = view(airline_db, seen)
    leaf = Leaf(("thing_id",), "AAA111", {"type": "string"})
    got = generic_alternatives(leaf, v, AIRLINE, random.Random(0))
    assert got == []  # nothing named thing_id was seen, and no record has such a field
    leaf = Leaf(("reservation_id",), "AAA111", {"type": "string"})
    assert generic_alternatives(leaf, v, AIRLINE, random.Random(0))[0] == ("BBB222",
                                                                            "another reservation_id the session has seen")
    moved = generic_alternatives(Leaf(("date",), "2024-05-20", {"type": "string"}), v, AIRLINE, random.Random(0))
    assert all(d.startswith("the date moved") for _, d in moved) and "2024-05-20" not in [x for x, _ in moved]


# -- the interceptor ----------------------------------------------------------------------------------------

def test_the_interceptor_refuses_bad_schema_unknown_and_unseen_ids(airline_db: Database) -> None:
    check = Interceptor(AIRLINE).check
    details = AIRLINE.tool_map["get_reservation_details"]
    assert details.name == "get_reservation_details"
    v = view(airline_db, said=("My reservation is #vrwm8u, thanks",))
    assert check("get_reservation_details", {"reservation_id": "VRWM8U"}, v) is None  # said (case, '#' ignored)
    refusal = check("get_reservation_details", {"reservation_id": 12}, v)
    assert refusal and "must be a string" in refusal and refusal.startswith("refused by the interceptor")
    refusal = check("get_reservation_details", {}, v)
    assert refusal and "missing required argument 'reservation_id'" in refusal
    refusal = check("get_reservation_details", {"reservation_id": "ZZZ999"}, v)
    assert refusal and "names no reservation on record" in refusal
    other = next(k for k in airline_db.tables["reservations"] if k != "VRWM8U")
    refusal = check("get_reservation_details", {"reservation_id": other}, v)
    assert refusal and "has not come up in this conversation" in refusal
    # seen in a tool result: passes; nested ids are checked too
    v2 = view(airline_db, json.dumps(airline_db.tables["users"]["mia_li_3668"]),
              json.dumps([{"flight_number": "HAT136", "date": "2024-05-20"}]), said=("I am mia_li_3668",))
    assert check("get_user_details", {"user_id": "mia_li_3668"}, v2) is None
    args = dict(BOOK_ARGS, payment_methods=[{"payment_id": "credit_card_0000000", "amount": 100}])
    refusal = check("book_reservation", args, v2)
    assert refusal and "payment_methods[0].payment_id 'credit_card_0000000' has not come up" in refusal
    assert check("list_all_airports", {}, v2) is None
    assert "no tool 'fly'" in (check("fly", {}, v2) or "")


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "telehealth", "school", "basketball",
                                    "restaurant", "travel", "movie", "bank"])
def test_semantic_wrong_works_on_every_domain(domain: str, tmp_path: Path) -> None:
    """The starter tasks of every domain, oracle: each session is injected with a value of the right type and
    range (the domain's alternatives or the generic fallback) and the session ends normally."""
    import contextlib
    import io

    db = tmp_path / "s.db"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        # the database seed the starter tasks were built on (a task that cannot be scored is refused)
        seed = str(get_domain(domain).default_seed)
        assert main(["run", "--domain", domain, "--inject", "semantic_wrong", "--seed", seed, "--db", str(db),
                     "--json"]) == 0
    report = json.loads(buffer.getvalue())
    spec = get_domain(domain)
    with SessionStore(str(db)) as store:
        found = injected_calls(store, report["batch_id"])
        assert len({r.id for r, *_ in found}) >= 0.9 * len(report["sessions"])
        for _, injection, call, _ in found:
            assert injection.original != injection.injected
            assert validate(injection.injected, spec.tool_map[call.name].parameters) == []
    assert all(s["reason"] is not None for s in report["sessions"])


def test_inject_seed_seeds_the_injections_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--seed also picks the generated database, where the starter tasks may not exist: the refusal says so and
    --inject-seed seeds the injections without moving the database."""
    db = tmp_path / "s.db"
    other = get_domain("airline").default_seed + 1
    assert main(["run", "--domain", "airline", "--inject", "semantic_wrong", "--seed", str(other),
                 "--task-ids", "airline-starter-03-add-bag", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "cannot be scored" in err and f"--inject-seed {other} seeds the injections alone" in err
    assert not db.exists() or not SessionStore(str(db)).list_sessions()  # nothing saved
    assert main(["run", "--domain", "airline", "--inject", "semantic_wrong", "--inject-seed", str(other),
                 "--task-ids", "airline-starter-03-add-bag", "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions(batch_id=report["batch_id"])
        started = next(s for _, s in of_kind(store.events(record.id), SessionStartedData))
        assert started.injection is not None and started.injection["seed"] == other
        assert record.reward is not None  # scored: the default database, where the task exists
