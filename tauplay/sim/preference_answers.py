"""The scripted user on a constraint task (a trip of stays under rules): which of its instruction's facts an
agent's question is about, read through the task's own rules (the user's instruction, as data: each rule has the
stay it is about, the field and the sentence the instruction states it in).

"How many nights will you stay in Paris?" is about the rule on `nights` for the stay in Paris, so the user
answers with that rule's sentence ("I stay 2 nights in Paris."), not "I don't know the check in" nor the next
fact of its story. A question about a wish the instruction does not hold (stars for a stay with no star floor)
gets "no particular wish": any option meeting the rest is fine with this user. A proposal is judged by its total
against the user's budget (any option meeting the rules is fine with it; the instruction asks for the total), and
by what it states about each stay it names by its city: nights, stars and arrival date against the rules on that
stay ("1 night in San Francisco" when the instruction says 2 is corrected, not agreed to).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tauplay.sim.participants import Conversation

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
# (field, the words that ask for it), the first match wins: a question about nights names the stay's city too.
_FIELDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((f, re.compile(p, re.IGNORECASE)) for f, p in (
    ("email", r"\be-?mail\b"),
    ("count", r"\bhow many (?:hotel )?stays\b|\bhow many cities\b"),
    ("party", r"\btravell?ing with\b|\btravell?ing alone\b|\bguests?\b|\bwho (?:is|will be) travell?ing\b"),
    ("payment", r"\bhow would you like to pay\b|\bwhich card\b|\brate plan\b|\bflexible or (?:the )?saver\b|"
                r"\btravel protection\b"),
    ("price", r"\bbudget\b|\bhow much\b.*\bspend\b"),
    ("check_in", r"\barriv|\bcheck[- ]?in\b"),
    ("check_out", r"\bleave\b|\bcheck[- ]?out\b|\bdepart"),
    ("nights", r"\bnights?\b|\bhow long\b"),
    ("stars", r"\bstars?\b|\brating\b"),
    ("amenities", r"\bamenit|\bfacilit"),
    ("room_type", r"\broom\b"),
    ("city", r"\bwhere\b|\bwhich city\b|\bwhat city\b|\bcity\b"),
))
_WHAT = {"stars": "the stars of the hotel", "amenities": "the amenities of the hotel", "room_type": "the room"}


def _fold(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9$]+", text.lower()))


def _field(question: str) -> str | None:
    return next((f for f, p in _FIELDS if p.search(question)), None)


def _cities(problem: dict[str, Any]) -> dict[str, str]:
    """entity -> the city its `city` rule names."""
    return {r["entities"][0]: str(r["value"]) for r in problem.get("rules", [])
            if r.get("field") == "city" and r.get("kind") == "eq" and r.get("entities")}


def _entity(question: str, problem: dict[str, Any], field: str) -> str | None:
    if m := re.search(r"\b(" + "|".join(ORDINALS) + r")\s+stay\b", question, re.IGNORECASE):
        return f"stay_{ORDINALS.index(m.group(1).lower()) + 1}"
    found = [(m.start(), e) for e, city in _cities(problem).items()
             if (m := re.search(rf"\b{re.escape(city)}\b", question, re.IGNORECASE))]
    if found:
        return min(found)[1]
    entities = [e.get("name") for e in problem.get("entities", [])]
    return entities[0] if field == "check_in" and entities else None  # "When do you arrive?": the trip's start


def _rules_about(problem: dict[str, Any], field: str, entity: str | None) -> list[dict[str, Any]]:
    out = []
    for r in problem.get("rules", []):
        on = r.get("entities", [])
        if field == "price" and r.get("field") == "price":
            out.append(r)
        elif entity is None:
            continue
        elif r.get("field") == field and on and on[0] == entity and r.get("kind") != "same":
            out.append(r)
        elif field == "check_in" and r.get("kind") == "same" and r.get("other") == "check_in" and on[-1:] == [entity]:
            out.append(r)  # "The stay in Paris starts the day you leave San Francisco"
        elif field == "check_out" and r.get("kind") == "same" and on[:1] == [entity]:
            out.append(r)
    if field == "check_out" and entity is not None:
        out += [r for r in problem.get("rules", []) if r.get("field") == "nights" and r.get("entities") == [entity]]
    return out


def _part_of(parts: Sequence[str], text: str, first_person: Any) -> int | None:
    """The fact (a sentence of the user's story) that states a rule's text."""
    wanted = _fold(first_person(text))
    return next((i for i, p in enumerate(parts) if wanted and wanted in _fold(p)), None)


def _part_with(parts: Sequence[str], pattern: str) -> int | None:
    return next((i for i, p in enumerate(parts) if re.search(pattern, p, re.IGNORECASE)), None)


def asked_facts(conversation: Conversation, parts: Sequence[str], question: str,
                first_person: Any) -> tuple[list[int], str] | None:
    """(the facts the question is about, in order; a 'no particular wish' reply when there are none), or None when
    the question is about nothing this reading knows (the scripted user's other answers then apply)."""
    problem = conversation.task.constraints
    if not isinstance(problem, dict):
        return None
    field = _field(question)
    if field is None:
        return None
    if field == "email":
        return None  # the scripted user's own answer: its e-mail, which its story holds back
    if field == "count":
        i = _part_with(parts, r"\b\d+[- ]city trip\b|\bhotel stays\b")
        return ([i], "") if i is not None else None
    if field == "party":
        i = _part_with(parts, r"\btravell?ing alone\b|\btravel with\b")
        return ([i], "") if i is not None else None
    if field == "payment":
        i = _part_with(parts, r"\bpaid with\b|\bending in\b")
        return ([i], "") if i is not None else None
    entity = _entity(question, problem, field)
    if entity is None and field != "price":
        return None
    found = [i for r in _rules_about(problem, field, entity)
             if (i := _part_of(parts, str(r.get("text") or ""), first_person)) is not None]
    found = list(dict.fromkeys(found))
    if found:
        return found, ""
    if field == "price":
        return [], "I have no particular budget: any total will do."
    if field in _WHAT and entity is not None:
        city = _cities(problem).get(entity, "")
        where = f" in {city}" if city else ""
        return [], f"I have no particular wish about {_WHAT[field]}{where}: any will do."
    return None


_TOTAL = re.compile(r"\btotal (?:is|of|comes to)\s+\$\s?([\d,]+(?:\.\d+)?)", re.IGNORECASE)


def judge_trip(conversation: Conversation, text: str) -> tuple[bool, str]:
    """(agree, correction) for a proposed trip: its total within this user's budget (the instruction's rule on the
    total price); a proposal without a total gets a question for it."""
    problem = conversation.task.constraints
    budget = next((r.get("value") for r in (problem or {}).get("rules", [])
                   if r.get("field") == "price" and r.get("kind") == "sum_max"), None)
    m = _TOTAL.search(text)
    if m is None:
        return False, "What is the total for everything, please?"
    total = float(m.group(1).replace(",", ""))
    if isinstance(budget, int | float) and total > budget + 1e-9:
        return False, f"No, that is over my budget: everything together must cost at most ${budget:,}."
    if (broken := _broken_rule(problem or {}, text)) is not None:
        return False, f"No, that does not fit: {_mine(broken, _cities(problem or {}).get(broken['entities'][0], ''))}."
    return True, ""


_MONTHS = "january february march april may june july august september october november december".split()
_DAY = re.compile(r"\b(?:(\d{4})-(\d{2})-(\d{2})|(" + "|".join(_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?)\b",
                  re.IGNORECASE)
_NIGHTS = re.compile(r"\b(\d+)\s+nights?\b", re.IGNORECASE)
_STARS = re.compile(r"\b(\d)[- ]stars?\b", re.IGNORECASE)


def _day(m: re.Match[str], year: str) -> str | None:
    """An ISO date from a date in words or digits (a date without a year takes `year`)."""
    if m.group(1):
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    month = _MONTHS.index(m.group(4).lower()) + 1
    return f"{m.group(6) or year}-{month:02d}-{int(m.group(5)):02d}"


def _broken_rule(problem: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The first of the instruction's rules on one stay that a proposal breaks in what it states about that stay:
    its nights, its stars or its arrival date, read from the clause that names the stay's city ("H-SFO-06 in San
    Francisco, August 15 to 16, 1 night"). What a clause does not state is not guessed at."""
    cities = _cities(problem)
    rules = problem.get("rules", [])
    for part in re.split(r";\s*|(?<=[.!?])\s+(?=[A-Z0-9])", text):
        named = sorted((m.start(), e) for e, city in cities.items()
                       for m in re.finditer(rf"\b{re.escape(city)}\b", part, re.IGNORECASE))
        if not named:
            continue
        # one city: the whole clause is about its stay ("H-SFO-06 in San Francisco, August 15, 1 night"); several
        # in one sentence ("San Francisco for 2 nights, then a 3-star hotel in New Orleans"): only the pieces
        # between commas that name one city, so a figure is never read as another stay's
        if len({e for _, e in named}) == 1:
            pieces = [(part, named[0][1])]
        else:
            pieces = []
            for piece in re.split(r",\s*|\s+(?:then|and)\s+", part):
                about = {e for e, city in cities.items() if re.search(rf"\b{re.escape(city)}\b", piece, re.IGNORECASE)}
                if len(about) == 1:
                    pieces.append((piece, about.pop()))
        for clause, entity in pieces:
            if (rule := _broken_in(rules, entity, clause)) is not None:
                return rule
    return None


def _broken_in(rules: list[dict[str, Any]], entity: str, clause: str) -> dict[str, Any] | None:
    """The first rule on `entity` that what `clause` states about it breaks."""
    for r in rules:
        if r.get("entities") != [entity]:
            continue
        field, kind, value = r.get("field"), r.get("kind"), r.get("value")
        if field == "nights" and kind == "eq" and (m := _NIGHTS.search(clause)) and int(m.group(1)) != value:
            return r
        if field == "stars" and kind == "min" and isinstance(value, int | float) \
                and (m := _STARS.search(clause)) and int(m.group(1)) < value:
            return r
        if field == "check_in" and kind == "between" and isinstance(value, list) and len(value) == 2 \
                and (m := _DAY.search(clause)) and (day := _day(m, str(value[0])[:4])) is not None \
                and not str(value[0]) <= day <= str(value[1]):
            return r
    return None


def _mine(rule: dict[str, Any], city: str) -> str:
    """A rule's sentence as the user says it ("You stay 2 nights in Paris" -> "I stay 2 nights in Paris"; "You
    arrive there ..." -> "I arrive in Paris ...")."""
    text = str(rule.get("text") or "")
    if city:
        text = re.sub(r"\bthere\b", f"in {city}", text)
    text = re.sub(r"\byour\b", "my", text)
    text = re.sub(r"\bYour\b", "My", text)
    return re.sub(r"\b[Yy]ou\b", "I", text)
