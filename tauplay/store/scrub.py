"""Keep secrets out of the store: drop secret-looking keys and mask key-looking strings in saved JSON."""

from __future__ import annotations

import re
from typing import Any

MASK = "[redacted]"

# Normalised (lower case, '-' -> '_') key names that are always secrets.
SECRET_KEYS = frozenset({
    "api_key", "apikey", "key", "token", "secret", "password", "passwd", "authorization", "auth",
    "access_token", "refresh_token", "id_token", "bearer", "client_secret", "secret_key", "private_key",
    "access_key", "session_token", "cookie", "x_api_key",
})
# ...and key names ending like this (openai_api_key, hf_token, db_password).
SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password", "_secret_key", "_private_key",
                   "_access_key")

# Strings that look like provider credentials, wherever they appear in a saved string.
_KEY_PATTERNS = re.compile(
    r"""
      \bsk-[A-Za-z0-9_\-]{16,}                 # OpenAI / Anthropic style (sk-, sk-proj-, sk-ant-)
    | \b(?:gsk|pplx|xai)[_\-][A-Za-z0-9]{20,}  # Groq, Perplexity, xAI
    | \bAKIA[0-9A-Z]{16}\b                    # AWS access key id
    | \bgh[pousr]_[A-Za-z0-9]{30,}            # GitHub tokens
    | \bgithub_pat_[A-Za-z0-9_]{30,}
    | \bhf_[A-Za-z0-9]{30,}                   # Hugging Face
    | \bAIza[0-9A-Za-z_\-]{35}                # Google API key
    | \bxox[abposr]-[A-Za-z0-9\-]{10,}        # Slack
    """,
    re.VERBOSE,
)
_AUTH_HEADER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)[^/\s@]+@")
_QUERY_SECRET = re.compile(r"([?&](?:api[_\-]?key|key|token|access_token|secret|password|sig)=)[^&\s#]+",
                           re.IGNORECASE)


def is_secret_key(name: str) -> bool:
    norm = name.strip().lower().replace("-", "_")
    return norm in SECRET_KEYS or norm.endswith(SECRET_SUFFIXES)


def mask_string(text: str) -> str:
    """The text with anything that looks like a credential replaced by [redacted]."""
    if len(text) < 8:  # too short to hold a key; the common case for short values
        return text
    text = _KEY_PATTERNS.sub(MASK, text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    return _QUERY_SECRET.sub(lambda m: f"{m.group(1)}{MASK}", text)


def mask_all(value: Any) -> Any:
    """A copy of domain data (tool arguments and results, diffs, task snapshots) with key-looking strings
    masked. Field names are kept: a record may well have a field called `key` or `token`."""
    if isinstance(value, str):
        return mask_string(value)
    if isinstance(value, dict):
        return {k: mask_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_all(v) for v in value]
    return value


def scrub(value: Any) -> Any:
    """A copy of configuration-like data (participant descriptions, reward info) with secret-looking keys
    dropped and key-looking strings masked."""
    if isinstance(value, str):
        return mask_string(value)
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not (isinstance(k, str) and is_secret_key(k))}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def clean_event_data(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's payload as it may be saved or exported: participant descriptions (session_started) lose
    secret-looking keys; conversation and tool data only have key-like strings masked, so a record's `key`
    field or a tool argument named `token` survives (resume and round trips need them)."""
    return scrub(data) if kind == "session_started" else mask_all(data)
