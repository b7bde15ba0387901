from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hostile import HostileServer
from tests.support.llm_server import FakeLLMServer

REPO = Path(__file__).resolve().parents[1]
# The published data beside the clone; TAUPLAY_TAUBENCH points elsewhere (a worktree whose parent has no shared/).
SHARED_TAUBENCH = Path(os.environ.get("TAUPLAY_TAUBENCH") or REPO.parent / "shared" / "taubench")


def taubench_dir(domain: str) -> Path:
    """The published data folder of a domain, or skip the test when ../shared is absent."""
    path = SHARED_TAUBENCH / domain
    if not path.is_dir():
        pytest.skip(f"published tau-Emotion-Bench data not found at {path} (a fresh clone has no ../shared)")
    return path


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    """A hostile OpenAI-compatible server on 127.0.0.1 (tests/support/hostile.py): the adversarial suite's."""
    server = HostileServer().start()
    yield server
    server.stop()
