"""AgentProp-Bench's released results (`data/results/*.csv` of bhaskargurram-ai/agenthallu-bench) -> sessions
with their judges' verdicts and people's labels.

Each file is recognised by its header:

- a judge-ensemble file (`ensemble_judge.csv`): per session the heuristic verdict and three models' verdicts
  (`gpt4o`, `gemini_25_flash`, `gpt4o_mini`) with their majority, the agent's answer (`candidate`) and the
  reference;
- a judge-agreement file (`judge_agreement.csv`): the heuristic and one oracle model's verdict, answer, reference;
- a people's file (`human_labels_*.csv`): one person's YES/NO per session;
- an injection-results file (`p2_all.csv`): per session its domain, kind, the heuristic `final_correct` and the
  propagation score `eps` (kept in the session's reward info; no answer text);
- the same re-judged (`p2_all_rejudged.csv`): with the answer, reference and query, and the three models'
  verdicts and their majority (`ensemble_correct`) from a second judging run; saved under the model names with
  `@rejudge` (`llm:gpt4o@rejudge`, `ensemble:...@rejudge`), since that run disagrees with `ensemble_judge.csv`
  on a few shared sessions. Its majority is what the release's hop-conditional rates read as "final answer wrong".

The released verdicts answer "is the agent's final answer correct?"; tauplay's judgments answer "did the
injected error propagate?", so a verdict of correct is saved as "no" and incorrect as "yes" (Cohen's kappa is
the same either way). A person's YES is read as "correct", the question the judges answered.

Judges are named as tauplay names its own: `heuristic` is the `substring` judge, each model an `llm` judge with
that model (`llm:gpt4o`), the majority of the three the `ensemble` judge over them, the judge-agreement file's
oracle the `llm` judge `oracle`. Rows of several files about one session become one session; two files that
disagree on one judge's verdict stop the import. Everything is checked before anything is returned.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tauplay.core.events import Event, MessageData, SessionStartedData, TerminatedData
from tauplay.core.labels import Judgment, SessionBundle
from tauplay.core.vocabulary import INJECTION_KINDS, JudgeKind, Role
from tauplay.interop.errors import InteropError, fail

SOURCE = "agentprop-bench"
MODELS = ("gpt4o", "gemini_25_flash", "gpt4o_mini")  # the ensemble's three, as the files name them
ENSEMBLE_MODEL = "+".join(MODELS)
ORACLE_MODEL = "oracle"
REJUDGE = "@rejudge"  # the second judging run of p2_all_rejudged.csv
MAX_ROWS = 200_000
MAX_FIELD = 100_000  # characters in one cell
MAX_EPS = 6  # the public score counts stages past the origin (seven stages)

_ENSEMBLE = {"session_id", "task_id", "model", "injection_type", "heuristic_correct", "majority",
             *(f"{m}_verdict" for m in MODELS)}
_AGREEMENT = {"session_id", "task_id", "model", "injection_type", "heuristic_correct", "oracle_correct"}
_HUMAN = {"session_id", "task_id", "model", "annotator", "label"}
_RESULTS = {"session_id", "task_id", "model", "domain", "error_type", "final_correct", "eps"}
_REJUDGED = _RESULTS | {"ensemble_correct", *(f"{m}_verdict" for m in MODELS)}
_DOMAINS = ("weather", "calendar", "medical", "ecommerce")


@dataclass
class _Session:
    """What the files say about one released session, gathered before it becomes a bundle."""

    original_id: str
    task_id: str = ""
    model: str = ""
    injection: str = ""
    domain: str = ""
    answer: str = ""
    reference: str = ""
    query: str = ""
    released: dict[str, Any] = field(default_factory=dict)  # eps, weps, difficulty... as the release gives them
    verdicts: dict[tuple[str, str, str], tuple[str, str]] = field(default_factory=dict)  # who -> (label, file)
    files: list[str] = field(default_factory=list)


def _bool(value: str, source: str, where: str) -> bool:
    text = value.strip()
    if text in ("True", "true", "1"):
        return True
    if text in ("False", "false", "0"):
        return False
    raise fail(source, where, f"expected True or False, got {value[:40]!r}")


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    if not path.exists():
        raise InteropError(f"{path}: no such file")
    if path.is_dir():
        raise InteropError(f"{path}: is a folder, expected a CSV file")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InteropError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise InteropError(f"{path}: cannot read: {e.strerror or e}") from None
    if "\x00" in text:
        raise InteropError(f"{path}: holds NUL bytes; not a CSV file")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if not header:
            raise InteropError(f"{path}: empty file, expected a CSV header")
        header = [h.strip() for h in header]
        if len(set(header)) != len(header):
            raise InteropError(f"{path}: a column is named twice in the header")
        out: list[dict[str, str]] = []
        for number, cells in enumerate(reader, start=2):
            if not cells:
                continue
            if len(out) >= MAX_ROWS:
                raise InteropError(f"{path}: more than {MAX_ROWS} rows; not a released results file")
            if len(cells) != len(header):
                raise InteropError(f"{path}: line {number}: {len(cells)} cells, the header has {len(header)}")
            if any(len(c) > MAX_FIELD for c in cells):
                raise InteropError(f"{path}: line {number}: a cell longer than {MAX_FIELD} characters")
            out.append(dict(zip(header, cells, strict=True)))
    except csv.Error as e:
        raise InteropError(f"{path}: line {reader.line_num}: not valid CSV ({e})") from None
    return header, out


def file_kind(header: Sequence[str]) -> str | None:
    """ensemble | agreement | human | rejudged | results, from the columns a file has (None: none of them)."""
    have = set(header)
    for kind, needed in (("ensemble", _ENSEMBLE), ("agreement", _AGREEMENT), ("human", _HUMAN),
                         ("rejudged", _REJUDGED), ("results", _RESULTS)):
        if needed <= have:
            return kind
    return None


def _kind_of_injection(text: str) -> str:
    """`p2_semantic_wrong` -> `semantic_wrong`; other released kinds (`p3_false_belief`...) as written."""
    bare = text[3:] if text[:1] == "p" and text[2:3] == "_" and text[1:2].isdigit() else text
    return bare if bare in INJECTION_KINDS else text


def _domain_of(task_id: str) -> str:
    return next((d for d in _DOMAINS if task_id.startswith(d + "_")), "")


class _Reader:
    def __init__(self) -> None:
        self.sessions: dict[str, _Session] = {}
        self.people: set[str] = set()

    def session(self, row: dict[str, str], source: str, where: str) -> _Session:
        sid = row["session_id"].strip()
        if not sid:
            raise fail(source, where, "empty session_id")
        found = self.sessions.setdefault(sid, _Session(sid))
        for name, value in (("task_id", row.get("task_id", "")), ("model", row.get("model", ""))):
            value = value.strip()
            if not value:
                raise fail(source, where, f"empty {name}")
            mine = getattr(found, name)
            if mine and mine != value:
                raise fail(source, where, f"session {sid}: {name} {value!r} here, {mine!r} in {found.files[0]}")
            setattr(found, name, value)
        if source not in found.files:
            found.files.append(source)
        return found

    def verdict(self, session: _Session, judge: str, model: str, annotator: str, correct: bool, source: str,
                where: str) -> None:
        key = (judge, model, annotator)
        label = "no" if correct else "yes"
        before = session.verdicts.get(key)
        if before is not None and before[0] != label:
            who = annotator or (f"{judge}:{model}" if model else judge)
            raise fail(source, where, f"session {session.original_id}: {who} says "
                       f"{'correct' if correct else 'incorrect'} here, the opposite in {before[1]}")
        session.verdicts[key] = (label, source)

    def text(self, session: _Session, name: str, value: str) -> None:
        if value and not getattr(session, name):
            setattr(session, name, value)

    def read(self, path: Path) -> str:
        source = str(path)
        header, rows = _rows(path)
        kind = file_kind(header)
        if kind is None:
            raise InteropError(f"{path}: not a released AgentProp-Bench results file (expected the columns of "
                               "ensemble_judge.csv, judge_agreement.csv, human_labels_*.csv or p2_all.csv)")
        for number, row in enumerate(rows, start=2):
            where = f"line {number}"
            s = self.session(row, source, where)
            if kind in ("ensemble", "agreement"):
                self.text(s, "injection", _kind_of_injection(row["injection_type"].strip()))
                self.text(s, "answer", row.get("candidate", ""))
                self.text(s, "reference", row.get("reference", ""))
                self.verdict(s, JudgeKind.SUBSTRING, "", "", _bool(row["heuristic_correct"], source, where),
                             source, where)
            if kind == "ensemble":
                for m in MODELS:
                    self.verdict(s, JudgeKind.LLM, m, "", _bool(row[f"{m}_verdict"], source, where), source, where)
                self.verdict(s, JudgeKind.ENSEMBLE, ENSEMBLE_MODEL, "", _bool(row["majority"], source, where),
                             source, where)
            elif kind == "agreement":
                self.verdict(s, JudgeKind.LLM, ORACLE_MODEL, "", _bool(row["oracle_correct"], source, where),
                             source, where)
            elif kind == "human":
                person = row["annotator"].strip()
                label = row["label"].strip().upper()
                if not person:
                    raise fail(source, where, "empty annotator")
                if label not in ("YES", "NO"):
                    raise fail(source, where, f"label must be YES or NO, got {row['label'][:40]!r}")
                self.people.add(person)
                self.verdict(s, JudgeKind.HUMAN, "", person, label == "YES", source, where)
            else:
                self.text(s, "injection", _kind_of_injection(row["error_type"].strip()))
                self.text(s, "domain", row["domain"].strip())
                self.text(s, "answer", row.get("final_answer", ""))
                self.text(s, "reference", row.get("ground_truth", ""))
                self.text(s, "query", row.get("query", ""))
                try:
                    eps = int(row["eps"].strip())
                except ValueError:
                    raise fail(source, where, f"eps must be a whole number, got {row['eps'][:40]!r}") from None
                if not 0 <= eps <= MAX_EPS:
                    raise fail(source, where, f"eps must be 0..{MAX_EPS}, got {eps}")
                s.released["eps"] = eps
                for name in ("difficulty", "source", "reached_output"):
                    if row.get(name, "").strip():
                        s.released[name] = row[name].strip()
                self.verdict(s, JudgeKind.SUBSTRING, "", "", _bool(row["final_correct"], source, where), source,
                             where)
                if kind == "rejudged":
                    for m in MODELS:
                        self.verdict(s, JudgeKind.LLM, m + REJUDGE, "", _bool(row[f"{m}_verdict"], source, where),
                                     source, where)
                    self.verdict(s, JudgeKind.ENSEMBLE, ENSEMBLE_MODEL + REJUDGE, "",
                                 _bool(row["ensemble_correct"], source, where), source, where)
        return kind

    def bundles(self) -> list[SessionBundle]:
        out = []
        for s in self.sessions.values():
            if not s.injection and all(j == JudgeKind.HUMAN for j, _, _ in s.verdicts):
                raise InteropError(f"{s.files[0]}: session {s.original_id} is labelled but not in any results "
                                   "file given (import it with the file that holds its answer)")
            out.append(_bundle(s))
        return out


def _bundle(s: _Session) -> SessionBundle:
    domain = s.domain or _domain_of(s.task_id)
    task = {"id": s.task_id, "instruction": s.query, "actions": [], "outputs": [],
            "provenance": {"source": SOURCE, "domain": domain, "reference": s.reference}}
    agent = {"kind": "imported", "source": SOURCE, "model": s.model}
    user = {"kind": "imported", "source": SOURCE}
    released = {"session_id": s.original_id, "injection": s.injection, "reference": s.reference, **s.released}
    events = [Event.of(0, Role.SYSTEM, SessionStartedData(
        domain=f"agentprop-{domain}" if domain else "agentprop", task_id=s.task_id, agent=agent, user=user,
        session_id=s.original_id, injection={"kind": s.injection, "style": "agentprop", "released": True}), at=0.0)]
    turn = 0
    if s.query:
        turn = 1
        events.append(Event.of(len(events), Role.USER, MessageData(content=s.query), turn=turn, at=0.0))
    if s.answer:
        events.append(Event.of(len(events), Role.AGENT, MessageData(content=s.answer), turn=turn, at=0.0))
    events.append(Event.of(len(events), Role.SYSTEM, TerminatedData(reason=None, reward={}), turn=turn, at=0.0))
    judgments = [Judgment(judge=j, label=label, model=m, annotator=a,
                          reason=f"released verdict ({Path(src).name})")
                 for (j, m, a), (label, src) in sorted(s.verdicts.items())]
    return SessionBundle(domain=f"agentprop-{domain}" if domain else "agentprop", task_id=s.task_id, task=task,
                         events=events, agent=agent, user=user, reward_info={"agentprop": released},
                         judgments=judgments, id=s.original_id)


@dataclass(frozen=True)
class Released:
    """The sessions of the files read, and what each file was."""

    bundles: list[SessionBundle]
    kinds: dict[str, str]  # file -> ensemble | agreement | human | results
    people: list[str]


def sessions_from_agentprop(paths: Iterable[Path]) -> Released:
    reader = _Reader()
    kinds = {str(p): reader.read(p) for p in paths}
    return Released(reader.bundles(), kinds, sorted(reader.people))


__all__ = ["ENSEMBLE_MODEL", "MODELS", "ORACLE_MODEL", "REJUDGE", "Released", "file_kind", "sessions_from_agentprop"]
