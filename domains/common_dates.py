"""Date arithmetic on ISO dates ('2024-05-16'), as several domains' constraint tasks and Tracer hints do it."""

from __future__ import annotations

from datetime import date, timedelta


def shift_days(iso: str, days: int) -> str:
    """The ISO date `days` after `iso` (before it when negative)."""
    return (date.fromisoformat(iso) + timedelta(days=days)).isoformat()


def dates_from(first: str, last: str) -> list[str]:
    """Every date from `first` to `last`, both included (none when `first` is later)."""
    return [shift_days(first, i) for i in range((date.fromisoformat(last) - date.fromisoformat(first)).days + 1)]
