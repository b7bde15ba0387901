"""The home screen: pick domain, task, role, emotion and the other side's model; resume a session."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Input, Select, Static

from tauplay.core.text import visible
from tauplay.tui import keys
from tauplay.tui.session import PlayConfig

RANDOM_TASK = "__random__"


class HomeScreen(Screen[None]):
    SCOPES = (keys.Scope.HOME,)
    BINDINGS = keys.bindings(keys.Scope.HOME)  # type: ignore[assignment]

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.sessions: list[Any] = []
        self.sessions_loaded = False
        self._tasks_asked = 0  # the task lists asked for: only the newest one asked is shown

    def compose(self) -> ComposeResult:
        from tauplay.core.domain import installed_domains

        domains = installed_domains()  # a domain whose optional package is missing cannot be played here
        domain = self.config.domain if self.config.domain in domains else (domains[0] if domains else None)
        yield Static(Text.assemble(("tauplay", "bold"), "  play a τ-bench task as the user or as the agent"),
                     id="home-title")
        with Grid(id="choices"):
            yield Static("Domain")
            yield Select([(d, d) for d in domains], value=domain or Select.NULL, allow_blank=False, id="domain",
                         compact=True)
            yield Static("Task set")
            sets = self._sets(domain)
            wanted_set = self.config.tasks if self.config.tasks in sets else (sets[0] if sets else Select.NULL)
            yield Select([(name, name) for name in sets], value=wanted_set, allow_blank=False, id="task-set",
                         compact=True)
            yield Static("Task")
            yield Select([(Text("random task"), RANDOM_TASK)], value=RANDOM_TASK, allow_blank=False, id="task",
                         compact=True)
            yield Static("Role")
            yield Select([("play the user", "user"), ("play the agent", "agent")],
                         value=self.config.role or "user", allow_blank=False, id="role", compact=True)
            yield Static("Emotion")
            yield Input(self.config.emotion or "", placeholder="blank: the task's own (or: frustrated, anxious, fear/panic)",
                        id="emotion", compact=True)
            yield Static("Other side")
            yield Input(self._other_model() or "", placeholder="blank: offline (gated agent / scripted user); "
                        "or a litellm model", id="model", compact=True)
            yield Static("API base")
            yield Input(self._other_base() or "", placeholder="blank: the provider's; e.g. http://127.0.0.1:8000/v1",
                        id="api-base", compact=True)
        yield Button("Start", id="start", variant="primary", compact=True)
        with Vertical(id="sessions-box"):
            yield Static(Text("Unfinished sessions (Enter or ctrl+r resumes)", style="bold"), id="sessions-title")
            table: DataTable[Any] = DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            table.add_columns("session", "domain", "task", "role", "events", "last change")
            yield table
            yield Static(Text("loading…", style="dim"), id="sessions-status")
        yield Footer()

    @staticmethod
    def _sets(domain_name: str | None) -> list[str]:
        """Every task set of the domain, its default first."""
        from tauplay.core.domain import DomainError, get_domain

        if domain_name is None:
            return []
        try:
            domain = get_domain(domain_name)
        except DomainError:
            return []
        names = list(domain.task_sets)
        default = domain.default_task_set
        return ([default] if default in names else []) + [n for n in names if n != default]

    def _chosen_set(self) -> str | None:
        value = self.query_one("#task-set", Select).value
        return value if isinstance(value, str) else None

    def _other_model(self) -> str | None:
        return self.config.agent_model if (self.config.role or "user") == "user" else self.config.user_model

    def _other_base(self) -> str | None:
        return self.config.agent_api_base if (self.config.role or "user") == "user" else self.config.user_api_base

    def on_mount(self) -> None:
        self.query_one("#domain", Select).focus()
        domain = self.query_one("#domain", Select).value
        if isinstance(domain, str):
            self.load_tasks(domain, self._chosen_set())
        # The store is opened only after the first paint (SQLAlchemy is slow to import).
        self.call_after_refresh(self.action_refresh_sessions)

    # -- tasks ------------------------------------------------------------------------------------
    def load_tasks(self, domain_name: str, set_name: str | None) -> None:
        """Read the chosen set's tasks in a thread; only the newest read is shown."""
        self._tasks_asked += 1
        self._read_tasks(domain_name, set_name, self._tasks_asked)

    @work(thread=True, exclusive=True, group="tasks", exit_on_error=False)
    def _read_tasks(self, domain_name: str, set_name: str | None, asked: int) -> None:
        from tauplay.core.domain import get_domain
        from tauplay.tui.session import load_task_set

        try:
            task_set = load_task_set(get_domain(domain_name), set_name)
        except Exception as e:  # noqa: BLE001 - any failure becomes a message
            self.app.call_from_thread(self.app.report, f"{domain_name}: {e}")  # type: ignore[attr-defined]
            return
        options: list[tuple[Any, str]] = [(Text("random task"), RANDOM_TASK)]
        for t in task_set.tasks:
            goal = t.goal.replace("\n", " ")
            options.append((Text(visible(f"{t.id} — {goal[:60]}"), no_wrap=True, overflow="ellipsis"), t.id))
        self.app.call_from_thread(self._set_tasks, options, asked)

    def _set_tasks(self, options: list[tuple[Any, str]], asked: int) -> None:
        # A thread cannot be stopped: an older read (another set chosen meanwhile) may finish after the newest,
        # and must not put its list back (seen on a loaded machine: the starter list after the test set's).
        if asked != self._tasks_asked or not self.query("#task"):  # stale, or the screen went away
            return
        select = self.query_one("#task", Select)
        # The list may be read again (the domain and set choosers announce themselves on mount): a task the
        # person already picked stays picked.
        picked = select.value if isinstance(select.value, str) and select.value != RANDOM_TASK else None
        select.set_options(options)
        wanted = picked if picked and any(v == picked for _, v in options) else self.config.task_id
        select.value = wanted if wanted and any(v == wanted for _, v in options) else RANDOM_TASK

    @on(Select.Changed, "#domain")
    def _domain_changed(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str) or not self.query("#task-set"):
            return
        sets = self._sets(event.value)
        chooser = self.query_one("#task-set", Select)
        if [v for _, v in chooser._options] != sets:  # another domain: its own sets, its default chosen
            with chooser.prevent(Select.Changed):
                chooser.set_options([(name, name) for name in sets])
                if sets:
                    chooser.value = sets[0]
        self.load_tasks(event.value, self._chosen_set())

    @on(Select.Changed, "#task-set")
    def _set_changed(self, event: Select.Changed) -> None:
        if not self.query("#domain"):  # the screen is going away
            return
        domain = self.query_one("#domain", Select).value
        if isinstance(domain, str) and isinstance(event.value, str):
            self.load_tasks(domain, event.value)

    # -- sessions ---------------------------------------------------------------------------------
    def action_refresh_sessions(self) -> None:
        self._load_sessions()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def _load_sessions(self) -> None:
        from tauplay.tui.runner import open_store

        try:
            store = open_store(self.config.db_url)
            try:
                found = store.unfinished_sessions()
            finally:
                store.close()
        except Exception as e:  # noqa: BLE001 - StoreError and friends become a message
            self.app.call_from_thread(self._show_sessions, [], f"sessions not available: {e}")
            return
        self.app.call_from_thread(self._show_sessions, found, "")

    def _show_sessions(self, found: list[Any], error: str) -> None:
        self.sessions = found
        self.sessions_loaded = True
        table = self.query_one("#sessions", DataTable)
        table.clear()
        for s in found:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated_at))
            cells = (s.id[:8], s.domain, s.task_id, s.role, str(s.event_count), when)
            table.add_row(*(Text(visible(c)) for c in cells), key=s.id)  # literal: ids may hold brackets
        status = self.query_one("#sessions-status", Static)
        if error:
            status.update(Text(visible(error), style="red"))
        else:
            status.update(Text(f"{len(found)} unfinished session(s)" if found else "no unfinished sessions",
                               style="dim"))

    # -- actions ----------------------------------------------------------------------------------
    def chosen(self) -> PlayConfig:
        domain = self.query_one("#domain", Select).value
        task = self.query_one("#task", Select).value
        role = str(self.query_one("#role", Select).value)
        emotion = self.query_one("#emotion", Input).value.strip() or None
        model = self.query_one("#model", Input).value.strip() or None
        base = self.query_one("#api-base", Input).value.strip() or None
        other = {"agent_model": model, "agent_api_base": base} if role == "user" else \
            {"user_model": model, "user_api_base": base}
        return self.config.with_(domain=str(domain), task_id=None if task == RANDOM_TASK else str(task), role=role,
                                 emotion=emotion, resume=None, tasks=self._chosen_set(), **other)

    def action_start(self) -> None:
        self.app.start_play(self.chosen())  # type: ignore[attr-defined]

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    def action_resume(self) -> None:
        table = self.query_one("#sessions", DataTable)
        if not self.sessions or table.cursor_row is None or table.cursor_row >= len(self.sessions):
            self.app.report("no unfinished session selected", severity="warning")  # type: ignore[attr-defined]
            return
        from tauplay.tui.session import resume_config

        self.app.start_play(resume_config(self.config, self.sessions[table.cursor_row]))  # type: ignore[attr-defined]

    @on(DataTable.RowSelected, "#sessions")
    def _row_selected(self) -> None:
        self.action_resume()
