"""How a patient asks for each goal: the words (times, days, providers, reasons), the stage-4 triggers,
and the `SAY` side of `TelehealthHints` (its goals' intents)."""

from __future__ import annotations

from datetime import date
from typing import Any

from tauplay.tracer.facts import Fact, answer, fact, words
from tauplay.tracer.hints import TracerHints, says, word
from tauplay.tracer.phrasing import Said, Say, Variants
from tauplay.tracer.trace import Intent, TraceContext

from .action_rules import PATIENTS
from .generator import WEEKDAYS

TRIGGERS = {
    "book": {
        "fear": ["worried about {concern} and wanting to be seen by {specialty} soon",
                 "nervous that no {specialty} slot will be left before the holidays"],
        "anger": ["annoyed that booking a {specialty} visit online kept failing",
                  "frustrated at waiting weeks to get in front of {specialty}"],
        "sadness": ["discouraged that {concern} is not getting better",
                    "feeling low after a rough month with {concern}"],
        "disgust": ["put off by how hard it has been to reach anyone in {specialty}",
                    "fed up with being bounced between clinics over {concern}"],
        "enjoyment": ["relieved to have finally found a {specialty} provider with time",
                      "upbeat about taking charge of {concern} at last"],
    },
    "cancel": {
        "sadness": ["disappointed to give up the visit with {doctor} on {date}",
                    "sad that the visit with {doctor} has to be dropped after waiting so long"],
        "fear": ["worried about being charged for missing the visit on {date}",
                 "anxious that cancelling will make the next visit with {doctor} hard to get"],
        "anger": ["irritated that the visit on {date} was booked at a time that never worked",
                  "annoyed at having to call in just to cancel the visit with {doctor}"],
        "disgust": ["fed up with the clinic's scheduling after the mix-up around {date}"],
        "enjoyment": ["relieved that the visit on {date} can still be called off in time"],
    },
    "move": {
        "fear": ["worried about missing the visit with {doctor} altogether",
                 "anxious that no other slot with {doctor} will be free in time"],
        "anger": ["frustrated that the visit on {date} clashes with work again",
                  "annoyed that the original time with {doctor} was never convenient"],
        "sadness": ["discouraged at having to move the visit with {doctor} yet again"],
        "disgust": ["put off by how rigid the clinic's calendar has been"],
        "enjoyment": ["pleased to have found a better time for the visit with {doctor}"],
    },
    "supplier": {
        "anger": ["annoyed that {medication} costs more every month",
                  "frustrated that the pharmacy ran out of {medication} again"],
        "fear": ["worried about running out of {medication}",
                 "nervous that a new {medication} supplier will not be the same medicine"],
        "sadness": ["discouraged by how much {medication} eats into the budget"],
        "disgust": ["fed up with the markup on {medication}"],
        "enjoyment": ["happy to have found a way to pay less for {medication}"],
    },
    "note": {
        "fear": ["worried the care team will miss something important in the record"],
        "anger": ["annoyed that the record still does not say what was agreed"],
        "sadness": ["tired of repeating the same information at every visit"],
        "disgust": ["put off by how often details get lost between visits"],
        "enjoyment": ["glad to get the record up to date before the next visit"],
    },
}

CANCEL_REASONS = ("you will be travelling for work that week", "your symptoms have cleared up",
                  "a family emergency came up", "you found a clinic closer to home",
                  "it clashes with a job interview")
MOVE_REASONS = ("it clashes with a school event", "your shift at work changed", "you will be away on the original day",
                "a family commitment came up on the original day", "the new time fits your work schedule better")
SUPPLIER_REASONS = ("your current one has become too expensive", "your pharmacy keeps running out of it",
                    "your insurer asked you to compare prices", "you are trying to cut monthly costs")


def time_forms(hhmm: str) -> tuple[str, ...]:
    """'14:30' and the ways a patient says it: '2:30 PM', '2:30pm' (and '2 PM' on the hour)."""
    hour, minute = int(hhmm[:2]), hhmm[3:5]
    twelve, half = (hour - 1) % 12 + 1, "AM" if hour < 12 else "PM"
    forms = [hhmm, f"{twelve}:{minute} {half}", f"{twelve}:{minute}{half.lower()}", f"{twelve}:{minute} {half.lower()}"]
    if minute == "00":
        forms += [f"{twelve} {half}", f"{twelve}{half.lower()}", f"{twelve} {half.lower()}"]
    return tuple(forms)


