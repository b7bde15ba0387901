"""A new domain written as docs/architecture.md ("How to add a domain") says, in a temporary package of its
own, found through the entry point only: `domains`, `verify`, `generate`, a batch and the play screen all
work on it with nothing else registered anywhere. Its Tracer hints are declared on the Domain
(`tracer_hints=`) with a `@says` table, and a misspelt tool in that table stops `generate` with one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main

PACKAGE = "tauplay_library_domain"

INIT = '''
from pathlib import Path
from typing import TYPE_CHECKING
from typing_extensions import TypedDict

from tauplay.core.db import State
from tauplay.core.domain import Domain, Requires, TableSpec
from tauplay.core.tools import ToolError, collect_tools, tool
import sys


class Book(TypedDict):
    book_id: str
    title: str
    lent_to: str | None


class Member(TypedDict):
    member_id: str
    name: str


@tool("read", produces=("book_id",))
def find_book(db: State, title: str) -> dict:
    """Find a book by its title.

    Args:
        title: The book's title, e.g. 'Dune'.
    """
    for book in db.values("books"):
        if book["title"].lower() == title.lower():
            return dict(book)
    raise ToolError(f"no book titled {title!r}")


@tool("read")
def get_book(db: State, book_id: str) -> dict:
    """Look one book up: its title and who has it.

    Args:
        book_id: The book's id, e.g. 'B1'.
    """
    book = db.get("books", book_id)
    if book is None:
        raise ToolError(f"book {book_id!r} not found")
    return dict(book)


@tool("write")
def lend_book(db: State, book_id: str, member_id: str) -> dict:
    """Lend a book to a member.

    Args:
        book_id: The book's id, e.g. 'B1'.
        member_id: The member's id, e.g. 'm1'.
    """
    book = db.get("books", book_id)
    if book is None:
        raise ToolError(f"book {book_id!r} not found")
    if book["lent_to"]:
        raise ToolError(f"book {book_id!r} is already lent out")
    record = db.edit("books", book_id)
    record["lent_to"] = member_id
    return dict(record)


def generate(seed: int) -> dict:
    titles = ["Dune", "Emma", "Ulysses", "Beloved"]
    names = ["Ada Byron", "Alan Kay", "Grace Hopper"]
    return {"books": {f"B{i + 1}": {"book_id": f"B{i + 1}", "title": t, "lent_to": None}
                      for i, t in enumerate(titles)},
            "members": {f"m{i + 1}": {"member_id": f"m{i + 1}", "name": n} for i, n in enumerate(names)}}


if TYPE_CHECKING:
    from tauplay.tracer.hints import TracerHints


def tracer_hints() -> "TracerHints":
    from .tracer import HINTS

    return HINTS


DOMAIN = Domain(
    name="library",
    title="Library lending desk",
    tools=collect_tools(sys.modules[__name__]),
    tables=[TableSpec("books", "book_id", Book), TableSpec("members", "member_id", Member)],
    package_dir=Path(__file__).parent,
    generate=generate,
    user_knows=frozenset({"title", "member_id"}),
    rules=[Requires("lend_book", ("find_book", "get_book"), "check the book first")],
    task_sets={"starter": "starter.json"},
    tracer_hints=tracer_hints,
)
'''

TRACER = '''
from typing import Any

from tauplay.tracer.facts import fact
from tauplay.tracer.hints import TracerHints, says
from tauplay.tracer.trace import Intent, TraceContext


class LibraryHints(TracerHints):
    @says("lend_book")
    def _say_lend(self, args: dict[str, Any], ctx: TraceContext) -> Intent:
        title = ctx.database.tables["books"][args["book_id"]]["title"]
        return Intent("lend_book", f"take the book {title} home with you", facts=[fact("title", title)],
                      subject=f"the book {title}")


HINTS = LibraryHints()
'''

POLICY = """# Library lending desk

