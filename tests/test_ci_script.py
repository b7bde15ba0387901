"""CI runs the README's test command literally, before anything else, so the path a newcomer takes is the
one CI takes first; the two lines cannot drift apart."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _readme_commands() -> dict[int, str]:
    """The numbered commands of the README's first code block: {1: line, 2: line}."""
    block = re.search(r"```bash\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "the README starts with a bash block of its two commands"
    lines = [ln for ln in block.group(1).splitlines() if ln.strip()]
    out: dict[int, str] = {}
    for comment, command in zip(lines[::2], lines[1::2], strict=True):
        number = re.match(r"# (\d)\. ", comment)
        assert number, comment
        out[int(number.group(1))] = command
    return out


def _ci_script() -> str:
    return (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command_word_for_word() -> None:
    match = re.search(r'^README_TEST_COMMAND="(.*)"$', _ci_script(), re.M)
    assert match, ".ci/run names the README's test command in README_TEST_COMMAND"
    assert match.group(1) == _readme_commands()[2]


def test_the_readme_command_runs_before_anything_is_installed() -> None:
    lines = _ci_script().splitlines()
    runs = next(i for i, ln in enumerate(lines) if '"$README_TEST_COMMAND"' in ln)
    installs = [i for i, ln in enumerate(lines)
                if re.search(r"pip install|apt-get install", ln) and not ln.startswith(("README_TEST_COMMAND=", "#"))]
    assert installs and runs < min(installs)
    assert "git clone" in lines[runs - 1] and "mktemp" in "\n".join(lines[:runs])  # a fresh clone, not this one


def test_the_two_readme_commands_use_only_what_a_fresh_machine_has() -> None:
    commands = _readme_commands()
    assert set(commands) == {1, 2}
    for line in commands.values():
        words = shlex.split(line)
        assert words[:4] == ["python3", "-m", "venv", ".venv"]
        assert "&&" in words and "sudo" not in words
    assert commands[1].endswith(".venv/bin/tauplay") and "pip install -e ." in commands[1]
    assert commands[2].endswith(".venv/bin/python -m pytest -q") and "'.[test]'" in commands[2]
