"""Secrets out of everything saved, exported and printed (issue 13, items 6 and 9): the configured key itself, keys
in URLs and real credential shapes are masked; ordinary text -- every published task and record -- never is."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.store import SessionStore
from tauplay.store.scrub import clean_event_data, mask_all
from tests.conftest import REPO, SHARED_TAUBENCH

CONFIGURED = "sk-secret-XYZ123"


def mask_text(text: str, secrets: tuple[str, ...] | None = None) -> str:
    from tauplay.core.secrets import mask_text as mask

    return mask(text, secrets)


def configured_secrets() -> tuple[str, ...]:
    from tauplay.core.secrets import configured_secrets as found

    return found()  # too short for the key patterns: only knowing the configured value masks it


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _published_files() -> list[Path]:
    files = sorted(SHARED_TAUBENCH.glob("*/*.json"))
    if not files:
        pytest.skip(f"published data not found at {SHARED_TAUBENCH}")
    return files


def test_every_published_task_and_record_passes_the_scrubber_unchanged() -> None:
    changed: list[str] = []
    count = 0
    for path in _published_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        assert mask_all(data) == data or True  # the walk below names the strings that changed
        for text in _strings(data):
            count += 1
            if mask_text(text, ()) != text:
                changed.append(f"{path.parent.name}/{path.name}: {text[:80]!r}")
    assert count > 10_000  # tasks of four domains and their database tables
    assert changed == []


def test_airline_and_telecom_wording_is_not_a_credential() -> None:
    for text in ("Your Basic Economy ticket cannot be changed.", "basic economy. Basic Economy.",
                 "We start with basic troubleshooting and basic functionality checks.",
                 "Bearer of this message: please see the token bucket limits.",
                 "Token authentication failed; Basic authentication required.",
                 "I'll update your Basic WiFi and Basic TV plans; reservation ZFA04Y on HAT170."):
        assert mask_text(text, ()) == text, text


@pytest.mark.parametrize("secret", [
    "sk-proj-Abc123Def456Ghi789Jkl012", "sk-ant-api03-q9W8e7R6t5Y4u3I2o1P0aSdFgHjK",
    "AKIAIOSFODNN7EXAMPLE", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "hf_" + "aB3" * 12,
    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
])
def test_real_key_shapes_are_masked(secret: str) -> None:
    out = mask_text(f"the key is {secret} (keep it safe)", ())
    assert secret not in out and "[redacted]" in out


def test_auth_headers_with_realistic_credentials_are_masked() -> None:
    assert mask_text("Bearer 4f9c2a7e1b3d5f60a8c9e2d1b7f3a6c4", ()) == "Bearer [redacted]"
    assert mask_text("send Token 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d please", ()) == "send Token [redacted] please"
    assert mask_text("Basic dXNlcjpodW50ZXIy", ()) == "Basic [redacted]"  # base64 of user:hunter2
    assert mask_text('"Authorization": "Bearer abc.def-ghi"', ()) == '"Authorization": "Bearer [redacted]"'
    assert mask_text("http://u:pw@127.0.0.1:8000/v1", ()) == "http://u:[redacted]@127.0.0.1:8000/v1"


def test_the_configured_key_values_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CONFIGURED)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "anthropic-local-7")
    monkeypatch.setenv("TAUPLAY_API_KEY", "dummy")  # a word: never masked (it would corrupt text)
    monkeypatch.setenv("SOME_SETTING", "plain-setting-value-9")
    assert CONFIGURED in configured_secrets() and "dummy" not in configured_secrets()
    text = f"Incorrect API key provided: {CONFIGURED}. anthropic-local-7 also; a dummy value; plain-setting-value-9"
    out = mask_text(text)
    assert CONFIGURED not in out and "anthropic-local-7" not in out
    assert "a dummy value" in out and "plain-setting-value-9" in out
    assert clean_event_data("notice", {"text": text})["text"] == out


def test_a_401_quoting_the_key_leaves_it_nowhere(tmp_path: Path, llm_server: Any, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", CONFIGURED)
    llm_server.queue("agent").error(401, f"Incorrect API key provided: {CONFIGURED}. You can find your key...")
    db = tmp_path / "s.db"
    code = main(["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--agent-model",
                 "openai/agent", "--agent-api-base", llm_server.url, "--db", str(db), "--json"])
    out = capsys.readouterr()
    assert code == 0 and json.loads(out.out)["sessions"][0]["reason"] == "llm_error"
    assert CONFIGURED not in out.out + out.err
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        notices = [e.data["text"] for e in store.events(record.id) if e.kind == "notice"]
        assert notices and "401" in notices[0] and CONFIGURED not in notices[0]
        assert "[redacted]" in notices[0] or "***" in notices[0]  # the model client masks the key it sent as ***
    assert main(["export", "sessions", "--all", "--db", str(db), "--out", str(tmp_path / "s.jsonl")]) == 0
    exported = (tmp_path / "s.jsonl").read_text()
    assert CONFIGURED not in exported and "401" in exported


def test_credentials_in_an_api_base_are_masked_in_run_json_and_the_store(
        tmp_path: Path, llm_server: Any, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    base = llm_server.url.replace("http://", "http://bob:hunter22pw@")
    code = main(["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--agent-model",
                 "openai/agent", "--agent-api-base", base, "--db", str(db), "--json"])
    out = capsys.readouterr()
    assert code == 0
    assert json.loads(out.out)["agent"]["api_base"] == llm_server.url.replace("http://", "http://bob:[redacted]@")
    assert "hunter22pw" not in out.out + out.err
    with SessionStore(str(db)) as store:
        (record,) = store.list_sessions()
        assert "hunter22pw" not in json.dumps(record.agent) + json.dumps([e.data for e in store.events(record.id)])


def test_the_trace_file_of_an_unexpected_error_masks_secrets(tmp_path: Path) -> None:
    code = ("import sys; from tauplay import cli; from tauplay.commands import domains\n"
            "def boom(args): raise RuntimeError('the key sk-secret-XYZ123 broke it\\nsecond line')\n"
            "domains.run = boom\nsys.exit(cli.main(['domains']))")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "OPENAI_API_KEY": CONFIGURED,
           "TAUPLAY_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60,
                          env=env)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("tauplay domains: unexpected error (RuntimeError: the key [redacted] broke it)")
    assert "Traceback" not in done.stderr
    (trace,) = (tmp_path / "state").glob("crash-*.txt")
    assert str(trace) in line
    text = trace.read_text()
    assert "Traceback (most recent call last)" in text and "boom" in text and CONFIGURED not in text
