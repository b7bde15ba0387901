"""The league's fixed facts and rules, in one place: the tools enforce the hard ones, the generator
builds data that obeys them, and `policy.md` states them in words (a test checks they agree)."""

from __future__ import annotations

from datetime import date, datetime

TODAY = "2025-02-20"  # a Thursday
NOW = "12:00"  # league time (US Eastern)
SEASON = "2024-25"
SEASON_START = "2024-11-01"
SEASON_END = "2025-04-27"  # last day of the regular season
TRANSFER_DEADLINE = "2025-03-06"  # last day a player may move between clubs (policy)

SALARY_CAP = 450_000  # a club's total yearly salaries, active and injured reserve
MIN_SALARY = 40_000
MAX_CONTRACT_YEARS = 3
MAX_ACTIVE = 4  # 3x3: three on court and one substitute
MIN_ACTIVE = 3  # policy: a move may not leave a club unable to field a team
MAX_INJURED_RESERVE = 2
IR_MIN_DAYS = 10  # policy: days on injured reserve before a player may be activated
NOTICE_HOURS = 72  # policy: a club's reschedule request comes this long before tip-off
RESCHEDULE_FEE = 2_500  # charged to the club that asks; none for a game the league postponed

CONFERENCES = ("Atlantic", "Northeast", "Capital", "Southeast", "Gulf", "Great Lakes", "Central", "Plains",
               "Mountain", "Southwest", "Pacific", "Northwest")
TICKET_TIERS = ("courtside", "lower_bowl", "upper_bowl")


def parse_date(text: str) -> date:
    return date.fromisoformat(text)


def days_between(start: str, end: str) -> int:
    return (parse_date(end) - parse_date(start)).days


def hours_until(day: str, time: str) -> float:
    """Hours from now (TODAY at NOW) until `day` at `time`."""
    now = datetime.fromisoformat(f"{TODAY}T{NOW}")
    return (datetime.fromisoformat(f"{day}T{time}") - now).total_seconds() / 3600


def season_name(start_year: int) -> str:
    return f"{start_year}-{(start_year + 1) % 100:02d}"


def contract_end_season(years: int) -> str:
    """The last season of a contract signed now for `years` seasons (the current one counts)."""
    return season_name(int(SEASON[:4]) + years - 1)


def seasons_remaining(end_season: str) -> int:
    """Seasons a contract still covers, the current one included."""
    return int(end_season[:4]) - int(SEASON[:4]) + 1


def buyout(annual_salary: int, end_season: str) -> int:
    """What a club pays to release a player: half his salary for every season left, this one included."""
    return annual_salary * seasons_remaining(end_season) // 2
