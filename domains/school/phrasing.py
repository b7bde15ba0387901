"""How a student asks the registrar for each goal: the words (courses, meeting days, amounts, payment
methods), the stage-4 triggers, and the `SAY` side of `SchoolHints` (its goals' intents)."""

from __future__ import annotations

from typing import Any

from tauplay.tracer.facts import Fact, answer, fact
from tauplay.tracer.hints import TracerHints, says, word
from tauplay.tracer.phrasing import Said, Say
from tauplay.tracer.trace import Intent, TraceContext

from .action_rules import STUDENTS
from .catalogue import DEPARTMENTS, FALL, SPRING, TERMS

TRIGGERS = {
    "enroll": {
        "enjoyment": ["excited to finally take {course}", "proud to have the grades to take {course}"],
        "fear": ["worried {course} will fill up before there is a seat for you",
                 "anxious that missing {course} will delay graduation"],
        "anger": ["annoyed that the online portal kept failing to add {course}",
                  "frustrated after two tries to register for {course}"],
        "sadness": ["discouraged that the other courses on the wish list are already full",
                    "disappointed that {course} is the only option left that fits"],
        "disgust": ["fed up with how clumsy registering for {course} has been"],
    },
    "waitlist": {
        "fear": ["worried about never getting off the waitlist for {course}",
                 "nervous that not getting into {course} will delay graduation"],
        "anger": ["annoyed that {course} filled up within days", "frustrated that every section of {course} "
                                                                   "is full"],
        "sadness": ["let down that {course} was already full"],
        "disgust": ["put off that popular courses like {course} never have enough seats"],
        "enjoyment": ["hopeful and upbeat about getting a seat in {course} after all"],
    },
    "drop": {
        "sadness": ["disappointed to give up {course} for the spring", "sad to let go of {course}"],
        "fear": ["worried about losing the money already charged for {course}"],
        "anger": ["annoyed at having registered for {course} in the first place"],
        "disgust": ["fed up with how {course} was presented in the catalogue"],
        "enjoyment": ["relieved that {course} can still be dropped with a refund"],
    },
    "withdraw": {
        "sadness": ["discouraged at falling behind in {course}", "sad to withdraw from {course} mid-term"],
        "fear": ["anxious that a W in {course} will hurt the transcript",
                 "worried about how withdrawing from {course} affects aid"],
        "anger": ["frustrated that {course} turned out nothing like its description"],
        "disgust": ["put off by how {course} has been taught so far"],
        "enjoyment": ["relieved to have a way out of {course} while some tuition still comes back"],
    },
    "pay": {
        "fear": ["worried the balance will block spring registration", "anxious about the past-due notice"],
        "anger": ["annoyed at the reminders about the balance", "irritated that the bill was hard to find"],
        "enjoyment": ["proud to pay the bill from summer job savings", "relieved to settle the account"],
        "sadness": ["weary of juggling bills this semester"],
        "disgust": ["fed up with the fees piling up on the account"],
    },
}

DAYS = {"MWF": "Mondays, Wednesdays and Fridays", "MW": "Mondays and Wednesdays", "TR": "Tuesdays and Thursdays"}
ENROLL_REASONS = ("it counts toward your major", "a friend recommended the instructor",
                  "it is required for your program", "it fits around your part-time job",
                  "your advisor suggested it")
DROP_REASONS = ("your plans for the spring changed", "the workload is more than you can manage",
                "you found a course that suits your program better", "it clashes with an internship")
WITHDRAW_REASONS = ("you are falling behind despite tutoring", "a family matter takes up your evenings",
                    "your job hours went up this term")


def meeting(section: dict[str, Any]) -> str:
    """'Tuesdays and Thursdays at 10:00': how a student names a section by its time."""
    return f"{DAYS[section['days']]} at {section['start_time']}"


def money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


def money_forms(amount: float) -> tuple[str, ...]:
    plain = f"{amount:.0f}" if float(amount).is_integer() else f"{amount:.2f}"
    return (money(amount), plain, f"{amount:,.2f}", f"{amount:.2f}")


def course_forms(course: dict[str, Any]) -> tuple[str, ...]:
    cid = course["course_id"]
    dept = cid.rstrip("0123456789")
    return (cid, f"{dept} {cid[len(dept):]}", course["title"])


