"""Entry point. Parses flags, then imports only what the chosen command needs."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from tauplay import __version__
from tauplay.commands._common import UsageError

# name -> (module under tauplay.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "open the app (the default): play as the user or the agent"),
    "verify": ("verify", "replay every task's gold actions and report which execute"),
    "run": ("run", "run agents against simulated users in batch; rewards and pass^k"),
    "resume": ("resume", "continue unfinished sessions (a killed batch) from their saved events"),
    "generate": ("generate", "generate tasks with the Tracer pipeline, or constraint tasks (--kind constraint)"),
    "solutions": ("solutions", "every valid solution of each task, and its distractors"),
    "validate": ("validate", "review a queue of tasks: approve, reject or send back for edits"),
    "review": ("review", "browse saved sessions and label failures"),
    "fork": ("fork", "a new session from a saved one's turns before --at TURN, to play on"),
    "compare": ("compare", "two sessions side by side: turns, tool calls, end-state difference, violations"),
    "queue": ("queue", "an annotators' work queue: items, overlap share, progress per annotator"),
    "agreement": ("agreement", "inter-annotator agreement (Cohen's and Fleiss' kappa); --against judges"),
    "stats": ("stats", "the paper's tables from the store: rewards, pass^k, violations, faults, fidelity"),
    "plot": ("plot", "the paper's figures from the store as PNG, SVG or PDF (needs tauplay[plot])"),
    "report": ("report", "every table (CSV, Markdown) and figure in one folder, with an index page"),
    "propagation": ("propagation", "classify injected sessions: rejected, recovered, propagated, unaffected"),
    "judge": ("judge", "label injected sessions 'propagated: yes/no' (substring, llm or ensemble judge)"),
    "import": ("import_", "import tau-bench / tau2-bench results or task files"),
    "export": ("export", "export tasks, labelled sessions, training data, tau2-bench results"),
    "domains": ("domains", "list the domains and their tools"),
}


class _Parser(argparse.ArgumentParser):
    """Every command's parser: a bad flag is one line on stderr naming the command and its --help, exit 2 (not
    argparse's usage block, which buries the one line that matters)."""

    def error(self, message: str) -> NoReturn:
        _say(f"{self.prog}: {message} (see {self.prog} --help)")
        self.exit(2)