def _clock(hhmm: str) -> str:
    return time_forms(hhmm)[1]


def _weekday(day: str) -> str:
    return WEEKDAYS[date.fromisoformat(day).weekday()].title()


def doctor(provider: dict[str, Any]) -> str:
    # No "Dr." prefix: its period would read as the end of a sentence when the card is split up.
    return f"{provider['name']['first_name']} {provider['name']['last_name']}"


class TelehealthPhrasing(TracerHints):
    """The user's side of `TelehealthHints`: how each goal is asked for."""

    OPENING = {"email": ("You are {name}, and the email on your patient account is {demographics[email]}.",
                         "You are {name} ({demographics[email]}); give that email when asked to identify yourself."),
               "name": ("You are {name}, born {demographics[date_of_birth]}. You do not remember which email you "
                        "signed up with, so you identify yourself by name and date of birth.",
                        "You are {name} (date of birth {demographics[date_of_birth]}); you identify yourself by "
                        "name and birth date.")}
    IDENTITY = PATIENTS


    def _appointment_phrase(self, ctx: TraceContext, appointment: dict[str, Any]) -> tuple[list[Fact], str, dict[str, str]]:
        provider = ctx.state.get("providers", appointment["provider_id"]) or {}
        who, specialty = doctor(provider), provider.get("specialty", "")
        when = f"{appointment['date']} at {_clock(appointment['time'])}"
        slots = {"doctor": who, "date": appointment["date"], "specialty": specialty}
        if ctx.goal.target["variant"] == "id":
            facts = [fact("appointment_id", appointment["appointment_id"])]
            return facts, f"your {specialty} appointment {appointment['appointment_id']} ({when} with {who})", slots
        facts = [fact("appointment_date", appointment["date"]), fact("provider_name", who)]
        return facts, f"your {specialty} appointment with {who} on {when}", slots

    PHRASES = {
        "cancel_appointment": Variants("{target[variant]}", {"id": Say(
            "cancel {visit}", "cancel", "the visit with {visit_slots[doctor]} on {visit_slots[date]}",
            reason="because {target[reason]}", facts=("visit",), slots="visit_slots")}, default=Say(
            "cancel {visit}", "cancel", "the visit with {visit_slots[doctor]} on {visit_slots[date]}",
            details=("You do not have the appointment id at hand; the day and the provider are what you remember.",),
            reason="because {target[reason]}", facts=("visit",), slots="visit_slots")),
    }

    @word("visit")
    def _visit(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        facts, what, _ = self._appointment_phrase(ctx, ctx.database.tables["appointments"][args["appointment_id"]])
        return Said(tuple(facts), what)

    @word("visit_slots")
    def _visit_slots(self, args: dict[str, Any], ctx: TraceContext) -> dict[str, str]:
        return self._appointment_phrase(ctx, ctx.database.tables["appointments"][args["appointment_id"]])[2]

    @says("reschedule_appointment")
    def _say_reschedule_appointment(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        appointment = ctx.database.tables["appointments"][args["appointment_id"]]
        facts, what, slots = self._appointment_phrase(ctx, appointment)
        new_date, new_time = args["new_date"], args["new_time"]
        if target["earliest"]:
            facts += [fact("new_date", new_date),
                      fact("new_time", new_time, "earliest", "first free", "first open")]
            where = f"the earliest free slot on {new_date} ({_weekday(new_date)})"
            details = [f"You want the same provider, on {new_date}, at whatever is the earliest time still free "
                       "that day."]
        else:
            facts += [fact("new_date", new_date), fact("new_time", new_time, *time_forms(new_time))]
            where = f"{new_date} ({_weekday(new_date)}) at {_clock(new_time)}"
            details = ["Keep the same provider; only the day and time change."]
        return Intent("reschedule_appointment", f"move {what} to {where}", details,
                      reason=f"because {target['reason']}", facts=facts, situation="move",
                      subject=f"the visit with {slots['doctor']}", slots=slots)

    @says("schedule_appointment")
    def _say_schedule_appointment(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target, rng = ctx.goal.target, ctx.rng
        provider = ctx.state.get("providers", args["provider_id"]) or {}
        who, specialty, kind = doctor(provider), target["specialty"], args["appointment_type"]
        facts = [fact("specialty", specialty), fact("provider_id", args["provider_id"], who),
                 fact("date", args["date"]), fact("time", args["time"], *time_forms(args["time"])),
                 fact("appointment_type", kind)]
        visit = words(kind).replace("follow up", "follow-up")
        article = "an" if visit[0] in "aeiou" else "a"
        details = [f"You want {who} on {args['date']} ({_weekday(args['date'])}) at {_clock(args['time'])}."]
        if target["billing"] == "self_pay":
            facts.append(fact("bill_insurance", False, "self-pay", "pay for it yourself"))
            details.append("Do not bill your insurance: you will pay for it yourself (self-pay).")
        elif target["billing"] == "voucher":
            facts += [fact("bill_insurance", False, "instead of insurance", "not through insurance"),
                      fact("voucher_id", args["voucher_id"])]
            details.append(f"Pay with your telehealth voucher {args['voucher_id']} instead of insurance.")
        else:
            details.append(rng.choice(("Bill it to your insurance as usual.", "It goes through your insurance.")))
        details.append("Ask for the new appointment id.")
        concern = target["concern"].lower()
        if target["replaces"]:
            action = f"book {article} {visit} with another {specialty} provider in place of the visit you cancelled"
            reason = ""
        else:
            action = f"book {article} {visit} in {specialty}"
            reason = f"about your {concern}" if specialty != "Primary Care" else ""
        return Intent("schedule_appointment", action, details, reason=reason, facts=facts, situation="book",
                      answers=[answer(ctx.output_of("schedule_appointment")["appointment_id"])],
                      subject=f"the {specialty} visit", slots={"specialty": specialty, "concern": concern,
                                                               "doctor": who, "date": args["date"]})

    @says("update_prescription_supplier")
    def _say_update_prescription_supplier(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        medication, company = args["medication"], args["supplier_company"]
        facts = [fact("medication", medication)]
        where = f"your {medication} prescription"
        if target["quoted"]:
            facts.append(fact("record_id", args["record_id"]))
            where += f" in medical record {args['record_id']}"
        details = []
        if target["variant"] == "named":
            facts.append(fact("supplier_company", company))
            choice = company
            details.append(f"A friend recommended {company}; you want that supplier, whatever its price.")
        elif target["variant"] == "country":
            country = target["country_filter"]
            facts += [fact("country_filter", country),
                      fact("supplier_company", company, "cheapest", "lowest price", "least expensive")]
            choice = f"the cheapest supplier based in {country}"
            details.append(f"It has to be a supplier based in {country}; among those, the cheapest.")
        else:
            facts.append(fact("supplier_company", company, "cheapest", "lowest price", "least expensive"))
            choice = "the cheapest supplier in the catalogue"
            details.append("You want the lowest monthly price, whichever company that is.")
        details.append("Change only that prescription.")
        return Intent("update_prescription_supplier", f"switch {where} to {choice}", details,
                      reason=f"because {target['reason']}", facts=facts, situation="supplier",
                      subject=f"the {medication} prescription", slots={"medication": medication})

    @says("update_medical_record_note")
    def _say_update_medical_record_note(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        record = ctx.state.get("medical_records", args["record_id"]) or {}
        note = args["note"]
        facts = [fact("note", note)]
        if target["variant"] == "same":
            where = (f"record {args['record_id']} as well" if target["quoted"]
                     else f"the record that holds your {target['medication']} prescription")
        elif target["variant"] == "id":
            facts.append(fact("record_id", args["record_id"]))
            where = f"your medical record {args['record_id']}"
        elif target["variant"] == "appointment":
            facts.append(fact("appointment_id", target["record_appointment"]))
            where = f"the medical record of your appointment {target['record_appointment']}"
        else:
            facts.append(fact("record_date", record["date"]))
            where = f"your medical record dated {record['date']}"
        details = [f'It should read, word for word, "{note}" and the existing notes stay as they are.']
        return Intent("update_medical_record_note", f"have a note added to {where}", details, facts=facts,
                      situation="note", subject="your medical record", slots={})
