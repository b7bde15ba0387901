"""The screen under `tauplay review --queue` and `tauplay validate --queue`: it asks the shared store for the
annotator's next item (their unfinished one first, else the next one nobody holds), opens it, and when that
screen closes marks the item done if it was finished (reviewed / given a verdict) and opens the next. An item
left unfinished stays the annotator's until its lease runs out; `s` gives it back at once.

The queue is filled on first use from the items chosen by the command (sessions matching the filters, the
task set's tasks), with its overlap share chosen by tauplay.core.overlap; every store call runs in a worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from tauplay.core.text import visible
from tauplay.tui.keys import Scope, bindings


@dataclass(frozen=True)
class QueueWork:
    """What a queue hands out and how: its name, kind (review | validate), overlap share and lease (seconds),
    the items to fill it with (store -> ids, in order), what one item needs (store, id -> data, on a worker
    thread), the screen that works it (data -> screen, on the app's thread), and whether an item is finished
    (store, id -> bool, on a worker thread)."""

    name: str
    kind: str
    overlap: float
    lease: float
    items: Callable[[Any], list[str]]
    load_item: Callable[[Any, str], Any]
    screen_for: Callable[[Any], Screen[Any]]
    finished: Callable[[Any, str], bool]


class QueueScreen(Screen[None]):
    SCOPES = (Scope.QUEUE,)
    BINDINGS = bindings(Scope.QUEUE)  # type: ignore[assignment]
    DEFAULT_CSS = """
    QueueScreen #q-status { height: 1; background: $boost; }
    QueueScreen #q-body { height: 1fr; padding: 1 2; }
    """

    def __init__(self, work_: QueueWork, *, annotator: str, open_store: Callable[[], Any]) -> None:
        super().__init__()
        self.work = work_
        self.annotator = annotator
        self.open_store = open_store
        self.current: str | None = None  # the item handed to me and not finished
        self.opened = 0  # items opened in this sitting (tests wait on it)
        self.finished = 0  # items marked done in this sitting
        self.empty = False  # the queue has nothing left for me
        self.skipped: set[str] = set()  # given back in this sitting: not handed to me again now
        self.message = "filling the queue…"

    def compose(self) -> ComposeResult:
        yield Static(id="q-status")
        yield Static(id="q-body")
        yield Footer()

    def on_mount(self) -> None:
        self._draw()
        self.next_item(fill=True)

    def on_screen_resume(self) -> None:
        if self.current is not None and self.is_mounted:
            self.next_item()  # back from the item: done? then the next one

    def _draw(self, progress: Any = None) -> None:
        status = Text(no_wrap=True, overflow="ellipsis")
        status.append(visible(f" queue {self.work.name}"), style="bold")
        status.append(visible(f" · {self.work.kind} · annotator {self.annotator}"))
        if progress is not None:
            mine = next((a for a in progress.annotators if a.annotator == self.annotator), None)
            status.append(f" · you: {mine.done if mine else 0} done · queue: {progress.done}/{progress.seats} seats done")
        self.query_one("#q-status", Static).update(status)
        self.query_one("#q-body", Static).update(Text(visible(self.message)))

    def action_open_item(self) -> None:
        self.next_item(reopen=True)

    def action_refresh(self) -> None:
        self.next_item()

    def action_skip(self) -> None:
        self.next_item(skip=True)

    @work(thread=True, exclusive=True, group="queue", exit_on_error=False)
    def next_item(self, fill: bool = False, skip: bool = False, reopen: bool = False) -> None:
        from tauplay.core.overlap import overlap_items
        from tauplay.store import StoreError

        try:
            store = self.open_store()
            if fill:
                items = self.work.items(store)
                store.fill_queue(self.work.name, self.work.kind, items,
                                 overlap_items(self.work.name, items, self.work.overlap))
            if self.current is not None:
                if self.work.finished(store, self.current):
                    store.finish_item(self.work.name, self.current, self.annotator)
                    self.finished += 1
                elif skip:
                    store.release_item(self.work.name, self.current, self.annotator)
                    self.skipped.add(self.current)
                elif not reopen:  # back without finishing: it stays mine (its lease renewed) until Enter or s
                    store.renew_claim(self.work.name, self.current, self.annotator, lease=self.work.lease)
                    self.app.call_from_thread(self._wait, self.current, store.queue_progress(self.work.name))
                    return
            # my own unfinished item comes back first (reopen), else the next one nobody holds
            claim = store.claim_item(self.work.name, self.annotator, lease=self.work.lease, skip=self.skipped)
            if claim is None:
                self.current = None
                self.app.call_from_thread(self._done, store.queue_progress(self.work.name))
                return
            data = self.work.load_item(store, claim.item)
            progress = store.queue_progress(self.work.name)
        except StoreError as e:
            self.app.call_from_thread(self._fail, str(e))
            return
        self.current = claim.item
        self.app.call_from_thread(self._open, data, progress)

    def _open(self, data: Any, progress: Any) -> None:
        self.opened += 1
        self.message = f"working on {self.current}"
        self._draw(progress)
        self.app.push_screen(self.work.screen_for(data))

    def _wait(self, item: str, progress: Any) -> None:
        self.message = (f"{item} is not finished yet: it stays yours for {self.work.lease / 60:g} minutes. "
                        "Enter opens it again; s gives it back and takes the next.")
        self.current = item
        self._draw(progress)

    def _done(self, progress: Any) -> None:
        self.empty = True
        self.message = "nothing left for you in this queue: every item is done or held by someone else."
        self._draw(progress)

    def _fail(self, message: str) -> None:
        self.message = message
        self._draw()
        self.app.report(message)  # type: ignore[attr-defined]