def _parser_for(name: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(f"tauplay.commands.{module_name}")
    parser = _Parser(prog=f"tauplay {name}", description=help_text)
    module.add_arguments(parser)
    return parser, module


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {n:<10} {h}" for n, (_, h) in COMMANDS.items())
    return _Parser(
        prog="tauplay",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play, annotate and validate emotion-conditioned tool-calling benchmarks.",
        epilog=f"commands:\n{lines}\n\nRun 'tauplay COMMAND --help' for a command's options.",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-V", "--version"):
        print(f"tauplay {__version__}")
        return 0
    if args and args[0] in COMMANDS:
        name = args.pop(0)
    elif "play" in COMMANDS and (not args or args[0].startswith("-")) and args[:1] not in (["-h"], ["--help"]):
        name = "play"  # `tauplay [--role ...]` opens the app
    else:
        parser = _top_parser()
        if args and args[0] not in ("-h", "--help"):
            _say(f"tauplay: unknown command '{args[0]}' (commands: {', '.join(COMMANDS)}; see tauplay --help)")
            return 2
        parser.print_help()
        return 0
    parser, module = _parser_for(name)
    ns = parser.parse_args(args)
    from tauplay.core.lease import LeaseError, lease_seconds

    try:  # the environment is outside input too: a bad lease is refused before any work starts
        lease_seconds()
    except LeaseError as e:
        _say(f"tauplay {name}: {e}")
        return 2
    try:
        code = int(module.run(ns) or 0)
        sys.stdout.flush()  # inside the guard: a reader that went away is noticed here, not at exit
        return code
    except UsageError as e:
        _say(f"tauplay {name}: {e}")
        return 2
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        return _reader_gone()
    except Exception as e:  # the last guard: one line and a trace file, never a traceback on the terminal
        return _unexpected(name, e)


def _say(line: str) -> None:
    """One line on stderr, with secrets masked and control characters shown (it may quote a file or a model)."""
    from tauplay.core.secrets import configured_secrets, mask_text
    from tauplay.core.text import visible

    if "://" in " ".join(sys.argv) or os.environ.get("TAUPLAY_DB"):  # a password of --db may be quoted alone
        passwords = _url_passwords([*sys.argv, os.environ.get("TAUPLAY_DB", "")])
        line = mask_text(line, tuple(sorted(configured_secrets() + passwords, key=len, reverse=True)))
    print(visible(mask_text(line)), file=sys.stderr)


def _reader_gone() -> int:
    """The pipe's reader stopped early (`tauplay verify --json | head -c 10`): end quietly, as a tool killed by
    SIGPIPE would, and keep Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (tests capture it)
        pass
    return 141  # 128 + SIGPIPE


def crash_dir() -> Path:
    """Where full traces of unexpected errors go: $TAUPLAY_STATE_DIR, else $XDG_STATE_HOME/tauplay, else
    ~/.local/state/tauplay."""
    if os.environ.get("TAUPLAY_STATE_DIR"):
        return Path(os.environ["TAUPLAY_STATE_DIR"]).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base).expanduser() / "tauplay"


# Variables worth having in a crash report (their values masked like everything else in it).
_REPORTED_ENV = ("TAUPLAY_", "OPENAI_", "ANTHROPIC_", "LITELLM_", "XDG_STATE_HOME", "VIRTUAL_ENV")


def _url_passwords(values: Sequence[str]) -> tuple[str, ...]:
    """Passwords of URLs among these values (`--db postgresql://u:PASSWORD@h/db`), to be cut out wherever they
    appear in a report: a driver may quote the password alone."""
    from urllib.parse import unquote, urlsplit

    found = []
    for value in values:
        for word in value.split():
            if "://" not in word:
                continue
            try:
                password = urlsplit(word[word.find("=") + 1:] if word.startswith("-") else word).password
            except ValueError:
                continue
            if password:
                found += [password, unquote(password)]
    return tuple(sorted({p for p in found if len(p) >= 3}, key=len, reverse=True))


def crash_report(name: str, exc: BaseException, argv: Sequence[str], environ: dict[str, str]) -> str:
    """What a crash file holds: the command line, the tauplay-related environment and the trace, with every
    secret masked in all three (key values, URL credentials, the passwords of URLs given on the line)."""
    import traceback

    from tauplay.core.secrets import configured_secrets, is_secret_key, mask_text

    shown = {k: v for k, v in sorted(environ.items()) if k.startswith(_REPORTED_ENV)}
    secrets = tuple(dict.fromkeys(configured_secrets() + _url_passwords([*argv, *environ.values()])))
    secrets = tuple(sorted(secrets, key=len, reverse=True))

    def clean(text: str) -> str:
        return mask_text(text, secrets)

    env = "\n".join(f"  {k}={'[redacted]' if is_secret_key(k) else clean(v)}" for k, v in shown.items())
    trace = clean("".join(traceback.format_exception(exc)))
    line = clean(" ".join(argv))
    env = env or "  (none of tauplay's)"
    return f"tauplay {__version__} {name} {line}\n\nenvironment:\n{env}\n\n{trace}"


def _unexpected(name: str, exc: BaseException) -> int:
    import time

    cause = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {cause}" if cause else type(exc).__name__
    try:
        folder = crash_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        report = crash_report(name, exc, sys.argv[2:], dict(os.environ))
        # 0600 from the start: a trace may hold what a user typed; nobody else on the machine reads it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(report)
        where = f"the full trace is in {path}"
    except OSError as e:
        where = f"the trace could not be written ({e.strerror or e})"
    _say(f"tauplay {name}: unexpected error ({what[:300]}); {where}")
    return 1
