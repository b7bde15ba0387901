"""How a club's staff ask the league desk for each goal: the words (players, salaries, games), the
stage-4 triggers, and the `SAY` side of `BasketballHints` (its goals' intents)."""

from __future__ import annotations

import random
import weakref
from typing import Any

from tauplay.tracer.facts import Fact, answer, fact, words
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext

from ..common_reads import must_get
from ..common_tracer import persona_of
from . import league
from .action_rules import minimum_salary, name_of

TRIGGERS = {
    "sign": {
        "enjoyment": ["thrilled to finally land {player}", "excited to have {player} in the lineup for "
                      "the next game"],
        "fear": ["worried another club will sign {player} first", "nervous the club will not have a full "
                 "lineup without {player}"],
        "anger": ["annoyed that the signing of {player} has dragged on for days"],
        "sadness": ["down after a losing run and hoping {player} turns it around"],
        "disgust": ["put off by how much agents ask for players like {player}"],
    },
    "transfer": {
        "enjoyment": ["delighted that the {seller} finally listed {player}"],
        "fear": ["anxious the deal for {player} will fall through before the transfer deadline"],
        "anger": ["irritated at the fee the {seller} want for {player}"],
        "sadness": ["sad to be spending the budget on a transfer after losing two starters"],
        "disgust": ["fed up with haggling with the {seller} over {player}"],
    },
    "reserve": {
        "sadness": ["losing {player} for weeks in the middle of the season"],
        "fear": ["worried the team will not have enough healthy players without {player}"],
        "anger": ["angry that {player} got hurt in a practice that should never have gone ahead"],
        "disgust": ["disgusted by the rough foul that injured {player}"],
        "enjoyment": ["relieved that the doctors caught {player}'s injury early"],
    },
    "activate": {
        "enjoyment": ["excited to have {player} back on court", "happy that {player} recovered ahead of "
                      "schedule"],
        "fear": ["anxious to get {player} back before the next game"],
        "anger": ["frustrated that {player} has been sitting out longer than needed"],
        "sadness": ["weary after weeks of losing while {player} was out"],
        "disgust": ["fed up with the paperwork keeping {player} off the court"],
    },
    "release": {
        "sadness": ["sad to let {player} go after years with the club"],
        "anger": ["angry that {player} skipped practice again"],
        "disgust": ["disgusted by {player}'s behaviour at the last game"],
        "fear": ["worried about what the buyout for {player} will do to the budget"],
        "enjoyment": ["relieved to finally make room on the roster"],
    },
    "reschedule": {
        "anger": ["annoyed that the game against the {opponent} has to move at all"],
        "fear": ["worried the game against the {opponent} will not find a new date"],
        "sadness": ["disappointed for the fans who planned around the game against the {opponent}"],
        "disgust": ["put off by how the league handled the game against the {opponent}"],
        "enjoyment": ["pleased that a better date for the game against the {opponent} is free"],
    },
}

Record = dict[str, Any]
HOME_REASONS = ("because your arena has a conflict that day", "because of a clash with a club event",
                "because the city has a festival outside your arena that day")
AWAY_REASONS = ("because two of your players are away on national team duty that week",
                "because your travel to the game fell through", "because of a clash with a club event")


def _count(n: int) -> str:
    return ("zero", "one", "two", "three")[n]


def _salary_fact(amount: int) -> Fact:
    return fact("annual_salary", amount, f"${amount:,}", f"{amount:,}")


