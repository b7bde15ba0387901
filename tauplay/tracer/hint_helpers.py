"""Small pieces that several domains' Tracer hints need in the same form.

- `choice_or_skip`: one of the options, or the candidate skipped when there is none;
- `PerDatabase`: indices a hints object works out once per start database (who can make each request);
- `StartersByWrite`: who can start a goal with each write, per database, and one of them drawn for a trace;
- `Cast`: the callers a run has cast so far, so that each new candidate goes to someone else;
- `earlier`, `fresh_choice`, `fresh_records`, `fresh_own`: what the earlier goals of the trace already act on, so a
  later goal picks something else;
- `hashed_trait`, `login_unless_done`, `SaysFields`, `SaysLogin`, `EmailOrNameAndBirth`: how a persona identifies themselves;
- `PaymentWords`: how a person names one of their payment methods.
"""

from __future__ import annotations

import random
import weakref
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tauplay.core.db import Database, State
from tauplay.tracer.facts import Fact, fact, words
from tauplay.tracer.trace import Intent, Skip, TraceContext

T = TypeVar("T")
Record = dict[str, Any]


def choice_or_skip(rng: random.Random, options: Sequence[T], reason: str, detail: str = "") -> T:
    """One of `options`, drawn with `rng`; when there is none, the candidate is skipped (`Skip(reason, detail)`)."""
    if not options:
        raise Skip(reason, detail)
    return rng.choice(options)


class PerDatabase(Generic[T]):
    """`build(database)`, worked out on first use and kept while that database lives."""

    def __init__(self, build: Callable[[Database], T]) -> None:
        self._build = build
        self._made: weakref.WeakKeyDictionary[Database, T] = weakref.WeakKeyDictionary()

    def __getitem__(self, database: Database) -> T:
        if database not in self._made:
            self._made[database] = self._build(database)
        return self._made[database]

    def __call__(self, ctx: TraceContext) -> T:
        """What was worked out for the trace's start database (a hints class keeps one as a class attribute:
        `_options = PerDatabase(Options.of)`, read as `self._options(ctx)`)."""
        return self[ctx.database]


class StartersByWrite:
    """The personas who can start a goal with each write (`build(database) -> {write: [persona ids]}`, worked
    out once per start database); `pick` draws one of them for a trace."""

    def __init__(self, build: Callable[[Database], dict[str, list[str]]]) -> None:
        self._by_write = PerDatabase(build)

    def pick(self, write: str, ctx: TraceContext) -> str | None:
        """One of those who can start with `write` (None when nobody can)."""
        options = self._by_write[ctx.database].get(write)
        return ctx.rng.choice(options) if options else None


class Cast:
    """The callers a run has cast so far. Each new candidate goes to someone not cast yet while there is
    one: two tasks with the same caller and records read like one task told twice. Call `reset` when a
    run starts (its candidates are built in a fixed order, so the run stays reproducible)."""

    def __init__(self) -> None:
        self._cast: set[str] = set()

    def reset(self) -> None:
        self._cast = set()

    def __contains__(self, persona_id: object) -> bool:
        return persona_id in self._cast

    def pick(self, rng: random.Random, candidates: Sequence[str]) -> str:
        fresh = [c for c in candidates if c not in self._cast]
        chosen = rng.choice(fresh or candidates)
        self._cast.add(chosen)
        return chosen


# -- what the earlier goals of the trace act on ----------------------------------------------------

def earlier(ctx: TraceContext, key: str) -> set[Any]:
    """The values the earlier goals of the trace hold under `key` in their targets."""
    return {g.target.get(key) for g in ctx.goals[:-1]}


def fresh_choice(ctx: TraceContext, options: Sequence[T], key: str = "reason") -> T:
    """One of `options` that no earlier goal chose under `key` (two requests rarely share a reason), else
    any of them."""
    used = earlier(ctx, key)
    return ctx.rng.choice([o for o in options if o not in used] or list(options))


