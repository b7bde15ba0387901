"""What a write will cost (or refund) before it is made, as a careful agent works it out: from what the domain's
read tools showed in the session, never from the database behind them.

A domain declares `Domain.quote`: (write tool, its arguments, the calls seen so far) -> a `Quote` that either
names the reads still needed (`needs`: real calls an agent makes in the session, with values in view) or gives
the amount and how it was worked out; None when the domain prices no such write. Pure data; the hook is pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SeenCall:
    """One successful call of the session: its tool, arguments and output (parsed JSON; the text when not JSON)."""

    name: str
    arguments: Mapping[str, Any]
    output: Any


@dataclass(frozen=True)
class ReadCall:
    """A read the quote needs first."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Quote:
    """The reads still needed (`needs`), or the amount: > 0 charged, < 0 refunded, 0 nothing either way; `basis`
    says in words how it is worked out ("the business fare of HAT118 on 2024-05-26 is $559 ...")."""

    needs: tuple[ReadCall, ...] = ()
    amount: float | None = None
    basis: str = ""

    def sentence(self) -> str:
        """"This change will cost $698 (...)." / "You will get $120 back (...)." / "" while reads are needed."""
        if self.needs or self.amount is None:
            return ""
        why = f" ({self.basis})" if self.basis else ""
        amount = round(self.amount, 2)
        if amount > 0:
            return f"This change will cost {_dollars(amount)}{why}."
        if amount < 0:
            return f"You will get {_dollars(-amount)} back for this change{why}."
        return f"This change costs nothing extra{why}."


def _dollars(v: float) -> str:
    return f"${v:,.2f}".replace(".00", "")
