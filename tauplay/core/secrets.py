"""Secrets out of every text tauplay saves, logs, exports or prints: the values of the key variables in use,
credentials in URLs, and strings shaped like real provider keys or authorization headers. Ordinary text is never
touched: "Basic Economy", "token bucket" or "basic troubleshooting" are words, not credentials.

Pure functions of the text and the process environment; the store applies them to everything it saves
(tauplay.store.scrub), the model client to its error messages, the commands to what they print.
"""

from __future__ import annotations

import base64
import binascii
import functools
import os
import re

MASK = "[redacted]"

# Normalised (lower case, '-' -> '_') key names that are always secrets.
SECRET_KEYS = frozenset({
    "api_key", "apikey", "key", "token", "secret", "password", "passwd", "authorization", "auth",
    "access_token", "refresh_token", "id_token", "bearer", "client_secret", "secret_key", "private_key",
    "access_key", "session_token", "cookie", "x_api_key",
})
# ...and key names ending like this (openai_api_key, hf_token, db_password).
SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_secret", "_password", "_secret_key", "_private_key",
                   "_access_key", "_key_id", "_access_key_id")

# Strings that look like provider credentials, wherever they appear.
_KEY_PATTERNS = re.compile(
    r"""
      \bsk-[A-Za-z0-9_\-]{16,}                 # OpenAI / Anthropic style (sk-, sk-proj-, sk-ant-)
    | \b(?:gsk|pplx|xai)[_\-][A-Za-z0-9]{20,}  # Groq, Perplexity, xAI
    | \b(?:AKIA|ASIA)[0-9A-Z]{16}\b            # AWS access key id (long-lived, temporary)
    | \bgh[pousr]_[A-Za-z0-9]{30,}            # GitHub tokens
    | \bgithub_pat_[A-Za-z0-9_]{30,}
    | \bhf_[A-Za-z0-9]{30,}                   # Hugging Face
    | \bAIza[0-9A-Za-z_\-]{35}                # Google API key
    | \bxox[abposr]-[A-Za-z0-9\-]{10,}        # Slack
    | \beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}  # a JWT
    """,
    re.VERBOSE,
)
# Substrings one of which every match of _KEY_PATTERNS holds: most text has none, and `in` is far cheaper than
# trying the alternation at every position.
_KEY_HINTS = ("sk-", "AKIA", "ASIA", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_", "hf_", "AIza", "xox",
              "eyJ", "gsk", "pplx", "xai")
_AUTH_HINTS = ("bearer", "basic", "token", "authorization")

# `Bearer <token>` / `Token <token>` / `Basic <base64>`: masked only when what follows is credential-shaped.
_AUTH_HEADER = re.compile(r"\b(Bearer|Token|Basic)(\s+)([A-Za-z0-9._~+/=\-]{8,})", re.IGNORECASE)
# An explicit authorization header or field: whatever follows is the credential.
_AUTH_FIELD = re.compile(r"(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:Bearer|Token|Basic)\s+)?)"
                         r"[A-Za-z0-9._~+/=\-]{4,}", re.IGNORECASE)
_URL_PASSWORD = re.compile(r"(://[^/\s:@]+:)[^/\s@]+@")
_QUERY_SECRET = re.compile(r"([?&](?:api[_\-]?key|key|token|access_token|secret|password|sig)=)[^&\s#]+",
                           re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z]+(?:[-_ ][A-Za-z]+)*\.?")  # letters (and joiners) only: a word or a phrase


@functools.lru_cache(maxsize=4096)
def is_secret_key(name: str) -> bool:
    """Whether a field or variable of this name holds a secret (api_key, OPENAI_API_KEY, hf_token...)."""
    norm = name.strip().lower().replace("-", "_")
    return norm in SECRET_KEYS or norm.endswith(SECRET_SUFFIXES)