def method_phrase(method: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """How a student names a payment method, and the words that count as naming it."""
    ending = f"ending in {method['last_four']}"
    if method["source"] == "credit_card":
        return f"your {method['brand'].title()} card {ending}", (ending,)
    return f"your {method['brand']} account {ending}", (ending, method["brand"])


class SchoolPhrasing(TracerHints):
    """The user's side of `SchoolHints`: how each goal is asked for."""

    OPENING = {"email": ("You are {name}, a student at Northfield University; your university email is {email}.",
                         "You are {name} ({email})."),
               "name": "You are {name}, born {dob}. You cannot get into your university email account, so you "
                       "identify yourself with your name and date of birth."}
    IDENTITY = STUDENTS


    def _course_phrase(self, ctx: TraceContext) -> tuple[list[Fact], str, str]:
        """Facts, the course as the student names it, and the section as they name it."""
        target = ctx.goal.target
        course = ctx.state.get("courses", target["course_id"]) or {}
        section = course["sections"][target["section_id"]]
        facts: list[Fact] = []
        if target["search"]:
            dept = course["department"]
            facts += [fact("department", dept, DEPARTMENTS[dept]), fact("keyword", course["title"].lower(),
                                                                         course["title"]),
                      fact("course_id", course["course_id"], course["title"])]
            what = f"{course['title']} from the {DEPARTMENTS[dept]} department (you do not know its code)"
        else:
            facts.append(fact("course_id", course["course_id"], *course_forms(course)[1:]))
            what = f"{course['course_id']} ({course['title']})"
        if target["how"] == "id":
            facts.append(fact("section_id", section["section_id"]))
            which = f"section {section['section_id']} ({meeting(section)})"
        elif target["how"] == "time":
            facts.append(fact("section_id", section["section_id"], meeting(section)))
            which = f"the section that meets {meeting(section)}"
        else:
            facts.append(fact("section_id", section["section_id"], "only Spring section"))
            which = "its only Spring section"
        facts.append(fact("term", SPRING, "Spring 2025"))
        return facts, what, which

    PHRASES = {
        "enroll_in_section": Say(
            "register for {course} in Spring 2025", "enroll", "registering for {title}", reason="{why_enroll}",
            details=("You want {section}.", "If that section cannot be joined, do not take a different one."),
            facts=("course",), slots={"course": "{title}"}),
        "join_waitlist": Say(
            "get a place in {course} for Spring 2025", "waitlist", "the waitlist for {title}",
            reason="because {target[reason]}", facts=("course",), answers=("position",), slots={"course": "{title}"},
            details=("You want {section}; you know it is full, so you want to join its waitlist.",
                     "Ask for your position on the waitlist.")),
    }

    @word("course")
    def _course(self, args: dict[str, Any], ctx: TraceContext) -> Said:
        facts, what, _ = self._course_phrase(ctx)
        return Said(tuple(facts), what)

    @word("section")
    def _section(self, args: dict[str, Any], ctx: TraceContext) -> str:
        return self._course_phrase(ctx)[2]

    @word("title")
    def _title(self, args: dict[str, Any], ctx: TraceContext) -> str:
        return str((ctx.state.get("courses", ctx.goal.target["course_id"]) or {}).get("title", ""))

    @word("why_enroll")
    def _why_enroll(self, args: dict[str, Any], ctx: TraceContext) -> str:
        lifted = any(g.tool == "pay_balance" and g.target.get("held") for g in ctx.goals[:-1])
        return "now that your hold is lifted" if lifted else f"because {ctx.goal.target['reason']}"

    @word("position")
    def _position(self, args: dict[str, Any], ctx: TraceContext) -> Any:
        return ctx.output_of("join_waitlist")["waitlist_position"]

    @says("drop_registration")
    def _say_drop_registration(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        course = ctx.state.get("courses", target["course_id"]) or {}
        title = course.get("title", "")
        facts = [fact("course_id", course["course_id"], *course_forms(course)[1:])]
        what = f"{course['course_id']} ({title})"
        if target["kind"] == "withdraw":
            facts.append(fact("term", FALL, "Fall 2024", "this fall", "this term"))
            action = f"withdraw from {what} this Fall 2024"
            details = ["Keep your other Fall courses.", "Ask how much of the tuition comes back."]
        elif target["kind"] == "leave":
            facts.append(fact("term", SPRING, "Spring 2025"))
            action = f"leave the waitlist for {what} in Spring 2025"
            details = ["You no longer want a seat in it."]
        else:
            facts.append(fact("term", SPRING, "Spring 2025"))
            action = f"drop {what} from your Spring 2025 courses"
            details = ["Ask how much you will get back."]
        term = TERMS[FALL if target["kind"] == "withdraw" else SPRING]["name"]
        refund = ctx.output_of("drop_registration")["refund"]
        return Intent("drop_registration", action, details, reason=f"because {target['reason']}", facts=facts,
                      answers=[answer(refund)] if target["kind"] != "leave" else [],
                      situation="withdraw" if target["kind"] == "withdraw" else "drop",
                      subject=f"the {term} registration for {title}", slots={"course": title})

    @says("pay_balance")
    def _say_pay_balance(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        target = ctx.goal.target
        student = ctx.persona or {}
        method = student["payment_methods"][args["payment_method_id"]]
        phrase, forms = method_phrase(method)
        facts = [fact("payment_method_id", args["payment_method_id"], *forms)]
        if target["full"]:
            facts.append(fact("amount", args["amount"], "in full", "whole balance", "full balance",
                              *money_forms(args["amount"])))
            action = "pay your account balance in full"
            details = [f"Use {phrase}."]
            if target["held"]:
                details.append("You understand that this lifts the financial hold on your record.")
        else:
            facts.append(fact("amount", args["amount"], *money_forms(args["amount"])))
            action = f"pay {money(args['amount'])} toward your account balance"
            details = [f"Use {phrase}.", "Ask what you will still owe afterwards."]
        owed = [] if target["full"] else [answer(ctx.output_of("pay_balance")["account"]["balance"])]
        return Intent("pay_balance", action, details, facts=facts, situation="pay", subject="your account balance",
                      slots={}, answers=owed)
