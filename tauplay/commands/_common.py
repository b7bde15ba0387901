"""What every command shares: the one-line usage error and the terminal check. Commands import this, never
`tauplay.cli` (the entry point imports the commands, not the other way round)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def require_terminal() -> None:
    """The app's screens need a terminal; without one (a pipe, CI) say so instead of hanging.
    TAUPLAY_FORCE_TUI=1 skips the check (benchmarks drive the app through a pseudo-terminal)."""
    if not sys.stdout.isatty() and not os.environ.get("TAUPLAY_FORCE_TUI"):
        raise UsageError("the app needs a terminal (stdout is not a TTY); for batch work use 'tauplay run'")


def finite_float(text: str) -> float:
    """An argparse type: a finite number ('nan', 'inf' and '1e999' are refused at parse time, with exit 2)."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0 (a timeout, a lease)."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


MAX_NAME = 100


def person_name(text: str) -> str:
    """An argparse type for a person's name (--annotator): printable text, no control or invisible characters
    (a name is shown in headers and saved with every verdict), at most MAX_NAME characters."""
    from tauplay.core.text import visible

    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("a name cannot be empty")
    if visible(name) != name or not name.isprintable():
        raise argparse.ArgumentTypeError(f"a name cannot hold control or invisible characters: {visible(name)!r}")
    if len(name) > MAX_NAME:
        raise argparse.ArgumentTypeError(f"a name has at most {MAX_NAME} characters, got {len(name)}")
    return name


def say(text: object = "", *, file: TextIO | None = None, end: str = "\n") -> None:
    """Print a line of a report: model, tool, file or person text in it has its control characters shown
    (tauplay.core.text.visible), so nothing printed can drive the terminal. JSON output does not need it
    (json.dumps escapes every control character)."""
    from tauplay.core.text import visible

    print(visible(str(text)), file=file if file is not None else sys.stdout, end=end)


# The help of --db: what `tauplay.store.engine.resolve_url` opens (not imported here: the store loads SQLAlchemy,
# and --help must not; tests/test_cli_terminal.py checks the two agree).
DB_HELP = "session database{purpose}: a SQLite file or SQLAlchemy URL (default: $TAUPLAY_DB or sessions/tauplay.db)"


def add_db_argument(parser: argparse.ArgumentParser, purpose: str = "") -> None:
    """--db, as every command that opens the store takes it ($TAUPLAY_DB when not given); `purpose` says what
    the command keeps there when that is not plain (" for the verdicts")."""
    parser.add_argument("--db", metavar="URL", help=DB_HELP.format(purpose=purpose))


# Files SQLite keeps beside a database: writing over one of them destroys the database as surely.
_SQLITE_SIDECARS = ("", "-wal", "-shm", "-journal")


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def database_files(url: str | None) -> list[str]:
    """The files of the database a command opens (`--db`, $TAUPLAY_DB or the default), SQLite's journals
    among them; none for a server database."""
    from tauplay.store import StoreError
    from tauplay.store.engine import is_sqlite_file, resolve_url

    try:
        resolved = resolve_url(url)
    except StoreError:
        return []  # the store says what is wrong with it when it opens
    if not is_sqlite_file(resolved):
        return []
    return [f"{resolved.database}{suffix}" for suffix in _SQLITE_SIDECARS]


def output_file(out: str, *, reads: Iterable[str], force: bool, flag: str = "--out") -> Path:
    """Where an output may go: never a file the command reads (its database, an input), never a folder, and
    an existing file only with --force. UsageError otherwise, before anything is written."""
    path = Path(out).expanduser()
    for given in reads:
        if given and _same_file(path, Path(given).expanduser()):
            raise UsageError(f"{flag} {out}: that is {given}, which this command reads; write somewhere else")
    if path.is_dir():
        raise UsageError(f"{flag} {out}: is a folder")
    if path.exists() and not force:
        raise UsageError(f"{flag} {out}: the file exists; pass --force to replace it")
    return path


def write_replacing(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it into place: a failure half-way (a full
    disk, Ctrl+C) leaves the old file whole. A path that is not a regular file (a FIFO, /dev/stdout) is
    written straight. UsageError (one line) when it cannot be written."""
    import tempfile

    try:
        if path.exists() and not path.is_file():
            path.write_text(text, encoding="utf-8")
            return
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.",
                                   suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


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


def print_table(console: Any, table: Any, keys: int = 1, *, markup: bool = True) -> None:
    """Print a rich Table whole: when its columns do not fit the console's width (an 80-column terminal), as
    several tables of its first `keys` columns (what a row is about) and as many of the others as fit, so that
    no figure is cut to "1…". A table that fits is printed as it is. `markup=False`: its text cells are literal."""
    from rich.table import Table
    from rich.text import Text

    def literal(cell: Any) -> Any:
        return Text(cell) if isinstance(cell, str) and not markup else cell

    def part(columns: list[int], first: bool) -> Any:
        out = Table(title=table.title if first else None, title_justify=table.title_justify, box=table.box,
                    pad_edge=table.pad_edge, show_header=table.show_header)
        for i in columns:
            c = table.columns[i]
            out.add_column(literal(c.header), justify=c.justify, no_wrap=True)
        cells = [list(table.columns[i].cells) for i in columns]
        for r, row in enumerate(table.rows):
            out.add_row(*(literal(cells[j][r]) for j in range(len(columns))), end_section=row.end_section)
        return out

    width = console.width
    wide = console.options.update_width(10_000)  # a measure not clamped to the console's width

    def natural(t: Any) -> int:
        return int(console.measure(t, options=wide).maximum)

    if natural(table) <= width or len(table.columns) <= keys + 1:
        console.print(table, markup=markup)
        return
    rest = list(range(keys, len(table.columns)))
    first = True
    while rest:
        chunk = [rest[0]]
        for i in rest[1:]:
            if natural(part(list(range(keys)) + chunk + [i], first)) > width:
                break
            chunk.append(i)
        console.print(part(list(range(keys)) + chunk, first), markup=markup)
        rest = rest[len(chunk):]
        first = False
