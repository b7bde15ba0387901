"""The memo of what is installed (tauplay.core.installed): it answers as importlib.metadata does, saves that
module's import on a warm start, and is never stale when a package is added, edited or removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points as from_metadata
from importlib.metadata import version as metadata_version
from pathlib import Path

from tauplay.core.installed import Registered, entry_points, version
from tests.conftest import REPO

GROUP = "tauplay.domains"


def _dist(folder: Path, name: str, lines: str) -> Path:
    dist = folder / f"{name}-1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}\n")
    return dist


def test_it_answers_what_importlib_metadata_answers(tmp_path: Path) -> None:
    expected = {}
    for ep in from_metadata(group=GROUP):
        expected.setdefault(ep.name, ep.value)
    cold = entry_points(GROUP, tmp_path)
    warm = entry_points(GROUP, tmp_path)  # read from the memo written by the call before
    assert len(list(tmp_path.iterdir())) == 1
    assert {n: r.value for n, r in cold.items()} == expected == {n: r.value for n, r in warm.items()}
    assert warm["airline"].load() is from_metadata(group=GROUP)["airline"].load()
    assert version("pydantic-core") == version("pydantic_core") == metadata_version("pydantic-core")
    assert version("no-such-package-here") is None


def test_an_added_or_edited_entry_point_is_seen_at_once(tmp_path: Path, monkeypatch) -> None:
    memo, path_dir = tmp_path / "memo", tmp_path / "site"
    monkeypatch.syspath_prepend(str(path_dir))
    path_dir.mkdir()
    assert "toy" not in entry_points(GROUP, memo)
    dist = _dist(path_dir, "toy_domain", "toy = toy_domain:DOMAIN")
    assert entry_points(GROUP, memo)["toy"] == Registered("toy", "toy_domain:DOMAIN")
    # Edited in place (its folder's listing unchanged): the size and time of entry_points.txt change the name.
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\ntoy = toy_domain.other:DOMAIN\n")
    os.utime(dist / "entry_points.txt", ns=(1, 1))
    assert entry_points(GROUP, memo)["toy"].value == "toy_domain.other:DOMAIN"
    for f in dist.iterdir():
        f.unlink()
    dist.rmdir()
    assert "toy" not in entry_points(GROUP, memo)


def test_a_broken_memo_is_ignored_and_none_keeps_nothing(tmp_path: Path) -> None:
    entry_points(GROUP, tmp_path)
    (memo,) = tmp_path.iterdir()
    for broken in ("{not json", json.dumps([1, [["airline"]]]), json.dumps([99, []]), "\udcff"):
        memo.write_text(broken, encoding="utf-8", errors="surrogateescape")
        assert entry_points(GROUP, tmp_path)["airline"].value.endswith(":DOMAIN")
    nothing = tmp_path / "none"
    assert "airline" in entry_points(GROUP, None) and not nothing.exists()


def test_a_warm_start_does_not_import_importlib_metadata(tmp_path: Path) -> None:
    code = ("import sys\nfrom tauplay.core.domain import get_domain, available_domains\n"
            "get_domain('airline'); available_domains()\nprint('importlib.metadata' in sys.modules)\n")
    env = {**os.environ, "TAUPLAY_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                           timeout=120) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert [r.stdout.strip() for r in runs] == ["True", "False"]


def test_loading_a_domain_scans_the_installed_set_once(tmp_path: Path, monkeypatch) -> None:
    """Its entry points and pydantic-core's version (the tool schemas' cache) come from one scan."""
    from tauplay.core import domain as domain_module
    from tauplay.core import installed

    monkeypatch.setenv("TAUPLAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(domain_module, "_LOADED", {})
    scans = []
    real = installed._scan_now

    def counted() -> tuple[str, dict[str, str]]:
        scans.append(1)
        return real()

    monkeypatch.setattr(installed, "_scan_now", counted)
    for _ in range(2):  # the second load reads the memo and the schemas' cache
        domain_module._LOADED.clear()
        scans.clear()
        assert domain_module.get_domain("airline").name == "airline"
        assert scans == [1]
    scans.clear()
    assert version("pydantic-core") == metadata_version("pydantic-core")  # outside a load: scanned when asked
    assert scans == [1]
