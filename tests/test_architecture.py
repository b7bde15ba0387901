"""The house: domains are a package of tauplay's own found one way, every package ships, the layer contracts
hold and the architecture document names them, and databases written by earlier versions open and resume."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tauplay.cli import main
from tests.conftest import REPO

# The domains are what the registry names (the `tauplay.domains` entry points): no list of them is kept here.
REGISTERED = {ep.name: ep for ep in entry_points(group="tauplay.domains")}
# The packages of tauplay_domains they come from (tau2: the adapter over tau2-bench's domains), and the domains
# that are a package of their own, registered as a third party's would be.
DOMAIN_PACKAGES = {ep.module.split(".")[1] for ep in REGISTERED.values() if ep.module.startswith("tauplay_domains.")}
BUILT_IN = {name for name, ep in REGISTERED.items() if ep.module == f"tauplay_domains.{name}"}
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_no_bare_domains_package_is_installed(tmp_path: Path) -> None:
    # Run from a folder with no `domains/` in it: the installed name is tauplay_domains, never `domains`.
    out = subprocess.run([sys.executable, "-c", "import domains"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=60)
    assert out.returncode != 0 and "No module named 'domains'" in out.stderr
    out = subprocess.run([sys.executable, "-c", "import tauplay_domains.airline as a; print(a.DOMAIN.name)"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "airline"


def test_every_domain_folder_is_registered_by_its_entry_point_like_a_third_party() -> None:
    """A folder of domains/ that is a package is a domain only through an entry point: one left out of
    `[project.entry-points."tauplay.domains"]` fails here."""
    folders = {p.parent.name for p in (REPO / "domains").glob("*/__init__.py")}
    assert folders == DOMAIN_PACKAGES
    assert all(REGISTERED[name].value == f"tauplay_domains.{name}:DOMAIN" for name in BUILT_IN)
    assert len(BUILT_IN) >= 11


def test_tauplay_domains_lists_every_registered_domain(capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.core.domain import installed_domains

    assert main(["domains"]) == 0
    out = capsys.readouterr().out
    assert BUILT_IN <= set(installed_domains())
    assert all(re.search(rf"^\s*{re.escape(name)}\b", out, re.M) for name in installed_domains()), out


def test_the_entry_points_are_the_only_way_domains_are_found(tmp_path: Path) -> None:
    # With the entry points hidden, no built-in domain is found, though their package stays importable.
    code = ("import importlib.metadata as md, tauplay_domains.airline\n"
            "md.entry_points = lambda **kw: []\n"
            "from tauplay.core.domain import DomainError, available_domains, get_domain\n"
            "try:\n    get_domain('airline')\nexcept DomainError as e:\n    print(available_domains(), e)\n")
    # The memo of the entry points (tauplay.core.installed) off: it remembers what importlib.metadata said.
    env = {**os.environ, "TAUPLAY_CACHE_DIR": "off"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] unknown domain 'airline' (available: none installed)"


def test_every_package_folder_is_installed() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    mapping = PYPROJECT["tool"]["setuptools"]["package-dir"]
    on_disk = set()
    for name, folder in mapping.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(root)
            on_disk.add(".".join([name, *rel.parts]))
    assert on_disk == listed


def test_the_constraint_solver_is_a_core_dependency() -> None:
    assert any(d.startswith("python-constraint2") for d in PYPROJECT["project"]["dependencies"])


def test_every_domain_package_is_in_the_independence_contract() -> None:
    (contract,) = [c for c in PYPROJECT["tool"]["importlinter"]["contracts"] if c["type"] == "independence"]
    assert set(contract["modules"]) == {f"tauplay_domains.{name}" for name in DOMAIN_PACKAGES}


def test_the_architecture_document_matches_the_contracts() -> None:
    doc = (REPO / "docs" / "architecture.md").read_text()
    contracts = PYPROJECT["tool"]["importlinter"]["contracts"]
    assert len(contracts) >= 10
    for contract in contracts:
        assert contract["name"] in doc, f"docs/architecture.md does not state the contract: {contract['name']}"


def test_lint_imports_passes() -> None:
    linter = Path(sys.executable).with_name("lint-imports")
    if not linter.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    out = subprocess.run([str(linter)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:]
    assert "0 broken" in out.stdout


def test_no_wire_dict_reads_outside_the_event_module() -> None:
    """Readers use the typed payloads; `.data.get("…")` on events lives nowhere in tauplay."""
    offenders = []
    for path in (REPO / "tauplay").rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"\.data\.get\(|\.data\[[\"']", line):
                offenders.append(f"{path.relative_to(REPO)}:{n}")
    assert offenders == []


# -- databases written by earlier versions ----------------------------------------------------------------

FIXTURE = REPO / "tests" / "fixtures" / "store_v3_main.db"


def test_a_database_from_the_previous_main_opens_exports_and_resumes(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.store import SessionStore

    db = tmp_path / "old.db"
    shutil.copy(FIXTURE, db)
    with SessionStore(str(db)) as store:
        records = {r.id: r for r in store.list_sessions()}
        assert len(records) == 5
        finished = [r for r in records.values() if r.status == "finished"]
        assert len(finished) == 4 and all(r.reward == 1.0 for r in finished)
        for r in finished:  # old events read into typed payloads
            events = store.events(r.id)
            assert events[0].kind == "session_started" and events[-1].kind == "terminated"
            assert all(e.payload is not None for e in events)
        assert sum(r.annotation_count for r in records.values()) == 1
        assert store.unfinished_sessions(batch_id="killedbatch1")[0].id == "f" * 32
    assert main(["export", "sessions", "--db", str(db), "--out", str(tmp_path / "s.jsonl")]) == 0
    assert main(["resume", "--batch", "killedbatch1", "--db", str(db), "--json"]) == 0
    assert '"reward": 1.0' in capsys.readouterr().out
    with SessionStore(str(db)) as store:
        resumed = store.get_session("f" * 32)
        assert resumed.status == "finished" and resumed.reward == 1.0
        kinds = [e.kind for e in store.events(resumed.id)]
        assert kinds.count("terminated") == 1 and kinds[5] == "notice"  # cut after the 5th event, then resumed
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