def fresh_records(ctx: TraceContext, table: str, records: Iterable[Record | None], key: str) -> list[Record]:
    """Those of `records` that were in `table` at the start (none made in this trace: nobody books and
    changes the same thing in one call) and that no earlier goal acts on (by their `key` field)."""
    used, start = earlier(ctx, key), ctx.database.tables[table]
    return [r for r in records if r is not None and r[key] in start and r[key] not in used]


def fresh_own(ctx: TraceContext, table: str, key: str) -> list[Record]:
    """The persona's records of `table` (the ids their record lists under the table's name) that were there at
    the start and that no earlier goal acts on (`fresh_records`)."""
    return fresh_records(ctx, table, (ctx.state.get(table, i) for i in (ctx.persona or {}).get(table, [])), key)


# -- how a persona identifies themselves -----------------------------------------------------------

def hashed_trait(persona_id: str, count: int, out_of: int) -> bool:
    """True for about `count` personas in `out_of`, and always the same for one persona: a fixed trait
    (e.g. gives a phone number rather than an email), so the opening, which sees only the persona, and
    the plan, which looks them up, agree."""
    return zlib.crc32(persona_id.encode()) % out_of < count


def login_unless_done(ctx: TraceContext, login: str, logins: Iterable[str]) -> tuple[str, ...]:
    """The look-up `login` that identifies the persona, unless an earlier goal of the trace ran one of `logins`."""
    logins = tuple(logins)
    return () if any(s.tool in logins for s in ctx.steps) else (login,)


@dataclass(frozen=True)
class SaysFields:
    """A persona who identifies themselves by fields of their own record (`fields(record)`: name -> value):
    each goal's intent says them first (facts) and keeps them in its known info (after its own, or before with
    `known_first`; `unkept` are said only). `way_of(record)` is the way `OPENING` is keyed by."""

    fields: Callable[[Record], dict[str, Any]]
    known_first: bool = False
    unkept: tuple[str, ...] = ()
    way_of: Callable[[Record], str] = lambda record: ""

    def way(self, persona: Record, persona_id: str) -> str:
        return self.way_of(persona)

    def identify(self, intent: Intent, ctx: TraceContext) -> Intent:
        said = self.fields(ctx.persona or {})
        intent.facts = [fact(k, v) for k, v in said.items()] + intent.facts
        kept = {k: v for k, v in said.items() if k not in self.unkept}
        intent.known = {**kept, **intent.known} if self.known_first else {**intent.known, **kept}
        return intent


@dataclass(frozen=True)
class SaysLogin:
    """A persona who identifies themselves with what they gave the look-up that found them (one of `logins`,
    the first of the trace, or of this goal with `this_goal`): its arguments go first in the goal's facts and,
    with `known_login`, into its known info, after the persona's id under `owner` (when named).
    `way_of(record)` is the way `OPENING` is keyed by."""

    logins: tuple[str, ...]
    this_goal: bool = False
    known_login: bool = True
    owner: str | None = None
    way_of: Callable[[Record], str] = lambda record: ""

    def way(self, persona: Record, persona_id: str) -> str:
        return self.way_of(persona)

    def identify(self, intent: Intent, ctx: TraceContext) -> Intent:
        if self.owner is not None:
            intent.known[self.owner] = ctx.persona_id
        goal = len(ctx.goals) - 1
        step = next((s for s in ctx.steps if s.tool in self.logins and (s.goal == goal or not self.this_goal)), None)
        if step is None:
            return intent
        intent.facts[:0] = [fact(k, v) for k, v in step.args.items()]
        if self.known_login:
            intent.known.update(step.args)
        return intent


