"""Reads of one record by id, said once for every domain.

`lookup` / `finder` are for tools: a missing record is the caller's mistake, refused with a ToolError whose
message names what was asked for (`"user 'u1' not found"` plus an optional hint). `must_get` is for code
outside the tools (Tracer hints, starter scripts): the id comes from the same database, so a missing record
is a bug and fails loudly with a LookupError naming the table and id."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from random import Random
from typing import Any

from tauplay.core.db import State
from tauplay.core.tools import ToolError

Hint = str | Callable[[str], str]


def lookup(db: State, table: str, key: str, what: str, hint: Hint = "", *,
           norm: Callable[[str], str] | None = None, quote: bool = True, message: str = "") -> dict[str, Any]:
    """The record `key` of `table` (looked up as `norm(key)` when given), or a ToolError
    "`what` 'key' not found`hint`" naming the id as the caller wrote it (a callable hint gets that id;
    `quote=False` leaves the quotes off). A domain with its own wording gives `message`, with `{key}`."""
    record = db.get(table, norm(key) if norm else key)
    if record is None:
        if message:
            raise ToolError(message.format(key=key))
        shown = f"'{key}'" if quote else key
        raise ToolError(f"{what} {shown} not found{hint(key) if callable(hint) else hint}")
    return record


def finder(table: str, what: str, hint: Hint = "", *, norm: Callable[[str], str] | None = None,
           quote: bool = True, message: str = "") -> Callable[[State, str], dict[str, Any]]:
    """A domain's one-line lookup for one table: `_user = finder("users", "user")`."""
    def find(db: State, key: str) -> dict[str, Any]:
        return lookup(db, table, key, what, hint, norm=norm, quote=quote, message=message)
    return find


def id_where(db: State, table: str, field: str | None, wanted: str, message: str,
             norm: Callable[[Any], str] = str.lower) -> str:
    """The id of the first record of `table` whose `field` (the whole record when None), read through `norm`,
    is `wanted` (a find-by-email or find-by-phone tool), or a ToolError saying `message`."""
    for key, record in db.rows(table):
        if norm(record[field] if field else record) == wanted:
            return key
    raise ToolError(message)


def id_by_name(db: State, table: str, first: str, last: str, also: Callable[[dict[str, Any]], bool], message: str,
               *, at: str | None = "name") -> str:
    """The id of the first record of `table` named `first` `last` (given in lower case; the record's name in
    any case, kept under its field `at`, or at its top level when `at` is None) for which `also` holds (the
    birth date or zip code a find-by-name tool asks for too), or a ToolError saying `message`."""
    for key, record in db.rows(table):
        name = record[at] if at else record
        if name["first_name"].lower() == first and name["last_name"].lower() == last and also(record):
            return key
    raise ToolError(message)


def checked_date(value: str, name: str, *, shape: str = "{name} must be a date written YYYY-MM-DD, got '{value}'",
                 unreal: str = "{name} '{value}' is not a real date") -> str:
    """`value` when it is a real date written YYYY-MM-DD, or a ToolError saying `shape` (not so written) or
    `unreal` (no such day), each with `{name}` (the argument's) and `{value}`."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ToolError(shape.format(name=name, value=value))
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ToolError(unreal.format(name=name, value=value)) from None
    return value


def next_id(db: State, table: str, prefix: str, *, after: int = 0, width: int = 0) -> str:
    """The id after the highest `prefix`<number> key of `table` (number `after` + 1 when there is none), the
    number zero-padded to `width` digits: derived from the data, so a replay makes the same id."""
    numbers = [int(key[len(prefix):]) for key, _ in db.rows(table) if key[len(prefix):].isdigit()]
    return f"{prefix}{max(numbers, default=after) + 1:0{width}d}"


def digits_of(text: str) -> str:
    """The digits of `text`, in order."""
    return "".join(c for c in text if c.isdigit())


def upper_id(key: str) -> str:
    """Ids as people type them: surrounding spaces dropped, letters upper case."""
    return key.strip().upper()


def phone_digits(phone: str, what: str = "phone number") -> str:
    """A US phone number as its ten digits (punctuation and a leading country code 1 ignored), or a
    ToolError saying it is not a 10-digit `what`."""
    digits = digits_of(phone)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10:
        raise ToolError(f"'{phone}' is not a 10-digit {what}")
    return digits


def drawn_with_cards(records: dict[str, dict[str, Any]], rng: Random) -> tuple[str, dict[str, Any], list[str]]:
    """A customer drawn from `records` (id -> record), their record, and the ids of their credit cards."""
    key = rng.choice(sorted(records))
    record = records[key]
    return key, record, sorted(k for k, m in record["payment_methods"].items() if m["source"] == "credit_card")


def must_get(state: State, table: str, key: str) -> dict[str, Any]:
    """The record `key` of `table`, which the caller knows is there (its id comes from the same database)."""
    record = state.get(table, key)
    if record is None:
        raise LookupError(f"{table}/{key} is not in the database")
    return record


def owners_others(state: State, table: str, key: str, what: str) -> list[tuple[str, str]]:
    """The other records of `table` its record `key`'s user holds (the user's list of them is named like the
    table: `users[...]["orders"]`), each with `what` it is: wrong-but-plausible values for an injection."""
    record = state.get(table, key)
    user = state.get("users", record["user_id"]) if record else None
    return [] if user is None else [(k, what) for k in user[table] if k != key]


def users_other_payments(state: State, arguments: dict[str, Any], payment_id: str, table: str,
                         key: str) -> list[tuple[str, str]]:
    """The other payment methods of the user a call is about: its `user_id`, or the owner of the record of
    `table` its argument `key` names (a reservation, an order)."""
    user_id = arguments.get("user_id")
    if not isinstance(user_id, str):
        record = state.get(table, str(arguments.get(key, "")))
        user_id = record.get("user_id") if record else None
    user = state.get("users", user_id) if isinstance(user_id, str) else None
    return [] if user is None else [(p, "another payment method of the same user")
                                    for p in sorted(user["payment_methods"]) if p != payment_id]


def by_argument(table: dict[str, Callable[[Any, str], list[tuple[Any, str]]]]) -> Callable[[Any], list[tuple[Any, str]]]:
    """A domain's `alternatives` hook as a table: argument name -> (query, its value) -> wrong-but-plausible
    values; an argument not in it, or whose value is not text, gets none (tauplay's generic fallback)."""
    def alternatives(query: Any) -> list[tuple[Any, str]]:
        find = table.get(query.name)
        return find(query, query.value) if find is not None and isinstance(query.value, str) else []
    return alternatives
