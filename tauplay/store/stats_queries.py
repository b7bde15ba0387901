"""The queries behind the statistics: the database groups the sessions and counts their events, so a store of
100,000 sessions is read in one pass over the columns the figures need, never event by event in Python.

Every query returns plain rows (dicts) keyed by the grouping dimensions (`dim_<name>`), the session's domain and
task, and SQL aggregates. Sessions still running are left out everywhere, and so are sessions not scorable (their task's gold replay
fails on their database: `run --allow-invalid`; `not_scorable_count` says how many). A session counts as an error (a trial
that did not succeed) when its status is failed or interrupted or it has no reward.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, case, exists, func, literal, or_, select, union
from sqlmodel import col

from tauplay.core.behavior import BEHAVIOR_DIMENSIONS
from tauplay.core.vocabulary import ERROR_STATUSES, EventKind, SessionStatus, WhoErred
from tauplay.store.event_counts import FLAGS, SUMMED
from tauplay.store.filters import SessionFilter, agent_key, apply_filter, confirmed_label
from tauplay.store.tables import (
    EVENT_COUNTS,
    SESSION_FACTS,
    AnnotationRow,
    EventRow,
    PerceptionRow,
    SessionReviewRow,
    SessionRow,
)

FACTS = SESSION_FACTS
DIMENSIONS = ("domain", "model", "simulator", "emotion", "leaf", "difficulty", "behavior", "disclosure", "patience",
              "cooperation", "precision", "annotator")


def dimension_columns(dims: Sequence[str]) -> list[Any]:
    """The SQL expressions of the grouping dimensions, labelled dim_<name> (simulator: two, kind and model)."""
    out: list[Any] = []
    for dim in dims:
        if dim == "domain":
            out.append(col(SessionRow.domain).label("dim_domain"))
        elif dim == "model":
            out.append(agent_key().label("dim_model"))
        elif dim == "simulator":
            out.append(col(SessionRow.user)["kind"].as_string().label("dim_simulator_kind"))
            out.append(col(SessionRow.user)["model"].as_string().label("dim_simulator_model"))
        elif dim == "emotion":
            out.append(col(SessionRow.emotion)["family"].as_string().label("dim_emotion"))
        elif dim == "leaf":
            out.append(col(SessionRow.emotion)["leaf"].as_string().label("dim_leaf"))
        elif dim == "difficulty":
            out.append(col(SessionRow.task)["difficulty"].as_integer().label("dim_difficulty"))
        elif dim == "behavior":  # issue 18's user behaviour, when the user description has one (its JSON text)
            out.append(col(SessionRow.user)["behavior"].as_string().label("dim_behavior"))
        elif dim in BEHAVIOR_DIMENSIONS:  # one dimension of it (disclosure=..., patience=...)
            out.append(col(SessionRow.user)[("behavior", dim)].as_string().label(f"dim_{dim}"))
        elif dim == "annotator":
            out.append(col(SessionRow.annotator).label("dim_annotator"))
        else:
            raise ValueError(f"unknown dimension {dim!r} (dimensions: {', '.join(DIMENSIONS)})")
    return out


def _error() -> Any:
    return or_(col(SessionRow.status).in_([str(s) for s in ERROR_STATUSES]), col(SessionRow.reward).is_(None))


def _success() -> Any:
    return and_(~_error(), col(SessionRow.reward) == 1)


def _count(cond: Any) -> Any:
    return func.sum(case((cond, 1), else_=0))


def _event_counts() -> Any:
    """Per session: user and agent messages, tool calls and the failed ones, seconds from the first event to
    the last, follow-ups (agent messages after the greeting that ask the user something) and whether the ending
    was checked for policy violations and found any. Kept row by row as events are saved
    (tauplay.store.event_counts): reading them costs a join on the session's id, not a pass over every event."""
    counts = EVENT_COUNTS
    return (select(counts.c.session_id.label("sid"),
                   *(counts.c[name].label(name) for name in (*SUMMED, *FLAGS)),
                   (counts.c.last_at - counts.c.first_at).label("seconds"))
            .subquery("ev"))


def gold_actions(dialect: str) -> Any:
    """How many gold actions the session's task has (dialects spell a JSON array's length differently)."""
    if dialect == "sqlite":
        return func.json_array_length(col(SessionRow.task), "$.actions")
    if dialect == "postgresql":
        return func.json_array_length(col(SessionRow.task).op("->")("actions"))
    return literal(None)


def _not_scorable() -> Any:
    """Sessions on a task whose gold replay fails on their database (run --allow-invalid): no reward to count."""
    return col(SessionRow.reward_info)["not_scorable"].as_string().is_not(None)


def not_scorable_flag() -> Any:
    """1 for a session not scorable, else 0 (what session_facts keeps)."""
    return case((_not_scorable(), 1), else_=0)