@dataclass(frozen=True)
class EmailOrNameAndBirth:
    """People of a persona table who identify themselves by email or, when they cannot, by first name,
    last name and date of birth (their record's `name` holds `first_name` and `last_name`). Which way is
    a fixed trait of the person (`by_name`)."""

    table: str
    id_field: str
    lookups: dict[str, str]  # "email" / "name" -> the read tool that finds the person that way
    email: Callable[[Record], str]
    birth_date: Callable[[Record], str]
    birth_key: str  # the birth date's name in the look-up's arguments (and so in the known info)
    by_name: Callable[[str], bool]  # person id -> identifies by name and birth date
    heard_email: Callable[[str], str] = str  # the email as the look-up tool compares it

    def method(self, person_id: str) -> str:
        """'email' or 'name'."""
        return "name" if self.by_name(person_id) else "email"

    def way(self, persona: Record, persona_id: str) -> str:
        return self.method(persona_id)

    def lookup(self, person_id: str) -> str:
        return self.lookups[self.method(person_id)]

    def identity(self, person: Record, method: str) -> dict[str, Any]:
        """What the person says to be identified (the known info the policy check reads back)."""
        if method == "email":
            return {"email": self.email(person)}
        return {"first_name": person["name"]["first_name"], "last_name": person["name"]["last_name"],
                self.birth_key: self.birth_date(person)}

    def lookup_args(self, tool: str, person: Record) -> dict[str, Any]:
        """The arguments of the look-up `tool` (one of `lookups`) for this person."""
        return self.identity(person, next(m for m, t in self.lookups.items() if t == tool))

    def identify(self, intent: Intent, ctx: TraceContext) -> Intent:
        """`intent` with the persona's identity in front of its facts (the user must be able to give it) and
        in its known info (the policy check reads back who the user said they were)."""
        known = self.identity(ctx.persona or {}, self.method(ctx.persona_id or ""))
        intent.facts = [fact(k, v) for k, v in known.items()] + intent.facts
        intent.known.update(known)
        return intent

    def identified(self, state: State, known: dict[str, Any]) -> str | None:
        """The one person the user's words identify (email, or name and birth date), else None."""
        email = known.get("email")
        if isinstance(email, str):
            found = [p for p in state.values(self.table) if self.email(p) == self.heard_email(email)]
        else:
            first, last, born = known.get("first_name"), known.get("last_name"), known.get(self.birth_key)
            if not (isinstance(first, str) and isinstance(last, str) and isinstance(born, str)):
                return None
            found = [p for p in state.values(self.table) if p["name"]["first_name"].lower() == first.lower()
                     and p["name"]["last_name"].lower() == last.lower() and self.birth_date(p) == born]
        return found[0][self.id_field] if len(found) == 1 else None


# -- how a person names a payment method ------------------------------------------------------------

CARD_NAMES = {"mastercard": "Mastercard", "amex": "American Express card"}  # else 'Visa card' (the brand, titled)


@dataclass(frozen=True)
class PaymentWords:
    """How a person names one of their payment methods (`methods`: their records by id, each with a `source`),
    as the fact of `field` and the words: a credit card by its name and last four digits ('your Visa card
    ending in 1234'), anything else by its kind ('your gift card', or with its id when they hold several)."""

    card_names: Mapping[str, str] = field(default_factory=lambda: CARD_NAMES)  # brand -> name (else 'Brand card')
    card_forms: tuple[str, ...] = ("ending in {last_four}",)  # what else counts as naming the card
    shared_by_id: bool = False  # two cards ending in the same digits: each named by its id
    kinds: Mapping[str, str] = field(default_factory=dict)  # source -> its words (else the source read aloud)
    sole: str | None = "your {kind}"  # a kind the person holds once (None: always by id, without other forms)
    field: str = "payment_method_id"  # (last: `field` above is dataclasses')

    def __call__(self, methods: Mapping[str, Record], method_id: str) -> tuple[Fact, str]:
        method = methods[method_id]
        if method["source"] == "credit_card":
            last4 = method["last_four"]
            name = self.card_names.get(method["brand"], method["brand"].title() + " card")
            if not self.shared_by_id or sum(1 for m in methods.values() if m.get("last_four") == last4) == 1:
                forms = (f.format(last_four=last4) for f in self.card_forms)
                return fact(self.field, method_id, *forms), f"your {name} ending in {last4}"
            return fact(self.field, method_id), f"your {name} {method_id}"
        kind = self.kinds.get(method["source"], words(method["source"]))
        if self.sole is not None and sum(1 for m in methods.values() if m["source"] == method["source"]) == 1:
            return fact(self.field, method_id, kind), self.sole.format(kind=kind, id=method_id)
        return fact(self.field, method_id), f"your {kind} {method_id}"
