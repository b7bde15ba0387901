"""Build `tasks/starter.json` from the generated database (default seed), deterministically.

Run from the repository root: `python -m tauplay_domains.basketball.make_starter` (add `--check` to exit 1 when
the file on disk is out of date). Entities are picked by fixed rules in id order, never the same club
twice, so each task stands alone; every task is replayed before the file is written, and `tauplay verify
domains/basketball/tasks/starter.json --domain basketball` checks the file again.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from tauplay.core.emotions import EmotionCondition
from tauplay.core.environment import Environment
from tauplay.core.graph import ToolGraph
from tauplay.core.tasks import Action, Task, TaskSet

from .. import starter
from . import DOMAIN, league

Record = dict[str, Any]


class League:
    """The start state's tables with the questions the task recipes ask of them."""

    def __init__(self) -> None:
        tables = DOMAIN.database().tables
        self.players, self.clubs = tables["players"], tables["clubs"]
        self.games, self.venues = tables["games"], tables["venues"]
        self.used: set[str] = set()  # clubs already in a task

    def roster(self, club_id: str) -> list[Record]:
        return [self.players[p] for p in self.clubs[club_id]["roster"]]

    def active(self, club_id: str) -> int:
        return sum(1 for p in self.roster(club_id) if p["roster_status"] == "active")

    def on_reserve(self, club_id: str) -> int:
        return sum(1 for p in self.roster(club_id) if p["roster_status"] == "injured_reserve")

    def cap_space(self, club_id: str) -> int:
        return league.SALARY_CAP - sum(p["contract"]["annual_salary"] for p in self.roster(club_id))

    def official(self, club_id: str, role: str = "general_manager") -> Record:
        return next(o for o in self.clubs[club_id]["officials"] if o["role"] == role)

    def club(self, where: Callable[[str], bool]) -> str:
        """The first unused club (by id) that fits, now marked used."""
        for club_id in sorted(self.clubs):
            if club_id not in self.used and where(club_id):
                self.used.add(club_id)
                return club_id
        raise LookupError("no club fits")

    def free_agents(self, where: Callable[[Record], bool] = lambda p: True) -> list[Record]:
        return [p for _, p in sorted(self.players.items()) if p["roster_status"] == "free_agent" and where(p)]

    def busy(self, club_id: str, day: str) -> bool:
        return any(g["date"] == day and g["status"] in ("scheduled", "final")
                   and club_id in (g["home_club_id"], g["away_club_id"]) for g in self.games.values())

    def venue_free(self, venue_id: str, day: str) -> bool:
        return day not in self.venues[venue_id]["blocked_dates"] and not any(
            g["date"] == day and g["venue_id"] == venue_id and g["status"] in ("scheduled", "final")
            for g in self.games.values())

    def movable_to(self, game: Record, day: str) -> bool:
        return (league.TODAY < day <= league.SEASON_END and self.venue_free(game["venue_id"], day)
                and not self.busy(game["home_club_id"], day) and not self.busy(game["away_club_id"], day))


def name(p: Record) -> str:
    return f"{p['first_name']} {p['last_name']}"


def login(official: Record) -> Action:
    return Action("find_club_official", {"email": official["email"]})


# A club official talking to the league's operations desk.
WORDING = starter.EmotionWording(
    politeness={"cold": "Keep your messages short and cool.", "neutral": "Keep a plain, businesslike tone.",
                "warm": "Stay friendly and polite."},
    urgency={"low": "You have time.", "moderate": "You would like this settled today.",
             "high": "You need it settled right now and say so."},
    trust={"skeptical": "You doubt the desk and ask for specifics.",
           "cautious": "You accept answers once they are explained.", "trusting": "You take the desk at its word."},
)


