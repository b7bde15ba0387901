"""Domains are found by name; a third party adds one through the `tauplay.domains` entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tauplay.core.domain import DomainError, available_domains, get_domain
from tests.conftest import REPO

PLUGIN = '''
from pathlib import Path
from tauplay.core.domain import Domain, TableSpec
from tauplay.core.tools import tool, collect_tools
import sys


@tool("read")
def ping(db, name: str) -> str:
    """Say hello.

    Args:
        name: Who to greet.
    """
    return f"pong {name}"


DOMAIN = Domain(name="toy", title="Toy", tools=collect_tools(sys.modules[__name__]), tables=[TableSpec("things", "id")],
                package_dir=Path(__file__).parent, generate=lambda seed: {"things": {"a": {"id": "a"}}})
'''


def test_builtin_domain_by_name_and_unknown_name():
    assert "airline" in available_domains()
    assert get_domain("airline").name == "airline"
    with pytest.raises(DomainError, match="unknown domain 'nope'"):
        get_domain("nope")


def test_third_party_domain_through_an_entry_point(tmp_path: Path):
    (tmp_path / "toy_domain.py").write_text(PLUGIN)
    dist = tmp_path / "toy_domain-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-domain\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tauplay.domains]\ntoy = toy_domain:DOMAIN\n")
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from tauplay.core.domain import get_domain, available_domains\n"
            "from tauplay.core.environment import Environment\n"
            "d = get_domain('toy'); print('toy' in available_domains(), Environment.for_domain(d).call('ping', {'name': 'x'}).output)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=REPO,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True pong x"


def test_a_domain_that_needs_a_missing_package_is_named_not_installed_and_listings_skip_it(tmp_path: Path):
    """A plug-in's module may say, without importing its optional package, that it cannot load here: every
    "all domains" listing (`installed_domains`, `tauplay domains`, the report's graphs) leaves it out and
    names it as not installed, with the reason."""
    (tmp_path / "toy_domain.py").write_text(PLUGIN + "\n\ndef unavailable(name):\n"
                                            "    return f\"domain '{name}' needs toypkg: pip install toypkg\"\n")
    dist = tmp_path / "toy_domain-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-domain\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tauplay.domains]\ntoy = toy_domain:DOMAIN\n")
    code = ("import sys, json; sys.path.insert(0, sys.argv[1])\n"
            "from tauplay.core.domain import available_domains, installed_domains, not_installed_domains\n"
            "from tauplay import cli\n"
            "print(json.dumps(['toy' in available_domains(), 'toy' in installed_domains(),"
            " not_installed_domains().get('toy')]))\n"
            "sys.exit(cli.main(['domains']))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=REPO,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    first, *listing = out.stdout.splitlines()
    assert first == '[true, false, "domain \'toy\' needs toypkg: pip install toypkg"]'
    assert "toy          not installed: domain 'toy' needs toypkg: pip install toypkg" in listing
    assert any(line.startswith("airline ") for line in listing)


def test_installed_and_not_installed_domains_split_the_registry():
    import importlib.util

    from tauplay.core.domain import installed_domains, not_installed_domains

    installed, missing = installed_domains(), not_installed_domains()
    assert set(installed).isdisjoint(missing) and set(installed) | set(missing) == set(available_domains())
    tau2 = {"tau2-airline", "tau2-retail", "tau2-telecom", "tau2-mock"}
    if importlib.util.find_spec("tau2") is None:
        assert tau2 <= set(missing) and all("pip install -e '.[tau2]'" in missing[n] for n in tau2)
    else:
        assert tau2 <= set(installed)
    assert {"airline", "escape", "travel"} <= set(installed)
