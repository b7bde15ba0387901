"""A bad flag or value on any command is one line on stderr naming the command and pointing to its --help, exit
code 2, never argparse's usage block."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tauplay.cli import main

CASES = [
    (["run", "--domain", "airline", "--trials", "abc"],
     "tauplay run: argument --trials: invalid int value: 'abc' (see tauplay run --help)"),
    (["--role", "wizard"], "tauplay play: argument --role: invalid choice: 'wizard'"),
    (["stats", "--by", "nosuchdim"], "tauplay stats: argument --by: invalid choice: 'nosuchdim'"),
    (["export", "tasks", "--form", "weird"], "tauplay export: argument --form: invalid choice: 'weird'"),
    (["compare", "only-one"], "tauplay compare: the following arguments are required: B"),
    (["domains", "--nosuchflag"], "tauplay domains: unrecognized arguments: --nosuchflag"),
]


@pytest.mark.parametrize(("argv", "start"), CASES)
def test_an_argument_error_is_one_line_naming_the_command_and_its_help(argv: list[str], start: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    captured = capsys.readouterr()
    err = captured.err
    assert exited.value.code == 2 and captured.out == ""
    assert err.count("\n") == 1 and err.startswith(start), err
    command = start.split(":")[0]
    assert err.rstrip().endswith(f"(see {command} --help)") and "usage:" not in err


def test_an_unknown_command_is_one_line_too(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tauplay", "frobnicate"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("tauplay: unknown command 'frobnicate'")
    assert "see tauplay --help" in done.stderr and "usage:" not in done.stderr


def test_the_subprocess_sees_the_same_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tauplay", "run", "--domain", "airline", "--trials", "abc"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "tauplay run: argument --trials: invalid int value: 'abc' (see tauplay run --help)\n"