You help members borrow books. Find the book the member names, then lend it to them once they say yes.
A book that is already lent out cannot be lent again.
"""

TASK = {
    "id": "library-starter-01-lend-dune",
    "domain": "library",
    "user_id": "m1",
    "instruction": "You are member m1. You want to borrow the book Dune. Your member id is m1.",
    "known_info": {"member_id": "m1", "title": "Dune"},
    "actions": [{"name": "find_book", "kwargs": {"title": "Dune"}},
                {"name": "lend_book", "kwargs": {"book_id": "B1", "member_id": "m1"}}],
}


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package and its distribution metadata on sys.path, as `pip install -e .` would leave them."""
    root = tmp_path / "site"
    package = root / PACKAGE
    (package / "tasks").mkdir(parents=True)
    (package / "__init__.py").write_text(INIT, encoding="utf-8")
    (package / "tracer.py").write_text(TRACER, encoding="utf-8")
    (package / "policy.md").write_text(POLICY, encoding="utf-8")
    (package / "tasks" / "starter.json").write_text(json.dumps(
        {"format": "tauplay.tasks/1", "domain": "library", "tasks": [TASK]}, indent=1), encoding="utf-8")
    dist = root / "tauplay_library_domain-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tauplay-library-domain\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[tauplay.domains]\nlibrary = {PACKAGE}:DOMAIN\n")
    monkeypatch.syspath_prepend(str(root))
    yield tmp_path
    for name in (PACKAGE, f"{PACKAGE}.tracer"):
        sys.modules.pop(name, None)
    from tauplay.core import domain

    domain._LOADED.pop("library", None)


def test_domains_verify_generate_and_a_batch_on_a_new_domain(library: Path, capsys: Any) -> None:
    assert main(["domains", "library"]) == 0
    out = capsys.readouterr().out
    assert "library" in out and "find_book(title: string)" in out and "lend_book(" in out
    assert main(["verify", "starter", "--domain", "library", "--json"]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert [t["executed"] for t in verified["tasks"]] == [True], verified
    generated = library / "generated.json"
    assert main(["generate", "--domain", "library", "--n", "2", "--seed", "1", "--out", str(generated)]) == 0
    capsys.readouterr()
    tasks = json.loads(generated.read_text(encoding="utf-8"))["tasks"]
    assert len(tasks) == 2 and all(t["actions"][-1]["name"] == "lend_book" for t in tasks)
    # Worded by the hints' SAY table (the generic path would say "lend book ..."), found through the Domain field.
    assert all("take the book" in t["instruction"] and "home with you" in t["instruction"] for t in tasks), [t["instruction"] for t in tasks]
    assert main(["verify", str(generated), "--domain", "library"]) == 0
    assert "2/2 executable" in capsys.readouterr().out
    db = library / "s.db"
    assert main(["run", "--domain", "library", "--trials", "2", "--db", str(db), "--json"]) == 0
    from tauplay.store import SessionStore

    with SessionStore(str(db), readonly=True) as store:
        sessions = store.list_sessions()
    assert len(sessions) == 2 and all(s.status == "finished" and s.reward == 1.0 for s in sessions)


async def test_the_play_screen_on_a_new_domain(library: Path) -> None:
    from tauplay.tui.app import TauplayApp
    from tauplay.tui.screens.play_agent import PlayAgentScreen
    from tauplay.tui.session import PlayConfig
    from tests.tui.conftest import send, wait_until, your_turn

    app = TauplayApp(PlayConfig(db_url=str(library / "p.db"), domain="library", role="agent",
                                task_id=TASK["id"], annotator="tester"))
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        assert isinstance(play, PlayAgentScreen)
        await your_turn(pilot, play)
        await send(pilot, play, 'find_book(title="Dune")', box="#call-input")
        await wait_until(pilot, lambda: any(e.kind == "tool_result" for e in play.events), what="the call's result")
        result = next(e for e in play.events if e.kind == "tool_result")
        assert '"book_id": "B1"' in json.dumps(result.data) or "B1" in str(result.data)
        assert app.last_error is None


def test_a_misspelt_tool_in_the_hints_tables_stops_generate_with_one_line(library: Path, capsys: Any) -> None:
    package = library / "site" / PACKAGE
    tracer = package / "tracer.py"
    tracer.write_text(TRACER.replace('@says("lend_book")', '@says("lend_bok")'), encoding="utf-8")
    out = library / "never.json"
    assert main(["generate", "--domain", "library", "--n", "1", "--seed", "1", "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert "LibraryHints" in err and "SAY names 'lend_bok'" in err and "not a write tool" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()