def _is_key_value(value: str) -> bool:
    """Whether a configured value is worth masking wherever it appears: long enough and not a word
    ("dummy", "not-needed", "EMPTY" are what local servers are given; masking them would corrupt text)."""
    value = value.strip()
    return len(value) >= 8 and not (len(value) < 24 and _WORDS.fullmatch(value))


def configured_secrets(environ: os._Environ[str] | dict[str, str] | None = None) -> tuple[str, ...]:
    """The values of the secret variables set in the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
    TAUPLAY_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN, any *_API_KEY / *_TOKEN / *_SECRET / *_PASSWORD...),
    longest first, so that one value containing another is masked whole."""
    if environ is not None:
        return _longest_first(frozenset(v for k, v in environ.items() if is_secret_key(k)))
    values = []
    for name in _secret_names():
        value = os.environ.get(name)
        if value:
            values.append(value)
    return _longest_first(frozenset(values))


_names: tuple[int, tuple[str, ...]] = (-1, ())


def _secret_names() -> tuple[str, ...]:
    """The secret-looking variable names of the environment, listed again whenever the number of variables
    changes (walking os.environ decodes every entry: too slow for each saved event); values are read fresh."""
    global _names
    count = len(os.environ)
    if _names[0] != count:
        _names = (count, tuple(k for k in os.environ if is_secret_key(k)))
    return _names[1]


@functools.lru_cache(maxsize=64)
def _longest_first(values: frozenset[str]) -> tuple[str, ...]:
    found = {v.strip() for v in values if _is_key_value(v)}
    return tuple(sorted(found, key=len, reverse=True))


def _credential_shaped(token: str) -> bool:
    """A bearer token: long, with letters and digits mixed (what a generated credential looks like)."""
    core = token.rstrip(".,;:")
    return (len(core) >= 20 and any(c.isdigit() for c in core) and any(c.isalpha() for c in core)) or \
        bool(_KEY_PATTERNS.fullmatch(core))


def _basic_shaped(token: str) -> bool:
    """`Basic` credentials: base64 of `user:password`."""
    core = token.rstrip(".,;:")
    if len(core) < 8 or len(core) % 4:
        return False
    try:
        decoded = base64.b64decode(core, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in decoded and decoded.isprintable()


def _auth(match: re.Match[str]) -> str:
    scheme, space, token = match.groups()
    shaped = _basic_shaped(token) if scheme.lower() == "basic" else _credential_shaped(token)
    return f"{scheme}{space}{MASK}" if shaped else match.group()


def mask_text(text: str, secrets: tuple[str, ...] | None = None) -> str:
    """The text with every secret replaced by [redacted]: the configured key values (`secrets`, by default
    those of the environment now), credentials in URLs, and real credential shapes."""
    if secrets is None:
        secrets = configured_secrets()
    for value in secrets:
        if value in text:
            text = text.replace(value, MASK)
    if len(text) < 8:  # too short to hold a key; the common case for short values
        return text
    if any(hint in text for hint in _KEY_HINTS):
        text = _KEY_PATTERNS.sub(MASK, text)
    low = text.lower()
    if any(hint in low for hint in _AUTH_HINTS):
        text = _AUTH_FIELD.sub(lambda m: f"{m.group(1)}{MASK}", text)
        text = _AUTH_HEADER.sub(_auth, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    if "=" in text:
        text = _QUERY_SECRET.sub(lambda m: f"{m.group(1)}{MASK}", text)
    return text


def unmasked(value: str, environ: os._Environ[str] | dict[str, str] | None = None) -> str | None:
    """The real value behind a saved, masked one (`http://bob:[redacted]@host/v1`), read again from the
    environment: the one variable value that masks to exactly it. The value itself when it holds no mask;
    None when no variable (or more than one different one) has it. What runs must never be the masked text."""
    if MASK not in value:
        return value
    env = os.environ if environ is None else environ
    found = {v for v in env.values() if len(v) >= len(value) - len(MASK) and mask_text(v) == value}
    return found.pop() if len(found) == 1 else None
