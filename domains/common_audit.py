"""`instruction_contradicts_data` for the τ-bench customer domains (airline, retail): what an instruction says
about the customer that the database contradicts.

Read from the task's user (`Task.user_id`) and the customer record τ-bench keeps (`users`: name, email, payment
methods): an e-mail that is not theirs, a name that is not theirs, a card "ending in" digits none of their cards
ends in, "your gift card / PayPal / certificate" when they hold none, a reservation or order id that is another
customer's or does not exist. Each is a sentence of the instruction a simulated user would repeat and no agent
could act on as the gold does.
"""

from __future__ import annotations

import re
from typing import Any

from tauplay.core.findings import ERROR, AuditCheck, Finding

CHECK = "instruction_contradicts_data"
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]*\w")
_ENDING = re.compile(r"ending (?:in|with) (\d{4})\b", re.IGNORECASE)
_NAME = r"([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?)"
_SELF = re.compile(r"\b(?i:you are|your name is|you're)\s+" + _NAME + r"\s+" + _NAME + r"\b")
_KINDS = {"gift_card": re.compile(r"\byour (?:\w+ )?gift ?cards?\b", re.IGNORECASE),
          "paypal": re.compile(r"\byour paypal\b", re.IGNORECASE),
          "certificate": re.compile(r"\byour (?:travel )?certificates?\b", re.IGNORECASE)}


def customer_contradictions(owned: dict[str, str], id_pattern: str) -> AuditCheck:
    """The check for a domain whose `owned` tables (table -> the user's field listing its ids: "reservations")
    hold records with a `user_id`, and whose instructions name those ids in the shape `id_pattern`."""
    ids = re.compile(id_pattern)

    def run(view: Any) -> list[Finding]:
        task, state = view.task, view.database.new_state()
        uid = task.user_id
        user = state.get("users", uid) if uid else None
        if user is None and uid:  # published retail tasks name their customer by e-mail
            uid, user = next(((k, u) for k, u in state.rows("users") if u.get("email") == task.user_id), (uid, None))
        if user is None:
            return [Finding(CHECK, ERROR, None, "user_id", f"the task's user {task.user_id!r} is not in the "
                            "database")] if task.user_id else []
        text, out = task.goal, []

        def say(message: str) -> None:
            out.append(Finding(CHECK, ERROR, None, "instruction", message))

        for email in dict.fromkeys(_EMAIL.findall(text)):
            if email.lower() != str(user.get("email", "")).lower():
                say(f"the instruction gives the e-mail {email}; {uid}'s is {user.get('email')}")
        name = user.get("name") or {}
        for first, last in dict.fromkeys(_SELF.findall(text)):
            if (first.lower(), last.lower()) != (str(name.get("first_name", "")).lower(),
                                                 str(name.get("last_name", "")).lower()):
                say(f"the instruction calls the user {first} {last}; {uid} is "
                    f"{name.get('first_name')} {name.get('last_name')}")
        methods = list((user.get("payment_methods") or {}).values())
        fours = {str(m.get("last_four")) for m in methods if m.get("last_four")}
        for digits in dict.fromkeys(_ENDING.findall(text)):
            if digits not in fours:
                say(f"the instruction names a card ending in {digits}; {uid}'s cards end in "
                    f"{', '.join(sorted(fours)) or 'nothing (no card)'}")
        sources = {m.get("source") for m in methods}
        for kind, pattern in _KINDS.items():
            if pattern.search(text) and kind not in sources:
                say(f"the instruction names the user's {kind.replace('_', ' ')}; {uid} holds none")
        for token in dict.fromkeys(ids.findall(text)):
            for table, field in owned.items():
                record = state.get(table, token)
                if record is not None:
                    if record.get("user_id") != uid and token not in (user.get(field) or []):
                        say(f"the instruction names {table[:-1]} {token}, which is {record.get('user_id')}'s, "
                            f"not {uid}'s")
                    break
            else:
                if not any(state.get(t, token) is not None for t in state.base.tables):
                    say(f"the instruction names {token}, which is in no table of the database")
        return out

    return AuditCheck(CHECK, "the instruction says about the customer what the database contradicts", run)
