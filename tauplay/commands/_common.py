"""What every command shares: the one-line usage error and the terminal check. Commands import this, never
`tauplay.cli` (the entry point imports the commands, not the other way round)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def require_terminal() -> None:
    """The app's screens need a terminal; without one (a pipe, CI) say so instead of hanging.
    TAUPLAY_FORCE_TUI=1 skips the check (benchmarks drive the app through a pseudo-terminal)."""
    if not sys.stdout.isatty() and not os.environ.get("TAUPLAY_FORCE_TUI"):
        raise UsageError("the app needs a terminal (stdout is not a TTY); for batch work use 'tauplay run'")


def say(text: object = "", *, file: TextIO | None = None, end: str = "\n") -> None:
    """Print a line of a report: model, tool, file or person text in it has its control characters shown
    (tauplay.core.text.visible), so nothing printed can drive the terminal. JSON output does not need it
    (json.dumps escapes every control character)."""
    from tauplay.core.text import visible

    print(visible(str(text)), file=file if file is not None else sys.stdout, end=end)


BEHAVIOR_HELP = ("the simulated user's behaviour, composable with --emotion: comma-separated dimension=level of "
                 "disclosure=comprehensive|incremental|minimal, patience=high|low, cooperation=cooperative|adversarial, "
                 "precision=precise|error_prone (unnamed ones keep the first level; saved with each session)")


def add_behavior_arguments(parser: argparse.ArgumentParser) -> None:
    """--behavior and --persona (shared with the play entry)."""
    parser.add_argument("--behavior", metavar="DIM=LEVEL,...", help=BEHAVIOR_HELP)
    parser.add_argument("--persona", metavar="FILE",
                        help="a persona file (JSON, or TOML by its .toml suffix) that sets the four behaviour "
                             "dimensions; --behavior overrides what it sets")


def behavior_from_args(args: argparse.Namespace) -> Any:
    """The Behavior that --behavior / --persona ask for, None for neither; a UsageError (one line) when bad."""
    from tauplay.core.behavior import BehaviorError, resolve_behavior

    try:
        return resolve_behavior(args.behavior, args.persona)
    except BehaviorError as e:
        raise UsageError(f"--behavior: {e}" if args.behavior is not None and args.persona is None else str(e)) from None
