"""The core is usable without the TUI: importing it never drags in textual, litellm or the store."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

CORE_MODULES = ["tauplay.core.db", "tauplay.core.schema", "tauplay.core.tools", "tauplay.core.domain",
                "tauplay.core.environment", "tauplay.core.graph", "tauplay.core.evaluation", "tauplay.core.tasks",
                "tauplay.core.emotions", "tauplay.core.verify", "tauplay.core.arith", "domains.airline",
                "tauplay.cli", "tauplay.commands.verify"]


def test_core_imports_neither_textual_nor_litellm_nor_the_store():
    code = (
        "import sys, importlib\n"
        f"for m in {CORE_MODULES!r}: importlib.import_module(m)\n"
        "from tauplay.core.domain import get_domain, available_domains\n"
        "for name in available_domains(): get_domain(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm', 'sqlmodel', 'sqlalchemy', 'tauplay.store'))\n"
        "bad += sorted(m for m in sys.modules if m.startswith(('tauplay.store', 'tauplay.tui')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
