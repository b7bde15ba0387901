"""The app commands say what is wrong instead of hanging or opening a screen with bad choices."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO


def tauplay(*args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}  # no TAUPLAY_FORCE_TUI; stdout is a pipe
    return subprocess.run([sys.executable, "-m", "tauplay", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=60, stdin=subprocess.DEVNULL, env=env)


@pytest.mark.parametrize("args", [["review"], ["validate", "--domain", "airline"], ["--role", "user"], []])
def test_screens_need_a_terminal(args: list[str]):
    done = tauplay(*args)
    assert done.returncode == 2
    assert "the app needs a terminal" in done.stderr and "Traceback" not in done.stderr


def test_bad_choices_for_the_home_screen_are_refused_before_it_opens():
    done = tauplay("--emotion", "grumpyish")
    assert done.returncode == 2
    assert "unknown emotion 'grumpyish'" in done.stderr and "frustrated" in done.stderr
    done = tauplay("--domain", "pirates")
    assert done.returncode == 2 and "unknown domain 'pirates'" in done.stderr


def test_top_level_help_and_unknown_command():
    assert "commands:" in tauplay("--help").stdout
    done = tauplay("frobnicate")
    assert done.returncode == 2 and "unknown command 'frobnicate'" in done.stderr


def test_every_command_that_opens_the_store_declares_db_one_way():
    """--db comes from one builder: every command that has it says the same (with what it keeps there at most),
    and what it says is what the store opens ($TAUPLAY_DB, then the default file)."""
    from tauplay.cli import COMMANDS, _parser_for
    from tauplay.commands._common import DB_HELP
    from tauplay.store.engine import DEFAULT_PATH, ENV_VAR

    helps = {}
    for name in COMMANDS:
        parser, _ = _parser_for(name)
        for action in parser._actions:
            if "--db" in action.option_strings:
                helps[name] = action.help
    assert len(helps) >= 14, sorted(helps)
    head, tail = DB_HELP.split("{purpose}")
    assert all(h is not None and h.startswith(head) and h.endswith(tail) for h in helps.values()), helps
    assert f"${ENV_VAR} or {DEFAULT_PATH}" in tail


def test_validate_reads_a_task_set_name_as_verify_does():
    """`validate starter --domain bank` loads the bank starter set (and only then asks for a terminal); it was read
    as a file name ('starter: no such file'). A name that is neither a file nor a set says both, in one line."""
    done = tauplay("validate", "starter", "--domain", "bank")
    assert done.returncode == 2 and "the app needs a terminal" in done.stderr, done.stderr
    done = tauplay("validate", "nosuchset", "--domain", "bank")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("tauplay validate: domain 'bank' has no task set 'nosuchset' (has: starter, "
                                   "test), and there is no file nosuchset"), done.stderr
