"""The basketball domain: tool names and schemas, policy numbers, generator (sizes, integrity), starter
tasks, the effect of every write tool field by field, refused calls, the dependency graph and the Tracer
hints. The contract every domain meets (tool counts, descriptions, determinism, shipped sets that verify
and regenerate, oracle sessions, malformed calls) is checked in tests/test_domain_contract.py."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, get_type_hints

import pytest
from tauplay_domains.basketball import DOMAIN, league
from tauplay_domains.basketball.data_model import Club, Game, Player, Transaction, Venue
from tauplay_domains.common_dates import shift_days

from tauplay.core.db import Database
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import load_tasks
from tauplay.core.verify import verify_tasks
from tests.support.domains import assert_refused

READS = {"calculate", "think", "transfer_to_human_agents", "find_club_official", "find_player", "search_clubs",
         "get_club_details", "get_cap_sheet", "get_player_details", "list_available_players", "get_game_details",
         "list_club_games", "list_games_on_date", "get_venue_details", "check_venue_availability",
         "get_ticket_options", "get_conference_standings"}
WRITES = {"sign_player", "make_roster_move", "reschedule_game"}
Record = dict[str, Any]


@pytest.fixture(scope="module")
def db() -> Database:
    return DOMAIN.database()


def fresh(db: Database) -> Environment:
    return Environment(DOMAIN, db)


def ok(env: Environment, tool: str, **args: Any) -> Any:
    result = env.call(tool, args)
    assert not result.error, result.output
    return json.loads(result.output) if result.output[:1] in "[{" else result.output


def roster(db: Database, club_id: str) -> list[Record]:
    return [db.tables["players"][p] for p in db.tables["clubs"][club_id]["roster"]]


def active(db: Database, club_id: str) -> int:
    return sum(1 for p in roster(db, club_id) if p["roster_status"] == "active")


def payroll(db: Database, club_id: str) -> int:
    return sum(p["contract"]["annual_salary"] for p in roster(db, club_id))


def next_tid(db: Database) -> str:
    return f"T{max(int(t[1:]) for t in db.tables['transactions']) + 1:04d}"


def first_club(db: Database, where: Any) -> str:
    return next(c for c in sorted(db.tables["clubs"]) if where(c))


def free_agent(db: Database, max_salary: int, status: str = "healthy") -> Record:
    return next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "free_agent"
                and p["injury"]["status"] == status and p["asking_salary"] <= max_salary)


# -- tools and schemas ---------------------------------------------------------------------------------

def test_tool_names() -> None:
    assert {t.name for t in DOMAIN.read_tools} == READS
    assert {t.name for t in DOMAIN.write_tools} == WRITES


def test_schema_spot_checks() -> None:
    sign = DOMAIN.tool_map["sign_player"].parameters
    assert sign["required"] == ["club_id", "player_id", "annual_salary", "contract_years"]
    assert sign["properties"]["annual_salary"]["type"] == "integer"
    assert sign["properties"]["contract_years"]["type"] == "integer"
    move = DOMAIN.tool_map["make_roster_move"].parameters
    assert move["properties"]["move"]["enum"] == ["injured_reserve", "activate", "release"]
    assert DOMAIN.tool_map["reschedule_game"].required == ["game_id", "club_id", "new_date", "new_time", "venue_id"]
    available = DOMAIN.tool_map["list_available_players"].parameters
    assert available["required"] == [] and available["properties"]["position"]["enum"] == ["guard", "forward",
                                                                                            "center"]
    assert DOMAIN.tool_map["find_player"].required == ["first_name", "last_name", "date_of_birth"]
    assert DOMAIN.tool_map["list_club_games"].required == ["club_id"]


def test_policy_states_the_rules_the_code_uses() -> None:
    text = DOMAIN.policy
    for fact in (f"Today is {league.TODAY}", f"{league.SEASON_START} to {league.SEASON_END}",
                 f"${league.SALARY_CAP:,}", f"${league.MIN_SALARY:,}", f"${league.RESCHEDULE_FEE:,}",
                 f"{league.NOTICE_HOURS} hours", f"{league.IR_MIN_DAYS} days", league.TRANSFER_DEADLINE,
                 f"at most {league.MAX_ACTIVE} active players", f"at most {league.MAX_INJURED_RESERVE} players on injured",
                 f"fewer than {league.MIN_ACTIVE} active players", f"1 to {league.MAX_CONTRACT_YEARS} seasons",
                 "2025-02-23 at 12:00"):
        assert fact in text, fact
    # The worked buyout example in the policy is what the rule computes.
    assert "a $90,000 salary through 2025-26 costs $90,000" in text
    assert league.buyout(90_000, "2025-26") == 90_000
    assert shift_days(league.TODAY, league.NOTICE_HOURS // 24) == "2025-02-23"


# -- generator -----------------------------------------------------------------------------------------

def test_generator_sizes(db: Database) -> None:
    assert db.size() == {"clubs": 240, "games": 1468, "players": 1000, "transactions": len(db.tables["transactions"]),
                         "venues": 240}
    assert len(db.tables["transactions"]) > 100


@pytest.mark.parametrize(("table", "record_type"), [("players", Player), ("clubs", Club), ("games", Game),
                                                    ("venues", Venue), ("transactions", Transaction)])
def test_records_have_the_data_model_fields(db: Database, table: str, record_type: Any) -> None:
    fields = set(get_type_hints(record_type))
    key = next(s.key for s in DOMAIN.tables if s.name == table)
    for record_id, record in db.tables[table].items():
        assert set(record) == fields, (table, record_id)
        assert record[key] == record_id


def test_players_and_clubs_are_consistent(db: Database) -> None:
    players, clubs, venues = db.tables["players"], db.tables["clubs"], db.tables["venues"]
    on_rosters = Counter(p for c in clubs.values() for p in c["roster"])
    assert max(on_rosters.values()) == 1  # nobody on two rosters
    for club_id, club in clubs.items():
        assert club["home_venue_id"] in venues and club["conference"] in league.CONFERENCES
        team = roster(db, club_id)
        assert all(p["club_id"] == club_id for p in team)
        assert league.MIN_ACTIVE <= active(db, club_id) <= league.MAX_ACTIVE
        assert sum(p["roster_status"] == "injured_reserve" for p in team) <= league.MAX_INJURED_RESERVE
        assert payroll(db, club_id) <= league.SALARY_CAP
        numbers = [p["jersey_number"] for p in team]
        assert len(set(numbers)) == len(numbers)
        assert {o["role"] for o in club["officials"]} == {"general_manager", "head_coach"}
        assert club["budget"] > 0
    for player_id, player in players.items():
        if player["club_id"] is None:
            assert player["roster_status"] == "free_agent" and player["contract"] is None
            assert player["asking_salary"] >= league.MIN_SALARY and player["transfer_fee"] is None
            assert player["jersey_number"] is None
        else:
            assert player_id in clubs[player["club_id"]]["roster"] and player["asking_salary"] is None
            assert player["contract"]["annual_salary"] >= league.MIN_SALARY
            assert league.seasons_remaining(player["contract"]["end_season"]) in (1, 2, 3)
            assert player["contract"]["signed_on"] <= league.TODAY
        assert (player["ir_since"] is not None) == (player["roster_status"] == "injured_reserve")
        injury = player["injury"]
        assert (injury["expected_return"] is None) == (injury["status"] == "healthy")
    assert sum(p["roster_status"] == "free_agent" for p in players.values()) >= 40
    assert sum(p["transfer_fee"] is not None for p in players.values()) >= 20
    emails = [o["email"] for c in clubs.values() for o in c["officials"]]
    assert len(set(emails)) == len(emails)  # an email identifies one official
    people = [(p["first_name"], p["last_name"], p["date_of_birth"]) for p in players.values()]
    assert len(set(people)) == len(people)  # name + birth date identifies one player
    assert len({c["name"] for c in clubs.values()}) == len(clubs)


def test_schedule_is_consistent(db: Database) -> None:
    games, clubs, venues = db.tables["games"], db.tables["clubs"], db.tables["venues"]
    held: Counter[tuple[str, str]] = Counter()
    hosted: Counter[tuple[str, str]] = Counter()
    for g in games.values():
        home, away = clubs[g["home_club_id"]], clubs[g["away_club_id"]]
        assert home["club_id"] != away["club_id"] and home["conference"] == away["conference"]
        assert g["venue_id"] == home["home_venue_id"]
        assert league.SEASON_START <= g["date"] <= league.SEASON_END and re.fullmatch(r"\d\d:\d\d", g["time"])
        assert "12:00" <= g["time"] <= "21:00"
        assert set(g["tickets"]) == set(league.TICKET_TIERS)
        assert sum(t["seats_left"] for t in g["tickets"].values()) <= venues[g["venue_id"]]["capacity"]
        if g["status"] == "final":
            assert g["date"] < league.TODAY and g["home_score"] != g["away_score"]
            assert max(g["home_score"], g["away_score"]) <= 21
        else:
            assert g["home_score"] is None and g["away_score"] is None
        if g["status"] == "scheduled":
            assert g["date"] > league.TODAY
        if g["status"] in ("postponed", "cancelled"):
            assert g["status_note"] and g["date"] < league.TODAY
        if g["status"] in ("scheduled", "final"):
            held.update([(g["home_club_id"], g["date"]), (g["away_club_id"], g["date"])])
            hosted[(g["venue_id"], g["date"])] += 1
    assert max(held.values()) == 1 and max(hosted.values()) == 1
    statuses = Counter(g["status"] for g in games.values())
    assert set(statuses) == {"final", "scheduled", "postponed", "cancelled"}
    for venue_id, venue in venues.items():
        for day in venue["blocked_dates"]:
            assert day > league.TODAY and hosted[(venue_id, day)] == 0
    assert sum(1 for g in games.values() if g["rescheduled"]) >= 10


def test_transactions_point_at_real_records(db: Database) -> None:
    rows = list(db.tables["transactions"].values())
    assert [r["transaction_id"] for r in rows] == [f"T{i:04d}" for i in range(1, len(rows) + 1)]
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)
    for r in rows:
        assert r["club_id"] in db.tables["clubs"] and r["date"] <= league.TODAY
        assert (r["player_id"] in db.tables["players"]) if r["player_id"] else r["game_id"] in db.tables["games"]
    kinds = Counter(r["kind"] for r in rows)
    assert kinds["injured_reserve"] == sum(p["roster_status"] == "injured_reserve"
                                           for p in db.tables["players"].values())
    assert kinds["reschedule"] == sum(1 for g in db.tables["games"].values() if g["rescheduled"])


# -- starter tasks -------------------------------------------------------------------------------------

def test_starter_tasks_cover_the_domain(db: Database) -> None:
    tasks = load_tasks(DOMAIN.task_set_path(), "basketball").tasks
    assert len(tasks) >= 12
    assert all(re.fullmatch(r"basketball-starter-\d\d-[a-z0-9-]+", t.id) for t in tasks)
    report = verify_tasks(DOMAIN, db, tasks)
    used = {a.name for t in tasks for a in t.actions}
    assert WRITES <= used and "transfer_to_human_agents" in used
    writes = [t for t in tasks if any(a.name in WRITES for a in t.actions)]
    reads_only = [t for t in tasks if t not in writes]
    changed = {r.task_id: r.records_changed for r in report.replays}
    assert all(changed[t.id] >= 2 for t in writes)  # the record itself and the register entry
    assert all(changed[t.id] == 0 for t in reads_only)
    assert all(t.outputs for t in reads_only if t.actions[-1].name != "transfer_to_human_agents")
    assert any(sum(a.name in WRITES for a in t.actions) >= 2 for t in tasks)  # multi-step
    emotions = [t.emotion for t in tasks]
    assert all(e is not None and e.trigger for e in emotions)
    assert len({e.family for e in emotions if e}) == 5 and len({e.leaf for e in emotions if e}) >= 10
    for dim in ("politeness", "urgency", "trust"):
        assert len({getattr(e, dim) for e in emotions if e}) == 3, dim
    for t in tasks:  # the user can say what the gold actions need; no tool names in what they read
        assert not any(tool in t.goal for tool in DOMAIN.tool_map), t.id
        produced: set[str] = set()  # fields earlier gold steps supply: the agent has those from tools
        for a in t.actions:
            for key in ("email", "game_id", "new_date", "new_time", "date", "first_name", "date_of_birth"):
                if key in a.kwargs and key not in produced:
                    assert str(a.kwargs[key]) in t.goal, (t.id, key)
            produced |= DOMAIN.tool_map[a.name].produces


# -- read tools ----------------------------------------------------------------------------------------

def test_identification_lookups(db: Database) -> None:
    env = fresh(db)
    club = db.tables["clubs"]["C010"]
    coach = club["officials"][1]
    assert ok(env, "find_club_official", email=coach["email"].upper()) == {
        "club_id": "C010", "club_name": club["name"], "name": coach["name"], "role": "head_coach"}
    player = db.tables["players"]["P0100"]
    found = ok(env, "find_player", first_name=player["first_name"].lower(), last_name=player["last_name"],
               date_of_birth=player["date_of_birth"])
    assert found == {"player_id": "P0100", "name": f"{player['first_name']} {player['last_name']}",
                     "club_id": player["club_id"]}
    assert {"club_id": "C010", "name": club["name"], "city": club["city"], "conference": club["conference"]} in \
        ok(env, "search_clubs", name=club["name"].upper())


def test_cap_sheet_and_public_profile(db: Database) -> None:
    env = fresh(db)
    sheet = ok(env, "get_cap_sheet", club_id="C020")
    assert sheet["payroll"] == payroll(db, "C020") and sheet["cap_space"] == league.SALARY_CAP - sheet["payroll"]
    assert sheet["active_players"] == active(db, "C020") and sheet["budget"] == db.tables["clubs"]["C020"]["budget"]
    public = ok(env, "get_club_details", club_id="C020")
    text = json.dumps(public)
    assert "salary" not in text and "budget" not in text and "@" not in text  # nothing confidential
    assert [p["player_id"] for p in public["roster"]] == db.tables["clubs"]["C020"]["roster"]


def test_available_players_and_standings(db: Database) -> None:
    env = fresh(db)
    listing = ok(env, "list_available_players", position="center")
    assert listing["free_agents"] and all(p["position"] == "center" for p in listing["free_agents"])
    everyone = ok(env, "list_available_players")
    assert len(everyone["free_agents"]) == sum(p["roster_status"] == "free_agent"
                                               for p in db.tables["players"].values())
    assert all(p["transfer_fee"] for p in everyone["transfer_listed"])
    table = ok(env, "get_conference_standings", conference="pacific")
    finals = [g for g in db.tables["games"].values() if g["status"] == "final"
              and db.tables["clubs"][g["home_club_id"]]["conference"] == "Pacific"]
    assert len(table) == 20 and sum(r["wins"] for r in table) == len(finals) == sum(r["losses"] for r in table)
    keys = [(-r["wins"], -r["point_difference"]) for r in table]
    assert keys == sorted(keys) and [r["rank"] for r in table] == list(range(1, 21))


def test_venue_availability_is_an_answer(db: Database) -> None:
    venue_id, venue = next((v, r) for v, r in sorted(db.tables["venues"].items()) if r["blocked_dates"])
    day = min(venue["blocked_dates"])
    env = fresh(db)
    blocked = ok(env, "check_venue_availability", venue_id=venue_id, date=day)
    assert blocked["available"] is False and venue["blocked_dates"][day] in blocked["reason"]
    game = next(g for g in db.tables["games"].values() if g["venue_id"] == venue_id and g["status"] == "final")
    hosting = ok(env, "check_venue_availability", venue_id=venue_id, date=game["date"])
    assert hosting["available"] is False and game["game_id"] in hosting["reason"]
    tickets = ok(env, "get_ticket_options", game_id=game["game_id"])
    assert tickets["on_sale"] is False and "closed" in tickets["note"]


# -- write tools: effects field by field ----------------------------------------------------------------

def test_sign_free_agent(db: Database) -> None:
    club_id = first_club(db, lambda c: active(db, c) < league.MAX_ACTIVE
                         and league.SALARY_CAP - payroll(db, c) >= 90_000)
    fa = free_agent(db, league.SALARY_CAP - payroll(db, club_id))
    before = db.tables["clubs"][club_id]
    tid = next_tid(db)
    env = fresh(db)
    out = ok(env, "sign_player", club_id=club_id, player_id=fa["player_id"], annual_salary=fa["asking_salary"],
             contract_years=2)
    player = env.state.get("players", fa["player_id"])
    taken = {p["jersey_number"] for p in roster(db, club_id)}
    assert player == {**fa, "club_id": club_id, "roster_status": "active",
                      "jersey_number": min(set(range(100)) - taken),
                      "contract": {"annual_salary": fa["asking_salary"], "signed_on": league.TODAY,
                                   "end_season": "2025-26"},
                      "asking_salary": None, "transfer_fee": None}
    assert env.state.get("clubs", club_id) == {**before, "roster": [*before["roster"], fa["player_id"]]}
    entry = {"transaction_id": tid, "date": league.TODAY, "kind": "signing", "club_id": club_id,
             "player_id": fa["player_id"], "game_id": None, "other_club_id": None,
             "annual_salary": fa["asking_salary"], "contract_years": 2, "amount": 0}
    assert env.state.get("transactions", tid) == entry and out["transaction"] == entry
    assert {(c.table, c.key) for c in env.changes_since_start()} == {
        ("players", fa["player_id"]), ("clubs", club_id), ("transactions", tid)}


def test_transfer_moves_player_and_fee(db: Database) -> None:
    players = db.tables["players"]
    target = next(p for _, p in sorted(players.items()) if p["transfer_fee"])
    salary = target["contract"]["annual_salary"]
    buyer = first_club(db, lambda c: c != target["club_id"] and active(db, c) < league.MAX_ACTIVE
                       and db.tables["clubs"][c]["budget"] >= target["transfer_fee"]
                       and league.SALARY_CAP - payroll(db, c) >= salary)
    seller = target["club_id"]
    env = fresh(db)
    out = ok(env, "sign_player", club_id=buyer, player_id=target["player_id"], annual_salary=salary,
             contract_years=3)
    fee = target["transfer_fee"]
    b0, s0 = db.tables["clubs"][buyer], db.tables["clubs"][seller]
    assert env.state.get("clubs", buyer) == {**b0, "budget": b0["budget"] - fee,
                                             "roster": [*b0["roster"], target["player_id"]]}
    assert env.state.get("clubs", seller) == {**s0, "budget": s0["budget"] + fee,
                                              "roster": [p for p in s0["roster"] if p != target["player_id"]]}
    moved = env.state.get("players", target["player_id"])
    assert moved["club_id"] == buyer and moved["transfer_fee"] is None and moved["roster_status"] == "active"
    assert moved["contract"] == {"annual_salary": salary, "signed_on": league.TODAY, "end_season": "2026-27"}
    assert out["transaction"]["kind"] == "transfer" and out["transaction"]["other_club_id"] == seller
    assert out["transaction"]["amount"] == fee and out["transaction"]["contract_years"] == 3


def test_injured_reserve_then_activate(db: Database) -> None:
    hurt = next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "active"
                and p["injury"]["status"] == "out")
    club_id = hurt["club_id"]
    env = fresh(db)
    first = ok(env, "make_roster_move", club_id=club_id, player_id=hurt["player_id"], move="injured_reserve")
    assert env.state.get("players", hurt["player_id"]) == {**hurt, "roster_status": "injured_reserve",
                                                           "ir_since": league.TODAY}
    assert env.state.get("clubs", club_id) == db.tables["clubs"][club_id]  # roster and budget unchanged
    assert first["transaction"] | {"transaction_id": ""} == {
        "transaction_id": "", "date": league.TODAY, "kind": "injured_reserve", "club_id": club_id,
        "player_id": hurt["player_id"], "game_id": None, "other_club_id": None, "annual_salary": None,
        "contract_years": None, "amount": 0}
    # Still ruled out: the tool refuses activation and changes nothing.
    start = env.hash
    refused = env.call("make_roster_move", {"club_id": club_id, "player_id": hurt["player_id"], "move": "activate"})
    assert refused.error and "still ruled out" in refused.output and env.hash == start

    cleared = next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "injured_reserve"
                   and p["injury"]["status"] != "out" and active(db, p["club_id"]) < league.MAX_ACTIVE)
    env = fresh(db)
    tid = next_tid(db)
    ok(env, "make_roster_move", club_id=cleared["club_id"], player_id=cleared["player_id"], move="activate")
    assert env.state.get("players", cleared["player_id"]) == {**cleared, "roster_status": "active", "ir_since": None}
    assert env.state.get("transactions", tid)["kind"] == "activate"


def test_release_pays_the_buyout(db: Database) -> None:
    player = next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "active"
                  and p["contract"]["end_season"] == "2025-26"
                  and league.buyout(p["contract"]["annual_salary"], "2025-26")
                  <= db.tables["clubs"][p["club_id"]]["budget"])
    club_id, salary = player["club_id"], player["contract"]["annual_salary"]
    club = db.tables["clubs"][club_id]
    env = fresh(db)
    out = ok(env, "make_roster_move", club_id=club_id, player_id=player["player_id"], move="release")
    assert out["transaction"]["amount"] == salary  # half a salary for each of two seasons
    assert env.state.get("players", player["player_id"]) == {
        **player, "club_id": None, "jersey_number": None, "roster_status": "free_agent", "ir_since": None,
        "contract": None, "asking_salary": salary, "transfer_fee": None}
    assert env.state.get("clubs", club_id) == {**club, "budget": club["budget"] - salary,
                                               "roster": [p for p in club["roster"] if p != player["player_id"]]}
    # The released player is now a free agent another club can sign.
    listing = ok(env, "list_available_players", position=player["position"])
    assert player["player_id"] in {p["player_id"] for p in listing["free_agents"]}


def _movable(db: Database, status: str) -> tuple[Record, str]:
    """A game of that status and a day after it when venue and both clubs are free."""
    games, venues = db.tables["games"], db.tables["venues"]
    busy = {(c, g["date"]) for g in games.values() if g["status"] in ("scheduled", "final")
            for c in (g["home_club_id"], g["away_club_id"])}
    hosting = {(g["venue_id"], g["date"]) for g in games.values() if g["status"] in ("scheduled", "final")}
    for _, g in sorted(games.items()):
        if g["status"] != status or g["rescheduled"]:
            continue
        for shift in range(1, 30):
            day = shift_days(max(g["date"], league.TODAY), shift)
            if (day <= league.SEASON_END and day not in venues[g["venue_id"]]["blocked_dates"]
                    and (g["venue_id"], day) not in hosting and (g["home_club_id"], day) not in busy
                    and (g["away_club_id"], day) not in busy):
                return g, day
    raise LookupError(status)


@pytest.mark.parametrize(("status", "fee"), [("scheduled", league.RESCHEDULE_FEE), ("postponed", 0)])
def test_reschedule_moves_game_and_charges_fee(db: Database, status: str, fee: int) -> None:
    game, day = _movable(db, status)
    club_id = game["away_club_id"]
    club = db.tables["clubs"][club_id]
    tid = next_tid(db)
    env = fresh(db)
    out = ok(env, "reschedule_game", game_id=game["game_id"], club_id=club_id, new_date=day, new_time="18:30",
             venue_id=game["venue_id"])
    assert env.state.get("games", game["game_id"]) == {
        **game, "date": day, "time": "18:30", "status": "scheduled", "status_note": "",
        "rescheduled": {"from_date": game["date"], "from_time": game["time"], "from_venue_id": game["venue_id"],
                        "requested_by": club_id, "on": league.TODAY, "fee": fee}}
    assert env.state.get("clubs", club_id) == {**club, "budget": club["budget"] - fee}
    assert out["transaction"] == {"transaction_id": tid, "date": league.TODAY, "kind": "reschedule",
                                  "club_id": club_id, "player_id": None, "game_id": game["game_id"],
                                  "other_club_id": None, "annual_salary": None, "contract_years": None, "amount": fee}
    changed = {(c.table, c.key) for c in env.changes_since_start()}
    assert changed == {("games", game["game_id"]), ("transactions", tid)} | ({("clubs", club_id)} if fee else set())
    # The moved game now holds its venue and both clubs on the new day.
    assert ok(env, "check_venue_availability", venue_id=game["venue_id"], date=day)["available"] is False


def test_new_transaction_ids_follow_the_register(db: Database) -> None:
    game, day = _movable(db, "scheduled")
    hurt = next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "active"
                and p["injury"]["status"] == "out")
    first = next_tid(db)
    ids = []
    for _ in range(2):  # two sessions, same calls: same ids
        env = fresh(db)
        a = ok(env, "make_roster_move", club_id=hurt["club_id"], player_id=hurt["player_id"], move="injured_reserve")
        b = ok(env, "reschedule_game", game_id=game["game_id"], club_id=game["home_club_id"], new_date=day,
               new_time=game["time"], venue_id=game["venue_id"])
        ids.append((a["transaction"]["transaction_id"], b["transaction"]["transaction_id"], env.hash))
    assert ids[0] == ids[1]
    assert ids[0][:2] == (first, f"T{int(first[1:]) + 1:04d}")


# -- refused calls -------------------------------------------------------------------------------------

def _cases(db: Database) -> dict[str, Record]:
    """Real ids for the refused-call table: a full club, a club with an open spot, a listed player and more."""
    players, games = db.tables["players"], db.tables["games"]
    full = first_club(db, lambda c: active(db, c) == league.MAX_ACTIVE)
    open_club = first_club(db, lambda c: active(db, c) < league.MAX_ACTIVE)
    poor = first_club(db, lambda c: active(db, c) < league.MAX_ACTIVE and db.tables["clubs"][c]["budget"] < 60_000)
    pricey = next(p for _, p in sorted(players.items()) if p["transfer_fee"] and p["club_id"] != poor
                  and p["transfer_fee"] > db.tables["clubs"][poor]["budget"])
    unlisted = next(p for _, p in sorted(players.items()) if p["club_id"] not in (None, open_club)
                    and p["transfer_fee"] is None)
    healthy = next(p for _, p in sorted(players.items()) if p["club_id"] and p["roster_status"] == "active"
                   and p["injury"]["status"] == "healthy")
    final = next(g for _, g in sorted(games.items()) if g["status"] == "final")
    scheduled, day = _movable(db, "scheduled")
    blocked_game = next(g for _, g in sorted(games.items()) if g["status"] == "scheduled"
                        and db.tables["venues"][g["venue_id"]]["blocked_dates"])
    clash = next(g for _, g in sorted(games.items()) if g["status"] == "scheduled" and g["date"] > scheduled["date"]
                 and g["home_club_id"] == scheduled["home_club_id"])
    outsider = next(c for c in sorted(db.tables["clubs"]) if c not in (scheduled["home_club_id"],
                                                                       scheduled["away_club_id"]))
    return {"FULL": full, "OPEN": open_club, "OVER_CAP": league.SALARY_CAP - payroll(db, open_club) + 1000,
            "POOR": poor, "PRICEY": pricey["player_id"],
            "UNLISTED": unlisted["player_id"], "ROSTERED": db.tables["clubs"][open_club]["roster"][0],
            "FA": free_agent(db, league.SALARY_CAP)["player_id"], "HEALTHY": healthy["player_id"],
            "HEALTHY_CLUB": healthy["club_id"], "FINAL": final["game_id"], "GAME": scheduled["game_id"],
            "HOME": scheduled["home_club_id"], "VENUE": scheduled["venue_id"], "DAY": day,
            "OUTSIDER": outsider, "BLOCKED_GAME": blocked_game["game_id"],
            "BLOCKED_HOME": blocked_game["home_club_id"], "BLOCKED_VENUE": blocked_game["venue_id"],
            "BLOCKED_DAY": min(db.tables["venues"][blocked_game["venue_id"]]["blocked_dates"]),
            "CLASH_DAY": clash["date"]}


BAD_CALLS = [
    ("get_player_details", {"player_id": "P9999"}, "not found"),
    ("get_cap_sheet", {"club_id": "Boston"}, "search_clubs"),
    ("find_club_official", {"email": "nobody@example.com"}, "no club official"),
    ("find_player", {"first_name": "A", "last_name": "B", "date_of_birth": "03/04/1999"}, "YYYY-MM-DD"),
    ("get_conference_standings", {"conference": "Arctic"}, "Pacific"),
    ("list_club_games", {"club_id": "C001", "status": "done"}, "status must be"),
    ("sign_player", {"club_id": "FULL", "player_id": "FA", "annual_salary": 50000, "contract_years": 1},
     "most allowed"),
    ("sign_player", {"club_id": "OPEN", "player_id": "FA", "annual_salary": "OVER_CAP", "contract_years": 1},
     "over the cap"),
    ("sign_player", {"club_id": "OPEN", "player_id": "FA", "annual_salary": 30000, "contract_years": 1},
     "league minimum"),
    ("sign_player", {"club_id": "OPEN", "player_id": "FA", "annual_salary": 50000, "contract_years": 4},
     "1 to 3"),
    ("sign_player", {"club_id": "OPEN", "player_id": "UNLISTED", "annual_salary": 50000, "contract_years": 1},
     "not listed for transfer"),
    ("sign_player", {"club_id": "OPEN", "player_id": "ROSTERED", "annual_salary": 50000, "contract_years": 1},
     "already on"),
    ("sign_player", {"club_id": "POOR", "player_id": "PRICEY", "annual_salary": 40000, "contract_years": 1},
     "transfer fee"),
    ("make_roster_move", {"club_id": "HEALTHY_CLUB", "player_id": "HEALTHY", "move": "injured_reserve"},
     "not ruled out"),
    ("make_roster_move", {"club_id": "HEALTHY_CLUB", "player_id": "HEALTHY", "move": "activate"},
     "not on injured reserve"),
    ("make_roster_move", {"club_id": "OPEN", "player_id": "HEALTHY", "move": "release"}, "not on"),
    ("reschedule_game", {"game_id": "FINAL", "club_id": "HOME", "new_date": "DAY", "new_time": "19:00",
                         "venue_id": "VENUE"}, "only a scheduled or postponed"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "OUTSIDER", "new_date": "DAY", "new_time": "19:00",
                         "venue_id": "VENUE"}, "does not play in"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "2025-05-03", "new_time": "19:00",
                         "venue_id": "VENUE"}, "end of the regular season"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "2025-02-19", "new_time": "19:00",
                         "venue_id": "VENUE"}, "after today"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "DAY", "new_time": "7pm",
                         "venue_id": "VENUE"}, "HH:MM"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "2025-02-30", "new_time": "19:00",
                         "venue_id": "VENUE"}, "not a calendar date"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "CLASH_DAY", "new_time": "19:00",
                         "venue_id": "VENUE"}, "already plays"),
    ("reschedule_game", {"game_id": "BLOCKED_GAME", "club_id": "BLOCKED_HOME", "new_date": "BLOCKED_DAY",
                         "new_time": "19:00", "venue_id": "BLOCKED_VENUE"}, "is booked for"),
    ("reschedule_game", {"game_id": "GAME", "club_id": "HOME", "new_date": "DAY", "new_time": "19:00",
                         "venue_id": "V999"}, "venue 'V999' not found"),
]


@pytest.mark.parametrize(("tool", "args", "words"), BAD_CALLS, ids=[f"{t}-{w}" for t, _, w in BAD_CALLS])
def test_bad_calls_are_clear_errors_and_change_nothing(db: Database, tool: str, args: Record, words: str) -> None:
    fill = _cases(db)
    args = {k: fill.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
    assert_refused(fresh(db), tool, args, words)


def test_release_refused_when_budget_is_short(db: Database) -> None:
    player = next(p for _, p in sorted(db.tables["players"].items()) if p["contract"]
                  and league.buyout(p["contract"]["annual_salary"], p["contract"]["end_season"])
                  > db.tables["clubs"][p["club_id"]]["budget"])
    env = fresh(db)
    result = env.call("make_roster_move", {"club_id": player["club_id"], "player_id": player["player_id"],
                                           "move": "release"})
    assert result.error and "buyout" in result.output and env.changes_since_start() == []


def test_policy_only_rules_are_not_enforced_by_tools(db: Database) -> None:
    """The ten-day minimum on injured reserve is the agent's to check (as policy.md says): the tool allows
    an early activation, which is why the starter set has a task where the agent must refuse."""
    early = next(p for _, p in sorted(db.tables["players"].items()) if p["roster_status"] == "injured_reserve"
                 and p["injury"]["status"] != "out" and active(db, p["club_id"]) < league.MAX_ACTIVE
                 and league.days_between(p["ir_since"], league.TODAY) < league.IR_MIN_DAYS)
    env = fresh(db)
    assert not env.call("make_roster_move", {"club_id": early["club_id"], "player_id": early["player_id"],
                                             "move": "activate"}).error


# -- dependency graph ----------------------------------------------------------------------------------

def test_graph_roots_and_valid_next() -> None:
    graph = ToolGraph(DOMAIN)
    assert set(graph.roots()) == {"find_club_official", "find_player", "search_clubs", "list_available_players",
                                  "get_game_details", "list_games_on_date", "get_ticket_options",
                                  "get_conference_standings", "transfer_to_human_agents"}
    start = set(graph.valid_next([]))
    assert not start & WRITES and "get_cap_sheet" not in start
    assert "find_club_official first" in graph.why_not("get_cap_sheet", ["search_clubs"])
    after_login = set(graph.valid_next(["find_club_official"]))
    assert {"get_cap_sheet", "get_club_details", "list_club_games"} <= after_login
    assert not after_login & WRITES
    assert "needs get_cap_sheet" in graph.why_not("sign_player", ["find_club_official"])
    after_sheet = set(graph.valid_next(["find_club_official", "get_cap_sheet"]))
    assert {"sign_player", "make_roster_move"} <= after_sheet and "reschedule_game" not in after_sheet
    after_venue = graph.valid_next(["find_club_official", "get_game_details", "check_venue_availability"])
    assert "reschedule_game" in after_venue
    assert graph.valid_next(["find_club_official", "transfer_to_human_agents"]) == []


# -- Tracer hints and the shipped test set -------------------------------------------------------------

@pytest.fixture(scope="module")
def test_set() -> Any:
    return load_tasks(DOMAIN.task_set_path("test"), "basketball")


def test_shipped_test_set_covers_every_write(db: Database, test_set: Any) -> None:
    tasks = test_set.tasks
    assert len(tasks) == 50 and test_set.provenance["seed"] == 2024 and test_set.provenance["depth"] == "2-5"
    assert test_set.provenance["hints"] == "BasketballHints"
    report = verify_tasks(DOMAIN, db, tasks)
    assert len({r.hash for r in report.replays}) == 50  # no two tasks end in the same state
    goals = Counter(g for t in tasks for g in t.provenance["goals"])
    assert set(goals) == WRITES
    moves = {a.kwargs["move"] for t in tasks for a in t.actions if a.name == "make_roster_move"}
    assert moves == {"injured_reserve", "activate", "release"}
    signings = [a.kwargs["player_id"] for t in tasks for a in t.actions if a.name == "sign_player"]
    assert {db.tables["players"][p]["roster_status"] for p in signings} == {"free_agent", "active"}  # and transfers
    games = [a.kwargs["game_id"] for t in tasks for a in t.actions if a.name == "reschedule_game"]
    assert {db.tables["games"][g]["status"] for g in games} == {"scheduled", "postponed"}
    assert Counter(t.difficulty for t in tasks) == {2: 13, 3: 12, 4: 13, 5: 12}
    # the paper gives basketball one family (anger) and two sub-families: every task draws within them, both drawn
    assert set(DOMAIN.emotions.leaves) == {"anger"}  # type: ignore[union-attr]
    assert Counter(t.emotion.family for t in tasks) == {"anger": 50}  # type: ignore[union-attr]
    assert {t.emotion.leaf for t in tasks} == set(DOMAIN.emotions.leaves["anger"])  # type: ignore[union-attr]


def test_test_set_tasks_come_from_the_callers_own_club(test_set: Any) -> None:
    from tauplay.tracer.facts import tool_names_in

    graph = ToolGraph(DOMAIN)
    clubs = DOMAIN.database().tables["clubs"]
    for task in test_set.tasks:
        names = [a.name for a in task.actions]
        assert task.difficulty == graph.depth(names), task.id
        assert names[0] == "find_club_official", task.id  # identified before any business
        email = task.actions[0].kwargs["email"]
        assert email in task.instruction and task.known_info["email"] == email
        assert email in {o["email"] for o in clubs[task.user_id]["officials"]}  # the caller's own club
        assert all(a.kwargs["club_id"] == task.user_id for a in task.actions if a.name in WRITES)
        assert not tool_names_in(task.instruction, [t.name for t in DOMAIN.tools]), task.id


def _staff(db: Database, club_id: str, role: str) -> str:
    return next(o["email"] for o in db.tables["clubs"][club_id]["officials"] if o["role"] == role)


def test_tracer_policy_rules_reject_crafted_bad_writes(db: Database, monkeypatch: Any) -> None:
    """One crafted write per policy-only rule in the hints (each with an allowed twin where one exists)."""
    from tauplay_domains.basketball.tracer import HINTS, policy_problem

    state = db.new_state()
    players = db.tables["players"]

    def check(tool: str, args: Record, email: str | None) -> str:
        return policy_problem(tool, args, state, email)

    # Who may ask: a head coach signs, releases or reschedules nothing; officials act for their own club only.
    c = first_club(db, lambda c: active(db, c) < league.MAX_ACTIVE)
    fa = free_agent(db, league.SALARY_CAP - payroll(db, c))
    sign = {"club_id": c, "player_id": fa["player_id"], "annual_salary": fa["asking_salary"], "contract_years": 1}
    gm, coach = _staff(db, c, "general_manager"), _staff(db, c, "head_coach")
    assert check("sign_player", sign, gm) == ""
    assert "head coach may not" in check("sign_player", sign, coach)
    other = _staff(db, first_club(db, lambda x: x != c), "general_manager")
    assert "works for" in check("sign_player", sign, other)
    assert "not an identified" in check("sign_player", sign, "nobody@example.com")
    # The same rule through the hints' stage-5 hook, with the caller from the goal's known info.
    assert HINTS.policy("sign_player", sign, state, {"email": coach}) != ""
    assert HINTS.policy("sign_player", sign, state, {"email": gm}) == ""

    # A free agent signs for at least what he asks.
    assert "below" in check("sign_player", {**sign, "annual_salary": fa["asking_salary"] - 1_000}, gm)
    # No player ruled out by injury.
    hurt = free_agent(db, league.SALARY_CAP, status="out")
    assert "ruled out" in check("sign_player", {**sign, "player_id": hurt["player_id"],
                                                "annual_salary": hurt["asking_salary"]}, gm)
    # A listed player signs for no less than his current salary, before the deadline, and his club keeps
    # three active players.
    listed = next(p for _, p in sorted(players.items()) if p["transfer_fee"] and p["roster_status"] == "active"
                  and p["injury"]["status"] != "out" and active(db, p["club_id"]) == league.MAX_ACTIVE)
    buy = {**sign, "player_id": listed["player_id"], "annual_salary": listed["contract"]["annual_salary"]}
    assert check("sign_player", buy, gm) == ""
    assert "below" in check("sign_player", {**buy, "annual_salary": buy["annual_salary"] - 1_000}, gm)
    thin = next(p for _, p in sorted(players.items()) if p["transfer_fee"] and p["roster_status"] == "active"
                and active(db, p["club_id"]) == league.MIN_ACTIVE)
    assert "fewer than 3 active" in check("sign_player", {**buy, "player_id": thin["player_id"],
                                                          "annual_salary": thin["contract"]["annual_salary"]}, gm)
    monkeypatch.setattr(league, "TODAY", shift_days(league.TRANSFER_DEADLINE, 1))
    assert "deadline" in check("sign_player", buy, gm)
    monkeypatch.undo()

    # Ten days on injured reserve before activation.
    def on_reserve(days_ok: bool) -> Record:
        return next(p for _, p in sorted(players.items()) if p["roster_status"] == "injured_reserve"
                    and (league.days_between(p["ir_since"], league.TODAY) >= league.IR_MIN_DAYS) == days_ok)

    early, due = on_reserve(False), on_reserve(True)
    activate = {"club_id": early["club_id"], "player_id": early["player_id"], "move": "activate"}
    assert "ten days" in check("make_roster_move", activate, _staff(db, early["club_id"], "head_coach"))
    assert check("make_roster_move", {"club_id": due["club_id"], "player_id": due["player_id"], "move": "activate"},
                 _staff(db, due["club_id"], "head_coach")) == ""
    # Release is the general manager's; no move leaves fewer than three active players.
    three = first_club(db, lambda c: active(db, c) == league.MIN_ACTIVE)
    starter = next(p for p in roster(db, three) if p["roster_status"] == "active")
    release = {"club_id": three, "player_id": starter["player_id"], "move": "release"}
    assert "head coach may not" in check("make_roster_move", release, _staff(db, three, "head_coach"))
    assert "fewer than 3 active" in check("make_roster_move", release, _staff(db, three, "general_manager"))
    assert "fewer than 3 active" in check("make_roster_move", {**release, "move": "injured_reserve"},
                                          _staff(db, three, "head_coach"))
    four = first_club(db, lambda c: active(db, c) == league.MAX_ACTIVE)
    keeper = next(p for p in roster(db, four) if p["roster_status"] == "active")
    assert check("make_roster_move", {"club_id": four, "player_id": keeper["player_id"], "move": "release"},
                 _staff(db, four, "general_manager")) == ""

    # Rescheduling: 72 hours' notice, once per game, tip-off 12:00-21:00, at one of the clubs' venues.
    games = db.tables["games"]

    def game_where(ok: Any) -> Record:
        return next(g for _, g in sorted(games.items()) if g["status"] == "scheduled" and ok(g))

    open_game = game_where(lambda g: not g["rescheduled"] and league.hours_until(g["date"], g["time"]) >= 96)
    move = {"game_id": open_game["game_id"], "club_id": open_game["home_club_id"], "new_date": "2025-04-22",
            "new_time": "19:00", "venue_id": open_game["venue_id"]}
    home_gm = _staff(db, open_game["home_club_id"], "general_manager")
    assert check("reschedule_game", move, home_gm) == ""
    assert "outside" in check("reschedule_game", {**move, "new_time": "21:30"}, home_gm)
    assert "outside" in check("reschedule_game", {**move, "new_time": "11:00"}, home_gm)
    stranger = next(v for v in sorted(db.tables["venues"]) if v not in {
        db.tables["clubs"][open_game["home_club_id"]]["home_venue_id"],
        db.tables["clubs"][open_game["away_club_id"]]["home_venue_id"], open_game["venue_id"]})
    assert "venue" in check("reschedule_game", {**move, "venue_id": stranger}, home_gm)
    soon = game_where(lambda g: not g["rescheduled"] and league.hours_until(g["date"], g["time"]) < 72)
    assert "72 hours" in check("reschedule_game", {**move, "game_id": soon["game_id"], "club_id": soon["home_club_id"],
                                                   "venue_id": soon["venue_id"]},
                               _staff(db, soon["home_club_id"], "general_manager"))
    moved = game_where(lambda g: g["rescheduled"] is not None)
    assert "once" in check("reschedule_game", {**move, "game_id": moved["game_id"], "club_id": moved["home_club_id"],
                                               "venue_id": moved["venue_id"]},
                           _staff(db, moved["home_club_id"], "general_manager"))


def test_tracer_drops_a_generated_write_the_policy_forbids(db: Database) -> None:
    """Stage 5 runs the hints' policy on every write: a crafted task whose caller is a head coach asking
    for a release executes fine but is filtered out."""
    from tauplay.core.tasks import Action, Task
    from tauplay.tracer.hints import hints_for
    from tauplay.tracer.verify import Candidate, Filters

    four = first_club(db, lambda c: active(db, c) == league.MAX_ACTIVE)
    keeper = next(p for p in roster(db, four) if p["roster_status"] == "active")
    coach = _staff(db, four, "head_coach")
    actions = [Action("find_club_official", {"email": coach}), Action("get_cap_sheet", {"club_id": four}),
               Action("make_roster_move", {"club_id": four, "player_id": keeper["player_id"], "move": "release"})]
    task = Task(id="crafted", domain="basketball", instruction=f"Release {keeper['first_name']}.", actions=actions)
    filters = Filters(DOMAIN, db, ToolGraph(DOMAIN), hints_for(DOMAIN))
    verdict = filters.judge(Candidate(task, [], [{"email": coach}] * 3))
    assert verdict.filter == "policy" and "head coach may not" in verdict.detail
