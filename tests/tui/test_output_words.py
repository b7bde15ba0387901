"""What the app says is about the person's work, never about how the app was made: no "(issue 18)" in any
string a person can see -- every string literal of tauplay and the domains (docstrings apart: they are for
readers of the code), and the docstrings that are shown (a command's help, a tool's description)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import REPO

PROCESS = re.compile(r"\bissues? #?\d+\b|\(issue\b", re.I)
# Docstrings that become output: `tauplay propagation/judge --help` print theirs, tools describe themselves
# by theirs (the call line, the tool form, a model's tool list).
SHOWN_DOCSTRINGS = ("tauplay/commands", "domains")


def docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def process_words(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set() if rel.startswith(SHOWN_DOCSTRINGS) else docstring_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip \
                    and PROCESS.search(node.value):
                found.append(f"{rel}:{node.lineno}: {node.value.strip()[:80]!r}")
    return found


def test_the_check_finds_a_process_word(tmp_path: Path) -> None:
    assert PROCESS.search("the report index (issue 18)") and PROCESS.search("see issue 25")
    assert not PROCESS.search("unknown issue 'no_signal' (issues: no_service)")  # the telecom domain's own word


def test_no_string_a_person_sees_names_an_issue() -> None:
    found = process_words(REPO / "tauplay") + process_words(REPO / "domains")
    assert not found, "\n".join(found)