def _base(query: Any, f: SessionFilter) -> Any:
    return apply_filter(query, f).where(col(SessionRow.status) != str(SessionStatus.RUNNING), ~_not_scorable())


def _filtered(query: Any, f: SessionFilter) -> Any:
    """A query over session_facts narrowed to the sessions `f` describes: the sessions table is joined only
    when a filter asks for it (the filters read its columns); with none, its wide rows are never read."""
    if any(v is not None for v in vars(f).values()):
        query = apply_filter(query.join(SessionRow, col(SessionRow.id) == FACTS.c.session_id), f)
    return query.where(FACTS.c.status != str(SessionStatus.RUNNING))


def not_scorable_count(conn: Connection, f: SessionFilter) -> int:
    """How many finished sessions the statistics leave out as not scorable."""
    query = _filtered(select(func.count()).select_from(FACTS), f).where(FACTS.c.not_scorable == 1)
    return int(conn.execute(query).scalar() or 0)


def _rows(conn: Connection, query: Any) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(query)]


def task_groups(conn: Connection, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
    """One row per (dimensions, domain, task): trials, successes, reward counts, errors, reward sum, event
    counts (tool errors and seconds among them), gold actions, violation checks, and failures judged by a
    person / blamed on the user. Read from session_facts and event_counts (narrow rows kept by triggers), the
    same values the expressions over sessions and events give (tauplay.store.session_facts).

    Two queries: one pass over the sessions sums what every session has (only the aggregates that are not
    differences of others: successes are R = 1, R = 0 and failures are what the others leave); the failures a
    person judged start from the few sessions labelled or marked reviewed, not from a subquery per session."""
    dim_cols = [FACTS.c[c.name].label(c.name) for c in dimension_columns(dims)]
    ev = EVENT_COUNTS
    status, reward, sid = FACTS.c.status, FACTS.c.reward, FACTS.c.session_id
    errored = status.in_([str(s) for s in ERROR_STATUSES])
    error = or_(errored, reward.is_(None))
    counted = ~errored  # with a reward: not an error (a NULL reward adds nothing to a sum)
    query = (select(*dim_cols, FACTS.c.domain.label("domain"), FACTS.c.task_id.label("task_id"),
                    func.count().label("trials"),
                    _count(and_(counted, reward == 1)).label("r1"),
                    _count(and_(counted, reward == -1)).label("rm1"),
                    _count(error).label("errors"),
                    func.sum(case((counted, reward), else_=0.0)).label("reward_sum"),
                    *(func.sum(ev.c[name]).label(name) for name in (*SUMMED, *FLAGS)),
                    func.sum(ev.c.last_at - ev.c.first_at).label("seconds"),
                    func.sum(FACTS.c.gold_actions).label("gold_actions"))
             .select_from(FACTS).outerjoin(ev, ev.c.session_id == sid))
    query = _filtered(query, f).where(FACTS.c.not_scorable == 0)
    keys = [*(FACTS.c[c.name] for c in dim_cols), FACTS.c.domain, FACTS.c.task_id]
    rows = _rows(conn, query.group_by(*keys))
    names = [c.name for c in dim_cols] + ["domain", "task_id"]
    judged = {tuple(r[n] for n in names): r for r in _judged_failures(conn, dim_cols, keys, f)}
    for row in rows:
        for name in (*SUMMED, *FLAGS, "seconds", "reward_sum", "gold_actions"):
            row[name] = row[name] or 0
        row["successes"] = row["r1"]
        row["r0"] = row["trials"] - row["errors"] - row["r1"] - row["rm1"]
        row["failures"] = row["trials"] - row["successes"]
        found = judged.get(tuple(row[n] for n in names))
        row["failures_judged"] = found["judged"] if found else 0
        row["failures_user"] = (found["user_erred"] or 0) if found else 0
    return rows


def _judged_failures(conn: Connection, dim_cols: Sequence[Any], keys: Sequence[Any], f: SessionFilter
                     ) -> list[dict[str, Any]]:
    """Per (dimensions, domain, task): the failed sessions someone labelled (a confirmed label) or marked
    reviewed, and those with a label saying the user erred. Only the sessions in the annotations and reviews
    tables are looked up (by primary key), whatever the size of the store."""
    sid, reward, status = FACTS.c.session_id, FACTS.c.reward, FACTS.c.status
    confirmed = confirmed_label()  # a saved suggestion is not a label yet
    marked: Any = union(select(col(AnnotationRow.session_id).label("sid")).where(confirmed),
                   select(col(SessionReviewRow.session_id).label("sid")))
    user_erred = (exists().where(col(AnnotationRow.session_id) == sid,
                                 col(AnnotationRow.who_erred) == str(WhoErred.USER), confirmed).correlate(FACTS))
    success = and_(~status.in_([str(s) for s in ERROR_STATUSES]), reward.is_not(None), reward == 1)
    query = (select(*dim_cols, FACTS.c.domain.label("domain"), FACTS.c.task_id.label("task_id"),
                    func.count().label("judged"), _count(user_erred).label("user_erred"))
             .select_from(FACTS).where(sid.in_(select(marked.subquery().c.sid)), ~success))
    query = _filtered(query, f).where(FACTS.c.not_scorable == 0)
    return _rows(conn, query.group_by(*keys))


def label_counts(conn: Connection, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
    """Fault labels per (dimensions, category, who erred)."""
    dim_cols = dimension_columns(dims)
    query = (select(*dim_cols, col(AnnotationRow.category).label("category"),
                    col(AnnotationRow.who_erred).label("who_erred"), func.count().label("labels"))
             .select_from(AnnotationRow).join(SessionRow, col(AnnotationRow.session_id) == SessionRow.id)
             .where(confirmed_label()))  # unconfirmed: not a label yet
    query = _base(query, f).group_by(*dim_cols, col(AnnotationRow.category), col(AnnotationRow.who_erred))
    return _rows(conn, query)


def perception_counts(conn: Connection, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
    """Perception labels per (dimensions, intended family and intensity, perceived family and intensity)."""
    dim_cols = dimension_columns(dims)
    intended = col(SessionRow.emotion)["family"].as_string().label("intended")
    intended_intensity = col(SessionRow.emotion)["intensity"].as_string().label("intended_intensity")
    query = (select(*dim_cols, intended, intended_intensity, col(PerceptionRow.family).label("perceived"),
                    col(PerceptionRow.intensity).label("perceived_intensity"), func.count().label("labels"))
             .select_from(PerceptionRow).join(SessionRow, col(PerceptionRow.session_id) == SessionRow.id))
    query = _base(query, f).group_by(*dim_cols, intended, intended_intensity, col(PerceptionRow.family),
                                     col(PerceptionRow.intensity))
    return _rows(conn, query)


def ratio_counts(conn: Connection, dims: Sequence[str], f: SessionFilter) -> list[dict[str, Any]]:
    """Sessions per (dimensions, tool calls, follow-ups, success): the tool-call-to-follow-up ratio figures."""
    dim_cols = dimension_columns(dims)
    ev = _event_counts()
    calls = func.coalesce(ev.c.tool_calls, 0).label("tool_calls")
    asks = func.coalesce(ev.c.follow_ups, 0).label("follow_ups")
    ok = case((_success(), 1), else_=0).label("success")
    query = (select(*dim_cols, calls, asks, ok, func.count().label("sessions"))
             .select_from(SessionRow).outerjoin(ev, ev.c.sid == SessionRow.id))
    query = _base(query, f).group_by(*dim_cols, calls, asks, ok)
    return _rows(conn, query)


def tool_call_counts(conn: Connection, f: SessionFilter) -> list[dict[str, Any]]:
    """Tool calls per (domain, tool name)."""
    name = col(EventRow.data)["name"].as_string().label("tool")
    query = (select(col(SessionRow.domain).label("domain"), name, func.count().label("calls"))
             .select_from(EventRow).join(SessionRow, col(EventRow.session_id) == SessionRow.id)
             .where(col(EventRow.kind) == str(EventKind.TOOL_CALL)))
    query = _base(query, f).group_by(col(SessionRow.domain), name)
    return _rows(conn, query)


def task_snapshots(conn: Connection, f: SessionFilter) -> list[dict[str, Any]]:
    """One saved task per (domain, task id) with its session count: what the sessions ran, read once a task."""
    first: Any = (select(col(SessionRow.domain).label("domain"), col(SessionRow.task_id).label("task_id"),
                    func.min(col(SessionRow.id)).label("sid"), func.count().label("sessions")))
    first = _base(first, f).group_by(col(SessionRow.domain), col(SessionRow.task_id)).subquery("first")
    query = (select(first.c.domain, first.c.task_id, first.c.sessions, col(SessionRow.task).label("task"))
             .join(SessionRow, col(SessionRow.id) == first.c.sid))
    return _rows(conn, query)


def change_marker(conn: Connection) -> tuple[Any, ...]:
    """Something that moves whenever a session, a label or a perception is saved (the stats screen polls it)."""
    sessions = conn.execute(select(func.count(), func.max(col(SessionRow.updated_at))).select_from(SessionRow)).one()
    labels = conn.execute(select(func.count(), func.max(col(AnnotationRow.id))).select_from(AnnotationRow)).one()
    seen = conn.execute(select(func.count(), func.max(col(PerceptionRow.id))).select_from(PerceptionRow)).one()
    return (*sessions, *labels, *seen)
