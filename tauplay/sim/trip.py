"""The gated agent on a travel constraint task (a trip of hotel stays under rules, `tauplay generate --domain
travel --kind constraint`): it works from what the person says, never from the task's rules or gold.

It reads the traveller's wishes from their messages (the cities in order, the arrival date, the nights, a star
floor, amenities, the kind of room for each stay; who travels, the budget, the rate, travel protection, the card)
and asks, in plain words and one at a time, for the first one it still lacks, so a traveller who says little
(RUSE's minimal disclosure) is asked more. A wish the person says they do not have ("no particular wish about the
stars") is remembered as none. With everything known it identifies the traveller by e-mail, searches each stay
(each starting the day the one before ends), reads the details of the hotels it would pick when amenities
matter, takes the cheapest room that meets what was said, checks the total against the budget (a later arrival
date inside a stated window when the first does not fit), puts the whole trip with its total to the person and
books it, one stay per call, on a clear yes.

The task's kind chooses this way of working (a harness telling the agent which desk it sits at); what to book
comes only from the conversation and the tools' outputs. Like every participant it keeps no state: each move is
worked out again from the event stream.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from tauplay.core.events import MessageData, ToolCallData, ToolResultData
from tauplay.core.vocabulary import EventKind, Role
from tauplay.sim.participants import AgentAction, CallTools, Conversation, PlannedCall, Say

TOOLS = ("find_traveller_by_email", "get_traveller_details", "search_hotels", "get_hotel_details", "create_booking")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
ANY = "any"  # the person has no wish about this
PROTECTION_PER_TRAVELLER = 40  # the policy's figure ($40 per traveller), stated in the policy the agent reads
MAX_ASKS = 3  # the same question this often without an answer: an optional wish is taken as none

_MONTHS = ("january february march april may june july august september october november december").split()
_DATE = re.compile(r"\b(?:(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})|(\d{4})-(\d{2})-(\d{2}))\b",
                   re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+\w")
_ORDINAL_STAY = re.compile(r"\b(" + "|".join(ORDINALS) + r")\s+stay\s+is\s+in\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
_COUNT = re.compile(r"\b(\d+)[- ]city\s+trip\b|\b(\d+)\s+(?:hotel\s+)?stays\b", re.IGNORECASE)
_NIGHTS = re.compile(r"\b(\d+)\s+nights?\b", re.IGNORECASE)
_STARS = re.compile(r"\b(\d)\s+stars?\b", re.IGNORECASE)
_AMENITY = re.compile(r"\blists\s+(.+?)\s+among\s+its\s+amenities\b|\bmust\s+have\s+(?:a\s+|an\s+)?([a-z0-9 -]+)",
                      re.IGNORECASE)
_ROOM = re.compile(r"\bI\s+(?:want|would like|'d like)\s+an?\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)")
_BUDGET = re.compile(r"(?:at most|budget (?:is|of)|no more than|up to)\s+\$\s?([\d,]+(?:\.\d+)?)", re.IGNORECASE)
_RATE = re.compile(r"\b(flexible|saver)\s+rate\b", re.IGNORECASE)
_NO_PROTECTION = re.compile(r"\b(?:without|no)\s+(?:travel\s+)?protection\b", re.IGNORECASE)
_PROTECTION = re.compile(r"\bwith\s+(?:travel\s+)?protection\b", re.IGNORECASE)
_CARD = re.compile(r"\b(visa|mastercard|american express|amex)\b[^.]*?\bending\s+in\s+(\d{4})\b", re.IGNORECASE)
_ALONE = re.compile(r"\btravell?ing alone\b|\bjust me\b|\bonly me\b", re.IGNORECASE)
_WITH = re.compile(r"\btravel(?:l?ing)?\s+with\s+(.+?)(?:\s*\(|[.;!]|$)", re.IGNORECASE)
_NO_WISH = re.compile(r"\bno (?:particular )?(?:wish|preference)\b|\bany\b.*\bwill do\b|\bdon'?t mind\b|"
                      r"\bdoesn'?t matter\b", re.IGNORECASE)
_YES = re.compile(r"^\W*(yes|yeah|yep|sure|ok|okay|go ahead|please do|do it|confirm(ed)?|absolutely|of course)\b",
                  re.IGNORECASE)
_NO = re.compile(r"^\W*(no|nope|don'?t|do not|stop|cancel)\b", re.IGNORECASE)
_WANTS_TRIP = re.compile(r"\b(book|booking|trip|stay|stays|hotel|hotels)\b", re.IGNORECASE)
_BRANDS = {"amex": "american express", "american express": "american express", "visa": "visa",
           "mastercard": "mastercard"}


def applies(conversation: Conversation) -> bool:
    """A travel constraint task, in a domain with the tools this way of working uses."""
    return conversation.task.constraints is not None and all(t in conversation.domain.tool_map for t in TOOLS)


# -- what the person said ---------------------------------------------------------------------------------

@dataclass
class Stay:
    city: str | None = None
    arrive: list[str] | None = None  # [earliest, latest] ISO dates (a single date twice)
    nights: int | None = None
    stars: int | str | None = None  # a floor, ANY, or None (not said)
    amenities: list[str] | str | None = None  # the ones wanted, ANY, or None
    room: str | None = None  # a room's name as said ("Deluxe King"), ANY, or None


@dataclass
class Wishes:
    count: int | None = None
    stays: dict[int, Stay] = field(default_factory=dict)
    email: str | None = None
    party: list[str] | None = None  # companions' names as said; [] alone
    budget: float | str | None = None
    rate: str | None = None
    protection: bool | None = None
    card: tuple[str, str] | None = None  # (brand, last four)

    def stay(self, k: int) -> Stay:
        return self.stays.setdefault(k, Stay())

    def index_of(self, city: str) -> int | None:
        return next((k for k, s in sorted(self.stays.items()) if s.city and s.city.lower() == city.lower()), None)


def _iso(m: re.Match[str]) -> str | None:
    try:
        if m.group(1):
            return date(int(m.group(3)), _MONTHS.index(m.group(1).lower()) + 1, int(m.group(2))).isoformat()
        return date(int(m.group(4)), int(m.group(5)), int(m.group(6))).isoformat()
    except ValueError:
        return None


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _cities_in(text: str, wishes: Wishes) -> list[int]:
    """The stays whose city the text names (longest names first, so 'New York' is not 'York')."""
    found: list[tuple[int, int]] = []
    for k, s in wishes.stays.items():
        if s.city and (m := re.search(rf"\b{re.escape(s.city)}\b", text, re.IGNORECASE)):
            found.append((m.start(), k))
    return [k for _, k in sorted(found)]


def _about(text: str, wishes: Wishes) -> int | None:
    """The stay a message is about: an ordinal stay, else the first city it names."""
    if m := re.search(r"\b(" + "|".join(ORDINALS) + r")\s+stay\b", text, re.IGNORECASE):
        return ORDINALS.index(m.group(1).lower())
    named = _cities_in(text, wishes)
    return named[0] if named else None


def read_wishes(conversation: Conversation) -> Wishes:
    """Everything the person has said about the trip, each user message read in the light of the agent's message
    before it (an answer 'I arrive there on August 8, 2025' is about the city that question named)."""
    wishes = Wishes()
    context: int | None = None
    asked: str | None = None  # what the agent's question before this message was about
    for e in conversation.events:
        if e.kind != EventKind.MESSAGE:
            continue
        m = e.as_(MessageData)
        if e.role == Role.AGENT:
            context = _about(m.content, wishes) if m.intent == "ask" else None
            asked = next((f for f, p in _ASKED if p.search(m.content)), None) if m.intent == "ask" else None
            continue
        if e.role != Role.USER:
            continue
        current = context
        before = _snapshot(wishes)
        for sentence in _sentences(m.content):
            _read_sentence(sentence, wishes, current)
            named = _cities_in(sentence, wishes)
            if (o := _ORDINAL_STAY.search(sentence)) is not None:
                current = ORDINALS.index(o.group(1).lower())
            elif named:
                current = named[0]
        if _snapshot(wishes) == before and asked is not None:
            _short_answer(m.content, asked, wishes, context)
    return wishes


def _snapshot(wishes: Wishes) -> str:
    """What is known, for telling whether a message added anything (an empty stay made on the way is nothing)."""
    stays = {k: s for k, s in wishes.stays.items() if s != Stay()}
    return repr((stays, wishes.count, wishes.email, wishes.party, wishes.budget, wishes.rate, wishes.protection,
                 wishes.card))


# What an agent's question asks for (its own questions' words), for a short answer that names nothing else.
_ASKED = tuple((f, re.compile(p, re.IGNORECASE)) for f, p in (
    ("city", r"^Where is your"), ("arrive", r"\bwhat date do you arrive\b"), ("nights", r"\bhow many nights\b"),
    ("stars", r"\bhow many stars\b"), ("amenities", r"\bany amenity\b"), ("room", r"\bwhat kind of room\b"),
    ("budget", r"\byour budget\b")))
_FILLER = re.compile(r"^\W*(?:(?:it|the hotel|i|we)\s+(?:needs?|must have|want|would like|'d like)\s+|"
                     r"(?:an?|the)\s+|please\s+)+", re.IGNORECASE)


def _short_answer(text: str, asked: str, wishes: Wishes, k: int | None) -> None:
    """A reply of a few words to the agent's own question ("pool", "5", "a Deluxe King", "Lisbon"), read as the
    answer to it; a longer one that states nothing known is left alone (it may be about something else)."""
    bare = text.strip().rstrip(".!")
    if not bare or len(bare.split()) > 5:
        return
    number = re.search(r"\d[\d,]*(?:\.\d+)?", bare)
    dates = [d for d in (_iso(m) for m in _DATE.finditer(bare)) if d]
    if asked == "budget":
        if number is not None:
            wishes.budget = float(number.group().replace(",", ""))
        return
    if k is None:
        return
    stay = wishes.stay(k)
    if asked == "city" and bare[:1].isupper():
        stay.city = bare
    elif asked == "arrive" and dates:
        stay.arrive = [min(dates), max(dates)]
    elif asked == "nights" and number is not None and "," not in number.group():
        stay.nights = int(float(number.group()))
    elif asked == "stars" and number is not None and number.group().isdigit():
        stay.stars = int(number.group())
    elif asked == "amenities":
        wanted = [a.strip().lower() for a in re.split(r",\s*|\s+and\s+", _FILLER.sub("", bare)) if a.strip()]
        stay.amenities = wanted or None
    elif asked == "room":
        stay.room = _FILLER.sub("", bare).strip() or None


def _read_sentence(sentence: str, wishes: Wishes, current: int | None) -> None:
    low = sentence.lower()
    if (m := _EMAIL.search(sentence)) is not None:
        wishes.email = m.group().rstrip(".")
    if (m := _COUNT.search(sentence)) is not None:
        wishes.count = int(m.group(1) or m.group(2))
    if (m := _ORDINAL_STAY.search(sentence)) is not None:
        wishes.stay(ORDINALS.index(m.group(1).lower())).city = m.group(2).strip()
        return
    named = _cities_in(sentence, wishes)
    k = named[0] if named else current
    if "starts the day" in low or "the day i leave" in low:
        return  # stays follow one another: the way this agent plans them anyway
    if _NO_WISH.search(sentence):
        if "budget" in low or "cost" in low:
            wishes.budget = ANY
        elif k is not None:
            stay = wishes.stay(k)
            if "star" in low:
                stay.stars = ANY
            if "amenit" in low:
                stay.amenities = ANY
            if "room" in low:
                stay.room = ANY
        return
    if (m := _BUDGET.search(sentence)) is not None and ("stays" in low or "budget" in low or "in all" in low
                                                          or "together" in low or "total" in low):
        wishes.budget = float(m.group(1).replace(",", ""))
    if (m := _RATE.search(sentence)) is not None:
        wishes.rate = m.group(1).lower()
    if _NO_PROTECTION.search(sentence):
        wishes.protection = False
    elif _PROTECTION.search(sentence):
        wishes.protection = True
    if (m := _CARD.search(sentence)) is not None:
        wishes.card = (_BRANDS[m.group(1).lower()], m.group(2))
    if _ALONE.search(sentence):
        wishes.party = []
    elif (m := _WITH.search(sentence)) is not None and "stay" not in m.group(1).lower():
        wishes.party = [n.strip() for n in re.split(r",\s*|\s+and\s+", m.group(1)) if n.strip()]
    if k is None:
        return
    stay = wishes.stay(k)
    dates = [d for d in (_iso(m) for m in _DATE.finditer(sentence)) if d]
    if dates and re.search(r"\barriv|\bcheck[- ]?in\b", low):
        stay.arrive = [min(dates), max(dates)]
    if (m := _NIGHTS.search(sentence)) is not None and ("stay" in low or "night" in low):
        stay.nights = int(m.group(1))
    if (m := _STARS.search(sentence)) is not None:
        stay.stars = int(m.group(1))
    if (m := _AMENITY.search(sentence)) is not None:
        wanted = (m.group(1) or m.group(2) or "").strip().rstrip(".").lower()
        if wanted:
            have = stay.amenities if isinstance(stay.amenities, list) else []
            stay.amenities = [*have, *([wanted] if wanted not in have else [])]
    if (m := _ROOM.search(sentence)) is not None:
        stay.room = m.group(1).strip()


# -- what is still to ask -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ask:
    key: str  # what it is about, e.g. "stars:2"
    text: str
    optional: bool  # asked MAX_ASKS times unanswered: taken as no wish


def _questions(w: Wishes) -> list[Ask]:
    """The questions still open, in the order a travel agent goes through them."""
    out: list[Ask] = []
    if w.count is None and not w.stays:
        out.append(Ask("count", "How many hotel stays would you like to book, and in which cities?", False))
    count = w.count if w.count is not None else (max(w.stays) + 1 if w.stays else 0)
    for k in range(count):
        stay = w.stays.get(k, Stay())
        if stay.city is None:
            out.append(Ask(f"city:{k}", f"Where is your {ORDINALS[k]} stay? Which city would you like to stay in?",
                           False))
            continue
        city = stay.city
        if k == 0 and stay.arrive is None:
            out.append(Ask("arrive:0", f"On what date do you arrive in {city}?", False))
        if stay.nights is None:
            out.append(Ask(f"nights:{k}", f"How many nights will you stay in {city}?", False))
        if stay.stars is None:
            out.append(Ask(f"stars:{k}", f"How many stars should the hotel in {city} have at least?", True))
        if stay.amenities is None:
            out.append(Ask(f"amenities:{k}", f"Is there any amenity the hotel in {city} must have?", True))
        if stay.room is None:
            out.append(Ask(f"room:{k}", f"What kind of room would you like in {city}?", True))
    if w.party is None:
        out.append(Ask("party", "Will anyone be travelling with you, or are you travelling alone?", True))
    if w.budget is None:
        out.append(Ask("budget", "What is your budget for all the stays together?", True))
    if w.rate is None or w.protection is None or w.card is None:
        out.append(Ask("payment", "How would you like to pay: the flexible or the saver rate, with or without "
                                  "travel protection, and with which card?", False))
    return out


def _asked(conversation: Conversation, text: str) -> int:
    return sum(1 for m in conversation.said("agent") if m.intent == "ask" and m.content == text)


def _give_defaults(w: Wishes, conversation: Conversation) -> list[Ask]:
    """Open questions, with the optional ones asked MAX_ASKS times without an answer taken as no wish."""
    left = []
    for q in _questions(w):
        if q.optional and _asked(conversation, q.text) >= MAX_ASKS:
            kind, _, k = q.key.partition(":")
            if kind == "party":
                w.party = []
            elif kind == "budget":
                w.budget = ANY
            else:
                stay = w.stay(int(k))
                setattr(stay, {"stars": "stars", "amenities": "amenities", "room": "room"}[kind], ANY)
            continue
        left.append(q)
    return left


# -- what the tools showed --------------------------------------------------------------------------------

def _outputs(conversation: Conversation) -> list[tuple[ToolCallData, ToolResultData]]:
    calls = {e.as_(ToolCallData).call_id: e.as_(ToolCallData) for e in conversation.events
             if e.kind == EventKind.TOOL_CALL}
    out = []
    for e in conversation.events:
        if e.kind == EventKind.TOOL_RESULT:
            r = e.as_(ToolResultData)
            if r.call_id in calls:
                out.append((calls[r.call_id], r))
    return out


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text.strip().strip('"')


def _made(conversation: Conversation, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """(made, its output) for a call with exactly these arguments."""
    for call, result in _outputs(conversation):
        if call.name == name and call.arguments == arguments:
            return True, (None if result.error else _json(result.output))
    return False, None


def _call(conversation: Conversation, name: str, arguments: dict[str, Any]) -> CallTools:
    return CallTools([PlannedCall(name, arguments, f"trip_{name}_{len(conversation.events)}")])


def _shift(iso: str, days: int) -> str:
    return (date.fromisoformat(iso) + timedelta(days=days)).isoformat()


def _dates(first: str, last: str) -> list[str]:
    out, d = [], first
    while d <= last:
        out.append(d)
        d = _shift(d, 1)
    return out


def _money(x: float) -> str:
    return f"${x:,.2f}"


@dataclass(frozen=True)
class Pick:
    city: str
    hotel_id: str
    hotel: str
    stars: int
    room_type: str
    room: str
    check_in: str
    check_out: str
    nights: int
    price: float


class Need(Exception):
    """A plan needs a call first (a search, a hotel's details)."""

    def __init__(self, call: CallTools) -> None:
        super().__init__("a call is needed")
        self.call = call


def _same_name(said: str, name: str, code: str) -> bool:
    def flat(t: str) -> str:
        return " ".join(re.findall(r"[a-z0-9]+", t.lower()))
    return flat(said) in (flat(name), flat(code))


def _pick(conversation: Conversation, w: Wishes, k: int, check_in: str, people: int) -> Pick | None:
    stay = w.stays[k]
    assert stay.city is not None and stay.nights is not None
    check_out = _shift(check_in, stay.nights)
    args = {"city": stay.city, "check_in": check_in, "check_out": check_out}
    made, hotels = _made(conversation, "search_hotels", args)
    if not made:
        raise Need(_call(conversation, "search_hotels", args))
    if not isinstance(hotels, list):
        return None
    options: list[Pick] = []
    for h in hotels:
        if isinstance(stay.stars, int) and h.get("stars", 0) < stay.stars:
            continue
        for r in h.get("room_types", []):
            if not r.get("available") or r.get("capacity", 0) < people:
                continue
            if stay.room not in (None, ANY) and not _same_name(str(stay.room), r.get("name", ""), r["room_type"]):
                continue
            price = float(r["total_saver"] if w.rate == "saver" else r["total_flexible"])
            price += PROTECTION_PER_TRAVELLER * people if w.protection else 0
            options.append(Pick(stay.city, h["hotel_id"], h.get("name", h["hotel_id"]), h.get("stars", 0),
                                r["room_type"], r.get("name", r["room_type"]), check_in, check_out, stay.nights,
                                round(price, 2)))
    options.sort(key=lambda p: (p.price, p.hotel_id, p.room_type))
    wanted = stay.amenities if isinstance(stay.amenities, list) else []
    for p in options:
        if not wanted:
            return p
        made, details = _made(conversation, "get_hotel_details", {"hotel_id": p.hotel_id})
        if not made:
            raise Need(_call(conversation, "get_hotel_details", {"hotel_id": p.hotel_id}))
        have = [str(a).lower() for a in (details or {}).get("amenities", [])] if isinstance(details, dict) else []
        if all(a in have for a in wanted):
            return p
    return None


def _plan(conversation: Conversation, w: Wishes, people: int) -> list[Pick] | None:
    """The cheapest stays meeting what was said, back to back from the first arrival date that keeps the total
    within the budget; None when no arrival date gives one."""
    first = w.stays[0].arrive or []
    for start in _dates(first[0], first[-1]) if first else []:
        picks: list[Pick] = []
        day = start
        for k in range(len(w.stays)):
            p = _pick(conversation, w, k, day, people)
            if p is None:
                break
            picks.append(p)
            day = p.check_out
        else:
            total = sum(p.price for p in picks)
            if not isinstance(w.budget, float | int) or total <= w.budget + 1e-9:
                return picks
    return None


# -- the move ----------------------------------------------------------------------------------------------

def _proposal(picks: list[Pick], w: Wishes, card: str) -> str:
    lines = [f"{i + 1}) {p.city}: {p.hotel} ({p.hotel_id}, {p.stars} stars), {p.room}, {p.check_in} to "
             f"{p.check_out} ({p.nights} nights), {_money(p.price)}" for i, p in enumerate(picks)]
    total = sum(p.price for p in picks)
    budget = f", within your budget of {_money(float(w.budget))}" if isinstance(w.budget, float | int) else ""
    protection = "with travel protection" if w.protection else "without travel protection"
    return (f"Here is the trip I found: {'; '.join(lines)}. The total is {_money(total)}{budget}, on the "
            f"{w.rate} rate, {protection}, paid with the card {card}. I would create {len(picks)} bookings, one "
            "per stay. Shall I go ahead and book them? Please answer yes or no.")


def act(conversation: Conversation) -> AgentAction | None:
    """The next move on a travel constraint task; None leaves the move to the gated agent's usual way (nothing
    asked for yet that this desk handles)."""
    users = [m.content for m in conversation.said("user")]
    if not any(_WANTS_TRIP.search(t) for t in users):
        if users and not any(m.intent == "ask" and "help" in m.content for m in conversation.said("agent")):
            return Say("Of course. What can I help you with?", intent="ask")
        return None
    w = read_wishes(conversation)
    # Identify the traveller first (policy), with the e-mail they gave.
    if w.email is None:
        return _ask(conversation, Ask("email", "Could you tell me the email address on your profile, so I can "
                                               "find you?", False))
    made, traveller_id = _made(conversation, "find_traveller_by_email", {"email": w.email})
    if not made:
        return _call(conversation, "find_traveller_by_email", {"email": w.email})
    if not isinstance(traveller_id, str) or not traveller_id:
        return Say(f"I could not find a profile with the email {w.email}. Could you check the email address?",
                   intent="ask")
    made, profile = _made(conversation, "get_traveller_details", {"traveller_id": traveller_id})
    if not made:
        return _call(conversation, "get_traveller_details", {"traveller_id": traveller_id})
    if not isinstance(profile, dict):
        return Say("I'm sorry, I could not read your profile, so I cannot book the trip.", intent="giveup")
    left = _give_defaults(w, conversation)
    if left:
        return _ask(conversation, left[0])
    # Who travels, and with which card: from the profile, as the person named them.
    guests = []
    for name in w.party or []:
        found = next((c for c in profile.get("companions", [])
                      if f"{c['first_name']} {c['last_name']}".lower() == name.lower()), None)
        if found is None:
            return Say(f"I cannot find {name} among the companions saved in your profile. Could you check the "
                       "name?", intent="ask")
        guests.append(dict(found))
    assert w.card is not None
    brand, last_four = w.card
    card_id = next((k for k, m in profile.get("payment_methods", {}).items()
                    if m.get("last_four") == last_four and _BRANDS.get(str(m.get("brand", "")).lower(),
                                                                       str(m.get("brand", "")).lower()) == brand),
                   None)
    if card_id is None:
        return Say(f"I cannot find a {brand.title()} card ending in {last_four} in your profile. Which card would "
                   "you like to pay with?", intent="ask")
    try:
        picks = _plan(conversation, w, 1 + len(guests))
    except Need as need:
        return need.call
    if not picks:
        if any(m.intent == "giveup" for m in conversation.said("agent")):
            return Say("Is there anything else I can help you with?", intent="more")
        return Say("I'm sorry: I could not find stays that meet everything you asked for"
                   + (" within your budget" if isinstance(w.budget, float | int) else "") + ".", intent="giveup")
    booked = _booked(conversation)
    todo = [p for p in picks if (p.hotel_id, p.room_type, p.check_in) not in booked]
    args = [{"traveller_id": traveller_id, "hotel_id": p.hotel_id, "room_type": p.room_type,
             "check_in": p.check_in, "check_out": p.check_out, "guests": guests, "rate_plan": w.rate,
             "protection": bool(w.protection), "payment_method_id": card_id} for p in todo]
    if not todo:
        if not any(m.intent == "done" for m in conversation.said("agent")):
            ids = ", ".join(_booking_ids(conversation))
            return Say(f"Done: your {len(picks)} stays are booked ({ids}), {_money(sum(p.price for p in picks))} in "
                       "all.", intent="done")
        return Say("Is there anything else I can help you with?", intent="more")
    for a in args:
        if broken := conversation.domain.forbids("create_booking", a, conversation.env.state):
            rule, why = broken[0]
            return Say(f"I'm sorry, I cannot book that: {rule.sentence.rstrip('.')} ({why}).", intent="giveup")
    last = conversation.events[-1] if conversation.events else None
    proposed = _last_proposal(conversation)
    if proposed is not None and len(todo) < len(picks) and last is not None and last.kind == EventKind.TOOL_RESULT:
        result = last.as_(ToolResultData)
        if result.error:
            return Say(f"I'm sorry, the booking did not go through: {result.output}", intent="giveup")
        return _call(conversation, "create_booking", args[0])  # the yes covered every stay
    answer = _answer_after(conversation, proposed)
    text = _proposal(picks, w, f"{brand.title()} ending in {last_four}")
    if answer is None or proposed != text:
        return Say(text, intent="confirm")
    if _YES.match(answer) and "?" not in answer:
        return _call(conversation, "create_booking", args[0])
    if _NO.match(answer):
        if any(m.intent == "skip" for m in conversation.said("agent")):
            return Say("Is there anything else I can help you with?", intent="more")
        return Say("All right, I will not book it. If you change your mind, just tell me.", intent="skip")
    return Say(f"Sorry, I need a clear yes or no. {text}", intent="confirm")


def _ask(conversation: Conversation, q: Ask) -> Say:
    if _asked(conversation, q.text) >= MAX_ASKS:  # asked and asked again: without it there is no trip
        if any(m.intent == "giveup" for m in conversation.said("agent")):
            return Say("Is there anything else I can help you with?", intent="more")
        return Say("I'm sorry: without that I cannot book the trip.", intent="giveup")
    return Say(q.text, intent="ask")


def _last_proposal(conversation: Conversation) -> str | None:
    m = next((m for m in reversed(conversation.said("agent")) if m.intent == "confirm"), None)
    if m is None:
        return None
    text = m.content
    return text[len("Sorry, I need a clear yes or no. "):] if text.startswith("Sorry, I need a clear") else text


def _answer_after(conversation: Conversation, proposed: str | None) -> str | None:
    """The person's reply to the agent's last message, when that message was the proposal."""
    if proposed is None:
        return None
    last_agent = conversation.last_message("agent")
    last_user = conversation.last_message("user")
    if last_agent is None or last_user is None or last_user.seq < last_agent.seq:
        return None
    if last_agent.as_(MessageData).intent != "confirm":
        return None
    return last_user.as_(MessageData).content


def _booked(conversation: Conversation) -> set[tuple[str, str, str]]:
    return {(str(c.arguments.get("hotel_id")), str(c.arguments.get("room_type")), str(c.arguments.get("check_in")))
            for c, r in _outputs(conversation) if c.name == "create_booking" and not r.error}


def _booking_ids(conversation: Conversation) -> list[str]:
    out = []
    for c, r in _outputs(conversation):
        if c.name == "create_booking" and not r.error:
            found = _json(r.output)
            out.append(str(found.get("booking_id", "")) if isinstance(found, dict) else "")
    return [i for i in out if i]