def build() -> TaskSet:
    lg = League()
    graph = ToolGraph(DOMAIN)
    tasks: list[Task] = []

    def add(slug: str, goal: str, caller: str | None, known: Record, actions: list[Action],
            emotion: EmotionCondition, outputs: Iterable[str] = ()) -> None:
        task = Task(id=f"basketball-starter-{len(tasks) + 1:02d}-{slug}", domain="basketball",
                    instruction=WORDING.instruction(goal, emotion), actions=actions,
                    user_id=caller, outputs=list(outputs), known_info=known, emotion=emotion,
                    provenance={"source": "domains/basketball/make_starter.py", "database": "generated",
                                "seed": DOMAIN.default_seed})
        task.difficulty = graph.depth([a.name for a in actions])
        tasks.append(task)

    def healthy_fa(max_salary: int) -> Record:
        return next(p for p in lg.free_agents(lambda p: p["injury"]["status"] == "healthy")
                    if p["asking_salary"] <= max_salary and p["player_id"] not in signed)

    signed: set[str] = set()

    # 1. Sign a free agent at his asking salary into an open spot.
    c = lg.club(lambda c: lg.active(c) < league.MAX_ACTIVE and lg.cap_space(c) >= 90_000)
    gm, club = lg.official(c), lg.clubs[c]
    fa = healthy_fa(lg.cap_space(c))
    signed.add(fa["player_id"])
    add("sign-free-agent",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). You have an open "
        f"roster spot and want to sign the free-agent {fa['position']} {name(fa)} on a two-season contract at "
        "the salary he is asking for. Ask which season the contract runs through.",
        gm["email"], {"email": gm["email"], "player": name(fa), "contract_years": 2},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("list_available_players", {"position": fa["position"]}),
         Action("get_player_details", {"player_id": fa["player_id"]}),
         Action("sign_player", {"club_id": c, "player_id": fa["player_id"], "annual_salary": fa["asking_salary"],
                                "contract_years": 2})],
        EmotionCondition("enjoyment", "excitement", "moderate", "warm", "moderate", "trusting",
                         "finally landing the player the club has scouted all winter"),
        outputs=[league.contract_end_season(2)])

    # 2. Bring in a player listed for transfer: pay his fee, raise his salary.
    listed = [p for _, p in sorted(lg.players.items()) if p["transfer_fee"] and p["injury"]["status"] == "healthy"]

    def can_buy(c: str, p: Record) -> bool:
        return (p["club_id"] != c and lg.active(c) < league.MAX_ACTIVE and lg.clubs[c]["budget"] >= p["transfer_fee"]
                and lg.cap_space(c) >= p["contract"]["annual_salary"] + 5_000)

    target = next(p for p in listed if any(can_buy(c, p) for c in lg.clubs if c not in lg.used))
    c = lg.club(lambda c: can_buy(c, target))
    lg.used.add(target["club_id"])
    gm, club = lg.official(c), lg.clubs[c]
    offer = target["contract"]["annual_salary"] + 5_000
    add("transfer-listed-player",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). The "
        f"{lg.clubs[target['club_id']]['name']} have listed their {target['position']} {name(target)} for transfer "
        f"and you want him: offer {offer} dollars a year for three seasons. Ask how much the transfer fee is "
        "before you agree.",
        gm["email"], {"email": gm["email"], "player": name(target), "annual_salary": offer, "contract_years": 3},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("list_available_players", {"position": target["position"]}),
         Action("get_player_details", {"player_id": target["player_id"]}),
         Action("sign_player", {"club_id": c, "player_id": target["player_id"], "annual_salary": offer,
                                "contract_years": 3})],
        EmotionCondition("fear", "nervousness", "mild", "neutral", "high", "cautious",
                         "worried a rival club will get the player first before the transfer deadline"),
        outputs=[str(target["transfer_fee"])])

    # 3. A head coach puts an injured active player on injured reserve.
    def ir_candidate(c: str) -> Record | None:
        if lg.active(c) <= league.MIN_ACTIVE or lg.on_reserve(c) >= league.MAX_INJURED_RESERVE:
            return None
        return next((p for p in lg.roster(c) if p["roster_status"] == "active" and p["injury"]["status"] == "out"),
                    None)

    c = lg.club(lambda c: ir_candidate(c) is not None)
    coach, club = lg.official(c, "head_coach"), lg.clubs[c]
    hurt = ir_candidate(c)
    assert hurt is not None
    add("coach-injured-reserve",
        f"You are {coach['name']}, head coach of the {club['name']} (email {coach['email']}). Your player "
        f"{name(hurt)} is out with a {hurt['injury']['description']}; put him on injured reserve. Ask for the "
        "earliest date he could come back off it.",
        coach["email"], {"email": coach["email"], "player": name(hurt), "move": "injured_reserve"},
        [login(coach), Action("get_cap_sheet", {"club_id": c}),
         Action("make_roster_move", {"club_id": c, "player_id": hurt["player_id"], "move": "injured_reserve"})],
        EmotionCondition("sadness", "disappointment", "moderate", "neutral", "low", "cautious",
                         "losing the team's best shooter for weeks in the middle of a playoff race"),
        outputs=[league.add_days(league.TODAY, league.IR_MIN_DAYS)])

    # 4. Activate a cleared player whose ten days on injured reserve are over.
    def cleared(c: str, min_days: int) -> Record | None:
        return next((p for p in lg.roster(c) if p["roster_status"] == "injured_reserve"
                     and p["injury"]["status"] != "out"
                     and league.days_between(p["ir_since"], league.TODAY) >= min_days), None)

    c = lg.club(lambda c: lg.active(c) < league.MAX_ACTIVE and cleared(c, league.IR_MIN_DAYS) is not None)
    gm, club = lg.official(c), lg.clubs[c]
    back = cleared(c, league.IR_MIN_DAYS)
    assert back is not None
    add("activate-from-reserve",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). {name(back)} has "
        "been cleared by the doctors; bring him back from injured reserve to the active roster.",
        gm["email"], {"email": gm["email"], "player": name(back), "move": "activate"},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("make_roster_move", {"club_id": c, "player_id": back["player_id"], "move": "activate"})],
        EmotionCondition("enjoyment", "relief", "moderate", "warm", "moderate", "trusting",
                         "relieved the scans came back clean"))

    # 5. Release a player with a buyout (the club keeps three active players).
    def releasable(c: str, end: str) -> Record | None:
        if lg.active(c) <= league.MIN_ACTIVE:
            return None
        return next((p for p in lg.roster(c) if p["roster_status"] == "active" and p["contract"]["end_season"] == end
                     and league.buyout(p["contract"]["annual_salary"], end) <= lg.clubs[c]["budget"]), None)

    c = lg.club(lambda c: releasable(c, league.season_name(2025)) is not None)
    gm, club = lg.official(c), lg.clubs[c]
    cut = releasable(c, league.season_name(2025))
    assert cut is not None
    cost = league.buyout(cut["contract"]["annual_salary"], cut["contract"]["end_season"])
    add("release-with-buyout",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). You want to release "
        f"{name(cut)}. Before you agree, ask what the buyout will cost the club.",
        gm["email"], {"email": gm["email"], "player": name(cut), "move": "release"},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("make_roster_move", {"club_id": c, "player_id": cut["player_id"], "move": "release"})],
        EmotionCondition("anger", "bitterness", "moderate", "cold", "moderate", "skeptical",
                         "resentful that the player skipped practice twice this month"),
        outputs=[str(cost)])

    # 6. Release one player, then sign a free agent into the freed spot.
    def swap(c: str) -> tuple[Record, Record] | None:
        if lg.active(c) != league.MAX_ACTIVE:
            return None
        for p in lg.roster(c):
            if p["roster_status"] != "active" or p["contract"]["end_season"] != league.SEASON:
                continue
            if league.buyout(p["contract"]["annual_salary"], league.SEASON) > lg.clubs[c]["budget"]:
                continue
            room = lg.cap_space(c) + p["contract"]["annual_salary"]
            fa = next((f for f in lg.free_agents(lambda f: f["injury"]["status"] == "healthy")
                       if f["position"] == p["position"] and f["asking_salary"] <= room
                       and f["player_id"] not in signed), None)
            if fa:
                return p, fa
        return None

    c = lg.club(lambda c: swap(c) is not None)
    gm, club = lg.official(c), lg.clubs[c]
    found = swap(c)
    assert found is not None
    cut, fa = found
    signed.add(fa["player_id"])
    add("release-then-sign",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). Your roster is full. "
        f"Release {name(cut)}, whose contract ends this season, and sign the free-agent {fa['position']} {name(fa)} "
        "in his place for the rest of this season only, at the salary he asks.",
        gm["email"], {"email": gm["email"], "release": name(cut), "sign": name(fa), "contract_years": 1},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("make_roster_move", {"club_id": c, "player_id": cut["player_id"], "move": "release"}),
         Action("list_available_players", {"position": fa["position"]}),
         Action("get_player_details", {"player_id": fa["player_id"]}),
         Action("sign_player", {"club_id": c, "player_id": fa["player_id"], "annual_salary": fa["asking_salary"],
                                "contract_years": 1})],
        EmotionCondition("anger", "exasperation", "intense", "cold", "high", "skeptical",
                         "fed up after a fourth straight loss"))

    # 7. Move a scheduled game a day later, same venue and time; the asking club pays the fee.
    def later(game: Record) -> str | None:
        if (game["status"] != "scheduled" or game["rescheduled"] or game["home_club_id"] in lg.used
                or game["away_club_id"] in lg.used or league.hours_until(game["date"], game["time"]) < 96):
            return None
        day = league.add_days(game["date"], 1)
        return day if lg.movable_to(game, day) else None

    game = next(g for _, g in sorted(lg.games.items()) if later(g))
    new_day = later(game)
    assert new_day is not None
    lg.used.update((game["home_club_id"], game["away_club_id"]))
    gm, club = lg.official(game["home_club_id"]), lg.clubs[game["home_club_id"]]
    away = lg.clubs[game["away_club_id"]]
    add("reschedule-pays-fee",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). Your home game "
        f"{game['game_id']} against the {away['name']} on {game['date']} clashes with a community event; move it "
        f"to {new_day}, same venue, same tip-off time ({game['time']}). Ask whether the club pays anything for "
        "the move.",
        gm["email"], {"email": gm["email"], "game_id": game["game_id"], "new_date": new_day,
                      "new_time": game["time"]},
        [login(gm), Action("get_game_details", {"game_id": game["game_id"]}),
         Action("check_venue_availability", {"venue_id": game["venue_id"], "date": new_day}),
         Action("reschedule_game", {"game_id": game["game_id"], "club_id": game["home_club_id"], "new_date": new_day,
                                    "new_time": game["time"], "venue_id": game["venue_id"]})],
        EmotionCondition("disgust", "distaste", "moderate", "neutral", "moderate", "skeptical",
                         "put off that the city booked a festival outside the arena on game night"),
        outputs=[str(league.RESCHEDULE_FEE)])

    # 8. A postponed game: the first date asked for is taken at the venue, the second is free; no fee.
    def fallback(game: Record) -> tuple[str, str] | None:
        if game["status"] != "postponed" or {game["home_club_id"], game["away_club_id"]} & lg.used:
            return None
        venue = lg.venues[game["venue_id"]]
        for first in sorted(venue["blocked_dates"]):
            second = league.add_days(first, 1)
            if not lg.busy(game["home_club_id"], first) and lg.movable_to(game, second):
                return first, second
        return None

    game = next(g for _, g in sorted(lg.games.items()) if fallback(g))
    choice = fallback(game)
    assert choice is not None
    first_day, second_day = choice
    lg.used.update((game["home_club_id"], game["away_club_id"]))
    gm, club = lg.official(game["away_club_id"]), lg.clubs[game["away_club_id"]]
    home = lg.clubs[game["home_club_id"]]
    add("postponed-second-choice",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). Your away game "
        f"{game['game_id']} at the {home['name']} was postponed ({game['status_note']}). You want it replayed at "
        f"their arena on {first_day} at 19:00; if that day is not possible, on {second_day} at 19:00.",
        gm["email"], {"email": gm["email"], "game_id": game["game_id"], "new_date": [first_day, second_day],
                      "new_time": "19:00"},
        [login(gm), Action("get_game_details", {"game_id": game["game_id"]}),
         Action("check_venue_availability", {"venue_id": game["venue_id"], "date": first_day}),
         Action("check_venue_availability", {"venue_id": game["venue_id"], "date": second_day}),
         Action("reschedule_game", {"game_id": game["game_id"], "club_id": game["away_club_id"],
                                    "new_date": second_day, "new_time": "19:00", "venue_id": game["venue_id"]})],
        EmotionCondition("fear", "anxiety", "moderate", "warm", "moderate", "cautious",
                         "worried the game will never be replayed and the team will lose the points"))

    # 9. Refused: a scheduled game inside the 72-hour window; the caller then asks for a human.
    game = next(g for _, g in sorted(lg.games.items()) if g["status"] == "scheduled" and not g["rescheduled"]
                and league.hours_until(g["date"], g["time"]) < league.NOTICE_HOURS
                and g["home_club_id"] not in lg.used and g["away_club_id"] not in lg.used)
    lg.used.update((game["home_club_id"], game["away_club_id"]))
    gm, club = lg.official(game["away_club_id"]), lg.clubs[game["away_club_id"]]
    wanted = league.add_days(game["date"], 7)
    add("late-reschedule-transfer",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). Two of your players "
        f"have the flu; you want game {game['game_id']} on {game['date']} moved to {wanted}. If the agent says it "
        "cannot be done, insist on speaking to a human at the league office.",
        gm["email"], {"email": gm["email"], "game_id": game["game_id"], "new_date": wanted},
        [login(gm), Action("get_game_details", {"game_id": game["game_id"]}),
         Action("transfer_to_human_agents", {
             "summary": f"{gm['name']}, general manager of {club['name']} ({game['away_club_id']}), asks to move "
                        f"game {game['game_id']} from {game['date']} to {wanted} because of illness; the game is "
                        "inside the 72-hour notice window."})],
        EmotionCondition("anger", "frustration", "intense", "cold", "high", "skeptical",
                         "furious that the rules ignore a flu outbreak in the locker room"))

    # 10. A fan: the cheapest tickets still on sale for a game on a date.
    def cheapest_open(game: Record) -> tuple[str, int] | None:
        tiers = [(t["price"], tier) for tier, t in game["tickets"].items() if t["seats_left"] > 0]
        sold_out_cheapest = game["tickets"]["upper_bowl"]["seats_left"] == 0
        if game["status"] != "scheduled" or not tiers or not sold_out_cheapest:
            return None
        price, tier = min(tiers)
        return tier, price

    game = next(g for _, g in sorted(lg.games.items()) if cheapest_open(g) and g["date"] > "2025-03-01")
    found_tier = cheapest_open(game)
    assert found_tier is not None
    home, away = lg.clubs[game["home_club_id"]], lg.clubs[game["away_club_id"]]
    add("fan-cheapest-seats",
        f"You are a fan. You want to go to the {home['name']} home game against the {away['name']} on "
        f"{game['date']} and want to know the cheapest tickets still available and their price. You buy nothing "
        "through the agent.",
        None, {"date": game["date"], "home": home["name"], "away": away["name"]},
        [Action("list_games_on_date", {"date": game["date"]}), Action("get_ticket_options", {"game_id": game["game_id"]})],
        EmotionCondition("enjoyment", "excitement", "intense", "warm", "low", "trusting",
                         "taking a nephew to his first pro game for his birthday"),
        outputs=[str(found_tier[1])])

    # 11. A fan: who leads a conference (the first one whose leader has more wins than anyone else).
    env = Environment(DOMAIN, DOMAIN.database())

    def standings(conference: str) -> list[Record]:
        return json.loads(env.call("get_conference_standings", {"conference": conference}).output)

    conference = next(c for c in league.CONFERENCES if standings(c)[0]["wins"] > standings(c)[1]["wins"])
    leader = standings(conference)[0]
    add("fan-conference-leader",
        f"You are a fan of the {conference} conference. You want to know which club is top of the "
        f"{conference} standings right now and how many games it has won.",
        None, {"conference": conference},
        [Action("get_conference_standings", {"conference": conference})],
        EmotionCondition("sadness", "discouragement", "mild", "neutral", "low", "trusting",
                         "a fan of a club that has lost most of its games this season"),
        outputs=[leader["name"], str(leader["wins"])])

    # 12. A player asks about his own contract and injury.
    me = next(p for _, p in sorted(lg.players.items()) if p["roster_status"] == "injured_reserve"
              and p["injury"]["status"] == "out" and p["club_id"] not in lg.used)
    lg.used.add(me["club_id"])
    add("player-own-contract",
        f"You are {name(me)}, a player for the {lg.clubs[me['club_id']]['name']}, born {me['date_of_birth']}. You "
        "are on injured reserve and want to know which season your contract runs through and the date the "
        "league has for your expected return. You change nothing.",
        me["player_id"], {"first_name": me["first_name"], "last_name": me["last_name"],
                          "date_of_birth": me["date_of_birth"]},
        [Action("find_player", {"first_name": me["first_name"], "last_name": me["last_name"],
                                "date_of_birth": me["date_of_birth"]}),
         Action("get_player_details", {"player_id": me["player_id"]})],
        EmotionCondition("fear", "dread", "intense", "warm", "moderate", "cautious",
                         "afraid the injury will cost you your next contract"),
        outputs=[me["contract"]["end_season"], me["injury"]["expected_return"]])

    # 13. Refused: activation before the ten-day minimum on injured reserve (nothing changes).
    def too_soon(c: str) -> Record | None:
        return next((p for p in lg.roster(c) if p["roster_status"] == "injured_reserve"
                     and p["injury"]["status"] != "out"
                     and league.days_between(p["ir_since"], league.TODAY) < league.IR_MIN_DAYS), None)

    c = lg.club(lambda c: lg.active(c) < league.MAX_ACTIVE and too_soon(c) is not None)
    gm, club = lg.official(c), lg.clubs[c]
    early = too_soon(c)
    assert early is not None
    add("activation-too-soon",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). {name(early)} feels "
        "fine again and you want him activated from injured reserve today. If the agent refuses, "
        "ask for the first date it will be allowed and accept the answer.",
        gm["email"], {"email": gm["email"], "player": name(early), "move": "activate"},
        [login(gm), Action("get_cap_sheet", {"club_id": c})],
        EmotionCondition("disgust", "aversion", "moderate", "cold", "high", "skeptical",
                         "convinced the league's paperwork rules are absurd"),
        outputs=[league.add_days(early["ir_since"], league.IR_MIN_DAYS)])

    # 14. A fan: the opponent in a club's latest final game.
    c = lg.club(lambda c: True)
    club = lg.clubs[c]
    finals = sorted((g for g in lg.games.values() if g["status"] == "final"
                     and c in (g["home_club_id"], g["away_club_id"])), key=lambda g: (g["date"], g["time"]))
    last = finals[-1]
    rival = lg.clubs[last["away_club_id"] if last["home_club_id"] == c else last["home_club_id"]]
    add("fan-last-result",
        f"You are a fan of the {club['name']}. You missed their most recent game and want to know who they "
        "played and the final score.",
        None, {"club": club["name"]},
        [Action("search_clubs", {"name": club["name"]}), Action("list_club_games", {"club_id": c, "status": "final"})],
        EmotionCondition("sadness", "helplessness", "moderate", "neutral", "moderate", "cautious",
                         "stuck in hospital and unable to follow the team"),
        outputs=[rival["name"]])

    # 15. Injured reserve for a ruled-out player, then a free agent into the freed active spot.
    def ir_and_sign(c: str) -> tuple[Record, Record] | None:
        hurt = ir_candidate(c)
        if hurt is None or lg.active(c) != league.MAX_ACTIVE:
            return None
        fa = next((f for f in lg.free_agents(lambda f: f["injury"]["status"] == "healthy"
                                              and f["position"] == hurt["position"])
                   if f["asking_salary"] <= lg.cap_space(c) and f["player_id"] not in signed), None)
        return (hurt, fa) if fa else None

    c = lg.club(lambda c: ir_and_sign(c) is not None)
    gm, club = lg.official(c), lg.clubs[c]
    pair = ir_and_sign(c)
    assert pair is not None
    hurt, fa = pair
    signed.add(fa["player_id"])
    add("reserve-and-replace",
        f"You are {gm['name']}, general manager of the {club['name']} (email {gm['email']}). {name(hurt)} is ruled "
        f"out ({hurt['injury']['description']}). Put him on injured reserve and sign the free-agent "
        f"{fa['position']} {name(fa)} for this season only at the salary he asks.",
        gm["email"], {"email": gm["email"], "reserve": name(hurt), "sign": name(fa), "contract_years": 1},
        [login(gm), Action("get_cap_sheet", {"club_id": c}),
         Action("make_roster_move", {"club_id": c, "player_id": hurt["player_id"], "move": "injured_reserve"}),
         Action("list_available_players", {"position": fa["position"]}),
         Action("get_player_details", {"player_id": fa["player_id"]}),
         Action("sign_player", {"club_id": c, "player_id": fa["player_id"], "annual_salary": fa["asking_salary"],
                                "contract_years": 1})],
        EmotionCondition("fear", "desperation", "intense", "neutral", "high", "trusting",
                         "about to forfeit Saturday's game without a fourth player"))

    return TaskSet("basketball", tasks, provenance={"generator": "domains/basketball/make_starter.py",
                                                   "seed": DOMAIN.default_seed})


if __name__ == "__main__":
    sys.exit(starter.main(DOMAIN, build))
