"""Cost of a call on the lean path, from the same price table litellm uses (the copy it ships), read as JSON
without importing litellm. A model the table does not list (any local server's) costs 0, as with litellm."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

TABLE_FILE = "model_prices_and_context_window_backup.json"
_table: dict[str, Any] | None = None


def _load() -> dict[str, Any]:
    global _table
    if _table is None:
        _table = {}
        spec = importlib.util.find_spec("litellm")  # finds the package without running it
        folders = list(spec.submodule_search_locations or []) if spec else []
        for folder in folders:
            path = Path(folder) / TABLE_FILE
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(loaded, dict):
                _table = loaded
                break
    return _table


def _entry(provider: str, name: str) -> dict[str, Any] | None:
    table = _load()
    keys = [f"{provider}/{name}"] + ([name] if provider == "openai" else [])
    for key in keys:
        entry = table.get(key)
        if isinstance(entry, dict):
            return entry
    return None


def cost_of(provider: str, name: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
    """US dollars for one call: prompt and completion tokens at the table's per-token prices (cached prompt
    tokens at the cache-read price where the table has one)."""
    if not prompt_tokens and not completion_tokens:
        return 0.0
    entry = _entry(provider, name)
    if entry is None:
        return 0.0
    try:
        inp = float(entry.get("input_cost_per_token") or 0.0)
        out = float(entry.get("output_cost_per_token") or 0.0)
        cached_price = float(entry.get("cache_read_input_token_cost") or inp)
    except (TypeError, ValueError):
        return 0.0
    cached = min(max(cached_tokens, 0), prompt_tokens)
    return (prompt_tokens - cached) * inp + cached * cached_price + completion_tokens * out
