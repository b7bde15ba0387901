"""SessionStore: the session database as one object, composed of one class per concern over one Database.

    store.sessions   sessions, their events, their writers' leases   (tauplay.store.sessions)
    store.batches    batch plans and leases                           (tauplay.store.batches)
    store.labels     fault labels and perceived emotions              (tauplay.store.labels)
    store.reviews    reviewed marks on sessions, verdicts on tasks    (tauplay.store.reviews)
    store.propagation  propagation judgments                          (tauplay.store.judgments)
    store.queues     annotators' work queues                          (tauplay.store.queues)
    store.stats      grouped counts                                   (tauplay.store.stats)

The methods below are those concerns' own methods under the names callers have always used
(`store.add_label` is `store.labels.add`), so that code written against either reads the same store.

Every public method takes and returns plain records (tauplay.store.records), never table rows, one commit per
write, and raises only StoreError. Everything saved passes through `scrub`, so no key or token reaches the
database."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, cast, overload

from tauplay.core.events import Event
from tauplay.store.batches import Batches
from tauplay.store.database import Database
from tauplay.store.judgments import Judgments
from tauplay.store.labels import Labels
from tauplay.store.queues import Queues
from tauplay.store.reviews import Reviews
from tauplay.store.sessions import Sessions
from tauplay.store.stats import Stats

C = TypeVar("C")
P = ParamSpec("P")
R = TypeVar("R")


class _Of(Generic[C, P, R]):
    """A SessionStore method that is a concern's: `_Of("labels", Labels.add)` makes `store.x(...)` call
    `store.labels.add(...)`, with the same signature for the type checker."""

    def __init__(self, concern: str, method: Callable[Concatenate[C, P], R]) -> None:
        self.concern = concern
        self.method = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, store: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, store: object, owner: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, store: object | None, owner: type[Any] | None = None) -> Self | Callable[P, R]:
        if store is None:
            return self
        return cast("Callable[P, R]", getattr(getattr(store, self.concern), self.method))


class SessionStore:
    """The session database. SQLite file by default (sessions/tauplay.db, or $TAUPLAY_DB); any SQLAlchemy URL.

    Safe to share between threads: each call takes its own pooled connection and transaction.
    """

    def __init__(self, url: str | None = None, *, busy_timeout: float = 5.0, readonly: bool = False,
                 must_exist: bool = False, check: bool = True) -> None:
        """`readonly`: for commands that only read (export, agreement): the database must exist and is opened
        read-only, so a read-only folder or file can be read and a mistyped path creates nothing.
        `must_exist`: refuse a SQLite file that is not there instead of creating it. `check`: before writing
        into a SQLite file, make sure it is not damaged (PRAGMA quick_check)."""
        self.db = Database(url, busy_timeout=busy_timeout, readonly=readonly, must_exist=must_exist, check=check)
        self.url = self.db.url
        self.name = self.db.name
        self.busy_timeout = busy_timeout
        self.readonly = readonly
        self.schema_version = self.db.schema_version
        self.sessions = Sessions(self.db)
        self.batches = Batches(self.db)
        self.labels = Labels(self.db)
        self.reviews = Reviews(self.db)
        self.propagation = Judgments(self.db)
        self.queues = Queues(self.db)
        self.stats = Stats(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- sessions and events ----------------------------------------------------------------------------------
    create_session = _Of("sessions", Sessions.create)
    finish_session = _Of("sessions", Sessions.finish)
    set_status = _Of("sessions", Sessions.set_status)
    import_sessions = _Of("sessions", Sessions.import_bundles)
    repair_ended = _Of("sessions", Sessions.repair_ended)
    renew = _Of("sessions", Sessions.renew)
    claim_session = _Of("sessions", Sessions.claim)
    get_session = _Of("sessions", Sessions.get)
    list_sessions = _Of("sessions", Sessions.find)
    unfinished_sessions = _Of("sessions", Sessions.unfinished)
    events = _Of("sessions", Sessions.events)

    def append_events(self, items: Sequence[tuple[str, Event]]) -> None:  # the hot path: a plain method
        """Save several events (of one or more sessions) in one transaction: all of them or none."""
        self.sessions.append(items)

    def append_event(self, session_id: str, event: Event) -> None:
        """Save one event, committed before returning: a process killed afterwards loses nothing."""
        self.append_events([(session_id, event)])

    # -- batches ----------------------------------------------------------------------------------------------
    create_batch = _Of("batches", Batches.create)
    get_batch = _Of("batches", Batches.get)
    unfinished_batches = _Of("batches", Batches.unfinished)
    finish_batch = _Of("batches", Batches.finish)
    claim_batch = _Of("batches", Batches.claim)

    # -- labels and perceived emotions ------------------------------------------------------------------------
    add_label = _Of("labels", Labels.add)
    annotations = _Of("labels", Labels.find)
    confirm_annotation = _Of("labels", Labels.confirm)
    delete_annotation = _Of("labels", Labels.delete)
    set_perception = _Of("labels", Labels.set_perception)
    clear_perception = _Of("labels", Labels.clear_perception)
    perceptions = _Of("labels", Labels.perceptions)

    # -- reviewed marks and task reviews ----------------------------------------------------------------------
    mark_reviewed = _Of("reviews", Reviews.mark)
    unmark_reviewed = _Of("reviews", Reviews.unmark)
    reviewed_by = _Of("reviews", Reviews.reviewed_by)
    session_reviews = _Of("reviews", Reviews.marks)
    add_task_review = _Of("reviews", Reviews.add_task_review)
    task_reviews = _Of("reviews", Reviews.task_reviews)
    latest_reviews = _Of("reviews", Reviews.latest_reviews)
    delete_task_review = _Of("reviews", Reviews.delete_task_review)

    # -- propagation judgments --------------------------------------------------------------------------------
    import_judgments = _Of("propagation", Judgments.import_many)
    save_judgment = _Of("propagation", Judgments.save)
    judgments = _Of("propagation", Judgments.find)
    delete_judgment = _Of("propagation", Judgments.delete)

    # -- annotators' work queues ------------------------------------------------------------------------------
    fill_queue = _Of("queues", Queues.fill)
    claim_item = _Of("queues", Queues.claim)
    renew_claim = _Of("queues", Queues.renew)
    finish_item = _Of("queues", Queues.finish)
    release_item = _Of("queues", Queues.release)
    queue_progress = _Of("queues", Queues.progress)

    # -- statistics -------------------------------------------------------------------------------------------
    stats_task_groups = _Of("stats", Stats.task_groups)
    stats_not_scorable = _Of("stats", Stats.not_scorable)
    stats_label_counts = _Of("stats", Stats.label_counts)
    stats_perception_counts = _Of("stats", Stats.perception_counts)
    stats_ratio_counts = _Of("stats", Stats.ratio_counts)
    stats_tool_calls = _Of("stats", Stats.tool_calls)
    stats_tasks = _Of("stats", Stats.tasks)
    change_marker = _Of("stats", Stats.change_marker)

