"""The package list in pyproject.toml: every folder with an __init__.py under tauplay/ and domains/ is
installed (a folder left out would import from a checkout and be missing from a wheel)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    installed_as = {folder: name for name, folder in config["package-dir"].items()}
    found = set()
    for init in [*REPO.glob("tauplay/**/__init__.py"), *REPO.glob("domains/**/__init__.py")]:
        parts = init.parent.relative_to(REPO).parts
        found.add(".".join((installed_as[parts[0]], *parts[1:])))
    assert found == set(config["packages"])


def test_the_constraint_solver_is_a_core_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.startswith("python-constraint2") for d in project["dependencies"])
