"""Keep secrets out of the store: drop secret-looking keys and mask secrets in saved JSON. The masking of text
itself (configured key values, credentials in URLs, real credential shapes) is tauplay.core.secrets."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tauplay.core.secrets import (
    MASK,
    SECRET_KEYS,
    SECRET_SUFFIXES,
    configured_secrets,
    is_secret_key,
    mask_text,
)

__all__ = ["MASK", "SECRET_KEYS", "SECRET_SUFFIXES", "clean_event_data", "is_secret_key", "mask_all",
           "mask_string", "scrub"]


def mask_string(text: str) -> str:
    """The text with anything that is a credential replaced by [redacted]."""
    return mask_text(text)


@lru_cache(maxsize=2048)
def _masked(text: str, secrets: tuple[str, ...]) -> str:
    # Every session saves the same long texts again (its tools' schemas, the policy in its prompts): masking
    # them once per process took ~0.3 ms of each turn's bookkeeping. The configured secrets are part of the key.
    return mask_text(text, secrets)


def _mask_text(text: str, secrets: tuple[str, ...]) -> str:
    return _masked(text, secrets) if 8 <= len(text) <= 16_384 else mask_text(text, secrets)  # at most 2048 x 16 KiB held


def _mask_all(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return _mask_text(value, secrets)
    if isinstance(value, dict):
        return {k: _mask_all(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_all(v, secrets) for v in value]
    return value


_secret_key = lru_cache(maxsize=4096)(is_secret_key)  # a session_started event has hundreds of (repeated) keys


def _scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return _mask_text(value, secrets)
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items() if not (isinstance(k, str) and _secret_key(k))}
    if isinstance(value, list | tuple):
        return [_scrub(v, secrets) for v in value]
    return value


def mask_all(value: Any) -> Any:
    """A copy of domain data (tool arguments and results, diffs, task snapshots) with secrets masked. Field
    names are kept: a record may well have a field called `key` or `token`."""
    return _mask_all(value, configured_secrets())


def scrub(value: Any) -> Any:
    """A copy of configuration-like data (participant descriptions, reward info) with secret-looking keys
    dropped and secrets masked."""
    return _scrub(value, configured_secrets())


def clean_event_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's payload as it may be saved or exported: participant descriptions (session_started) lose
    secret-looking keys; conversation and tool data only have secrets masked, so a record's `key` field or a
    tool argument named `token` survives (resume and round trips need them)."""
    secrets = configured_secrets()
    cleaned: dict[str, Any] = _scrub(data, secrets) if kind == "session_started" else _mask_all(data, secrets)
    return cleaned