class BasketballPhrasing(TracerHints):
    """The user's side of `BasketballHints`: how each goal is asked for."""

    def __init__(self) -> None:
        # The caller of each trace under construction (cast by `BasketballHints.persona`). A trace has its
        # own random generator, which is all `opening` receives with the club, so the caller is filed under it.
        self._caller: weakref.WeakKeyDictionary[random.Random, Record] = weakref.WeakKeyDictionary()

    def _me(self, ctx: TraceContext) -> Record:
        return self._caller[ctx.rng]

    def opening(self, persona: dict[str, Any], persona_id: str, rng: random.Random) -> str | None:
        me = self._caller.get(rng)
        if me is None:
            return None
        role, club = words(me["role"]), persona["name"]
        return rng.choice((
            f"You are {me['name']}, {role} of the {club}; the league has your email as {me['email']}.",
            f"You are {me['name']}, the {role} of the {club} (your email on file: {me['email']}).",
            f"You are {me['name']} and you work as {role} of the {club}. If asked to identify yourself, give "
            f"your email, {me['email']}.",
        ))

    def intent(self, tool: str, args: dict[str, Any], ctx: TraceContext) -> Intent | None:
        me = self._me(ctx)
        intent = self.said(tool, args, ctx)
        intent.facts.insert(0, fact("email", me["email"]))
        intent.known.update(email=me["email"], role=me["role"])  # the policy check needs the caller
        return intent

    @says("sign_player")
    def _say_sign(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        player = ctx.database.tables["players"][args["player_id"]]
        who, salary, years = name_of(player), args["annual_salary"], args["contract_years"]
        facts: list[Fact] = [fact("player", who), _salary_fact(salary),
                             fact("contract_years", years, f"{_count(years)} season" + ("s" if years > 1 else ""))]
        term = f"for {_count(years)} season" + ("s" if years > 1 else "") + f" at ${salary:,} a year"
        last = league.contract_end_season(years)
        answers: list[str] = []
        if player["roster_status"] == "free_agent":
            action = f"sign the free-agent {player['position']} {who}"
            at_ask = salary == minimum_salary(player)
            details = [rng.choice((f"Offer him a contract {term}.", f"You want him on a contract {term}.")),
                       "That is exactly what he is asking." if at_ask else "That is a little above his asking "
                       "salary, to make sure he says yes."]
            situation, slots = "sign", {"player": who}
        else:
            seller = ctx.database.tables["clubs"][player["club_id"]]["name"]
            action = f"bring in {who}, the {player['position']} the {seller} have listed for transfer"
            details = [f"Offer him a new contract {term}.",
                       "Your club pays the listed transfer fee; ask how much it is before you agree."]
            answers = [answer(ctx.output_of("sign_player")["transaction"]["amount"])]
            situation, slots = "transfer", {"player": who, "seller": seller}
        details.append(rng.choice((f"The contract would run through the {last} season.",
                                   "If the agent asks, you have an open spot on the active roster.")))
        return Intent("sign_player", action, details, facts=facts, situation=situation,
                      subject=f"the signing of {who}", slots=slots, answers=answers)

    @says("make_roster_move")
    def _say_move(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng = ctx.rng
        start = ctx.database.tables["players"][args["player_id"]]  # as the caller knew him before the call
        who, move = name_of(start), args["move"]
        injury = start["injury"]
        answers: list[str] = []
        if move == "injured_reserve":
            facts = [fact("player", who), fact("move", move)]
            action = f"put {who} on injured reserve"
            reason = f"because he is ruled out ({injury['description']})"
            details = [rng.choice(("He stays with the club; you only need his active spot freed for now.",
                                   "You know his salary stays on the cap."))]
            situation = "reserve"
        elif move == "activate":
            facts = [fact("player", who), fact("move", move, "activated", "active roster", "back from injured reserve")]
            action = f"bring {who} back from injured reserve to the active roster"
            reason = "because the doctors have cleared him" if injury["status"] == "healthy" else \
                "because he is only day to day now and can play"
            details = [f"He has been on injured reserve since {start['ir_since']}."]
            situation = "activate"
        else:
            facts = [fact("player", who), fact("move", move, "released", "releasing")]
            action = f"release {who}"
            reason = rng.choice(("to free up his roster spot", "because he no longer fits the team's plans"))
            details = ["You know the club owes him a buyout; ask how much before you agree, and accept it."]
            answers = [answer(ctx.output_of("make_roster_move")["transaction"]["amount"])]
            situation = "release"
        return Intent("make_roster_move", action, details, reason=reason, facts=facts, situation=situation,
                      subject=f"{who}'s roster move", slots={"player": who}, answers=answers)

    @says("reschedule_game")
    def _say_reschedule(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        rng, target = ctx.rng, ctx.goal.target
        game = ctx.database.tables["games"][args["game_id"]]
        state = ctx.state
        home = game["home_club_id"] == ctx.persona_id
        opponent = must_get(state, "clubs", game["away_club_id" if home else "home_club_id"])["name"]
        where = "home" if home else "away"
        facts: list[Fact] = [fact("opponent", opponent)]
        if target["by_id"]:
            facts.append(fact("game_id", args["game_id"]))
            what = f"your {where} game {args['game_id']} against the {opponent}"
        else:
            facts.append(fact("date", game["date"]))
            what = f"your {where} game against the {opponent} on {game['date']}"
        facts += [fact("new_date", args["new_date"]), fact("new_time", args["new_time"])]
        if game["status"] == "postponed":
            reason = f"since it was postponed ({game['status_note']})"
            action = f"give {what} a new date"
        else:
            reason = rng.choice(HOME_REASONS if home else AWAY_REASONS)
            action = f"move {what}"
        when = f"on {args['new_date']} at {args['new_time']}" + (" (its usual tip-off time)"
                                                                 if args["new_time"] == game["time"] else "")
        if args["venue_id"] == game["venue_id"]:
            place = "at the same venue"
        else:
            venue = must_get(state, "venues", args["venue_id"])["name"]
            facts.append(fact("venue", venue))
            mine = persona_of(ctx)["home_venue_id"] == args["venue_id"]
            place = f"at your own home arena, {venue}" if mine else f"at their home arena, {venue}"
        details = [f"You want it played {when}, {place}.",
                   "If the agent mentions a fee, accept it." if game["status"] == "scheduled"
                   else "You expect no fee, since the league postponed it."]
        return Intent("reschedule_game", action, details, reason=reason, facts=facts, situation="reschedule",
                      subject=f"the game against the {opponent}", slots={"opponent": opponent})
