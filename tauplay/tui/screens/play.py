"""Playing a session: the transcript and message box on the left, panels on the right.

As the user: task card, emotion card, graph, diff (never the policy or the gold actions while playing).
As the agent: tools (forms and a call line), the policy, graph, diff. Everything shown comes from the
session's event stream, the same stream the store saves. This is what both roles share; the roles' own screens are
tauplay.tui.screens.play_user and play_agent, the side panels' drawing and keys tauplay.tui.screens.play_panels.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from tauplay.core.events import Event, MessageData, NoticeData, ToolCallData, ToolResultData
from tauplay.core.text import visible, visible_any
from tauplay.core.vocabulary import Role
from tauplay.tui import keys
from tauplay.tui.screens.play_panels import PlayPanels
from tauplay.tui.session import Prepared
from tauplay.tui.startup import startup_done
from tauplay.tui.widgets.footer import KeysFooter
from tauplay.tui.widgets.line_input import LineInput
from tauplay.tui.widgets.side_panel import SidePanel
from tauplay.tui.widgets.transcript import USER_VIEW_OUTPUT, Transcript


def describe_side(desc: dict[str, Any]) -> str:
    if desc.get("kind") == "llm":
        return f"llm {desc.get('model')}"
    return str(desc.get("kind", "?"))


class PlayScreen(PlayPanels, Screen[None]):
    SCOPES: tuple[keys.Scope, ...] = (keys.Scope.PLAY,)
    ROLE = "user"
    TAB_TITLES: tuple[str, str] = ("Task", "Emotion")
    LATER_TABS: tuple[int, ...] = (3, 4)  # side tabs composed after the first turn (or when first shown)
    LATER_TABS_AFTER_TURN_S = 0.2

    def __init__(self, prepared: Prepared) -> None:
        super().__init__()
        self.prepared = prepared
        self.history: list[str] = []  # tool names the agent called so far (the graph's path)
        self.user_history: list[str] = []  # the user's own calls (dual control)
        self.show_gold = False
        self.ended = False
        self.your_turn = False
        self.events: list[Event] = []
        self.last_diff: dict[str, Any] | None = None
        self.diff_shown_at: float = 0.0  # perf_counter when the diff panel last showed a write
        self.diff_painted_at: float = 0.0  # ... and when the screen was next refreshed
        self.runner: Any = None  # the SessionRunner, made when the session starts (after the first paint)
        self.session_worker: Worker[Any] | None = None
        # What the person sent before the session had started: handed to the seat as soon as it exists. Once it
        # does, the seat itself keeps what is sent out of turn, in order, for the person's next turns.
        self.early: list[Callable[[Any], None]] = []
        self.waiting = 0  # moves sent out of turn, not taken yet (shown on the turn line)
        self._focus_before_zoom: Widget | None = None
        self._turn_painted = False  # the person's first turn has been shown (the runner opens the store then)
        self._resumed = False  # shown once (Textual's first ScreenResume handled)
        self._built_tabs: set[int] = set()  # LATER_TABS whose widgets are composed

    # -- layout -----------------------------------------------------------------------------------
    @property
    def seat(self) -> Any:
        """The person's seat at the session (a UserSeat or an AgentSeat, by role)."""
        return self.runner.seat

    def status_text(self) -> Text:
        p = self.prepared
        other = describe_side(p.agent if self.ROLE == "user" else p.user)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {p.domain.name}", style="bold")
        text.append(f" · task {visible(p.task.id)}")
        text.append(f" · you play the {self.ROLE}", style="bold")
        text.append(f" · {'agent' if self.ROLE == 'user' else 'user'}: {visible_any(other)}")
        if p.config.validate:
            text.append(" · validation mode", style="yellow")
        return text

    def compose(self) -> ComposeResult:
        yield Static(self.status_text(), id="status")
        with Horizontal(id="main"):
            with Vertical(id="chat"):
                yield Transcript(me=self.ROLE, max_output=USER_VIEW_OUTPUT if self.ROLE == "user" else None,
                                 hide_planned_injections=self.ROLE == "agent", customer_view=self.ROLE == "user",
                                 names=self.prepared.domain.role_names, id="transcript")
                yield Static(Text("starting the session…", style="dim"), id="turn")
                yield LineInput(placeholder=self.message_placeholder(), id="message", select_on_focus=False)
                yield from self.compose_chat_extra()
            with SidePanel(id="side", initial="tab-1"):
                with TabPane(self.TAB_TITLES[0], id="tab-1"):
                    yield from self.compose_tab1()
                with TabPane(self.TAB_TITLES[1], id="tab-2"):
                    if 2 not in self.LATER_TABS:
                        yield from self.compose_tab2()
                # The Graph and Diff tabs (and a role's LATER_TABS) are empty on the way to the first turn: their
                # widgets are composed once the first turn is shown, or when the tab is shown first if sooner
                # (build_tab), from the conversation so far.
                yield TabPane("Graph", id="tab-3")
                yield TabPane("Diff", id="tab-4")
        yield KeysFooter(compact=True)

    def compose_later_tab(self, n: int) -> ComposeResult:
        """The widgets of side tab `n` (one of LATER_TABS), as they are now."""
        if n == 2:
            yield from self.compose_tab2()
        elif n == 3:
            from tauplay.tui.widgets.graph_panel import GraphPanel  # loaded with the tab

            graph = GraphPanel(self.prepared.domain.name, self.graph_state, progress=self.progress_state,
                               user_state=lambda: self.user_history, events=self.graph_events, id="graph")
            graph.concealed = self.concealed_note()
            if self._turn_painted:
                graph.build_soon()
            yield graph
        elif n == 4:
            from tauplay.tui.widgets.diff_panel import DiffPanel  # loaded with the tab

            diff = DiffPanel(id="diff")
            diff.concealed = self.concealed_note()
            if self.last_diff is not None and self.runner is not None:
                self.show_diff(diff)  # drawn as it is now when composed
            yield diff

    def build_tab(self, n: int) -> None:
        """Compose side tab `n`'s widgets now if they are not yet (idempotent)."""
        if n not in self.LATER_TABS or n in self._built_tabs:
            return
        self._built_tabs.add(n)
        self.query_one(f"#tab-{n}", TabPane).mount(*self.compose_later_tab(n))

    def build_later_tabs(self) -> None:
        for n in self.LATER_TABS:
            self.build_tab(n)

    @on(TabbedContent.TabActivated, "#side")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id or ""
        if pane_id.startswith("tab-") and pane_id[4:].isdigit():
            self.build_tab(int(pane_id[4:]))

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown for the first time: every widget's styles were worked out as it was mounted, just before, so
        Textual's restyling of the whole screen on this resume is skipped (it cost as much as mounting the screen
        again). Shown again later (after a modal), the screen is restyled as usual. Runs before Screen's own
        handler (the subclass's handler comes first)."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def message_placeholder(self) -> str:
        return "message (Enter sends)"

    def concealed_note(self) -> str | None:
        """What the graph and diff panels show instead of themselves (None: they show themselves)."""
        return None

    def compose_chat_extra(self) -> ComposeResult:
        return iter(())

    def mounted(self) -> None:
        """A role's own set-up once the screen is mounted (Textual calls every class's on_mount itself)."""

    def compose_tab1(self) -> ComposeResult:
        return iter(())

    def compose_tab2(self) -> ComposeResult:
        return iter(())

    # -- the session ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.mounted()
        self.query_one("#message", Input).focus()
        self.prepared.warm()  # the start state is built while the screen paints
        # The session (store, participants) starts after the first paint: the screen is usable at once.
        self.call_after_refresh(self._start_session)

    def _start_session(self) -> None:
        from tauplay.tui.runner import SessionRunner  # the sim layer loads after the first paint

        self.runner = SessionRunner(self.prepared, self.on_session_event, self.on_turn)
        for move in self.early:  # typed during start-up: taken in order, at the person's first turns
            move(self.runner.seat)
        self.early.clear()
        self.session_worker = self.run_worker(self._run_session(), group="session", exit_on_error=False)

    async def _run_session(self) -> None:
        outcome = await self.runner.run()
        self.ended = True
        from tauplay.tui.screens.end import EndScreen

        self.app.switch_screen(EndScreen(self.prepared, self.runner, outcome, self.events))

    def on_unmount(self) -> None:
        if self.runner is not None:
            self.runner.close()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.session_worker and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.app.report(f"the session stopped: {type(error).__name__}: {error}")  # type: ignore[attr-defined]
            self.query_one("#turn", Static).update(Text("the session stopped (see the message); the events saved "
                                                        "so far can be resumed from the home screen", style="red"))

    def on_turn(self, mine: bool) -> None:
        if mine and self.your_turn is False and self.waiting:
            self.waiting -= 1  # the seat takes the next move sent out of turn
        if mine and not self._turn_painted:  # the store opens after this paint, not during it
            self._turn_painted = True
            self.call_after_refresh(self._first_turn_shown)
        self.your_turn = mine
        self.show_turn()

    def _first_turn_shown(self) -> None:
        startup_done()
        self.runner.turn_shown()
        # The tabs not shown yet are composed shortly after (not in front of the person's first keys), or when
        # the person shows one first.
        self.set_timer(self.LATER_TABS_AFTER_TURN_S, self.build_later_tabs)
        for panel in self.graph_panels():  # the graph is built now, not on the way to this turn
            panel.build_soon()

    def show_turn(self) -> None:
        mine = self.your_turn
        other = "agent" if self.ROLE == "user" else "user"
        other = self.prepared.domain.role_names.get(other, other)  # escape: the narrator
        line = Text("your turn" if mine else f"the {other} is answering…" if self.runner is not None
                    else "starting the session…", style="bold green" if mine else "dim italic")
        if mine:
            line.append(self.turn_hint(), style="dim")
        if self.waiting:
            line.append(f" · {self.waiting} sent, to go when it is your turn", style="yellow")
        self.query_one("#turn", Static).update(line)

    def deliver(self, move: Callable[[Any], None], what: str) -> bool:
        """Hand the person's move to the seat: now on their turn; else kept, in order, and made at their next
        turn (typed during start-up, or while the other side or a call runs). False once the session is over."""
        if self.ended:
            return False
        if self.runner is None:
            self.early.append(move)
        else:
            move(self.seat)
        if not self.your_turn:
            self.waiting += 1
            self.show_turn()
            self.app.notify(f"{what}: sent when it is your turn", markup=False)
        return True

    def turn_hint(self) -> str:
        return " · Enter sends"

    def on_session_event(self, event: Event) -> None:
        self.events.append(event)
        self.query_one("#transcript", Transcript).add_event(event)
        payload = event.payload
        if isinstance(payload, ToolCallData):
            (self.user_history if payload.by_user else self.history).append(payload.name)
            self.redraw_graph()
        elif isinstance(payload, ToolResultData):
            if self.prepared.domain.progress is not None:
                self.redraw_graph()  # what the call revealed shows in the task's own graph
            if payload.diff is not None:
                self.last_diff = dict(payload.diff)
                if payload.by_user:
                    self.last_diff["by"] = "user"
                self.redraw_diff()
        elif isinstance(payload, MessageData) and event.role == Role.USER:
            self.redraw_graph()  # a value the user said may ground a tool's inputs
        elif isinstance(payload, NoticeData) and payload.level == "error":
            self.app.report(payload.text)  # type: ignore[attr-defined]

    @on(Input.Submitted, "#message")
    def _send(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        if not self.deliver(lambda seat: seat.say(text), "your message"):  # over: the text stays in the box
            self.query_one("#message", LineInput).give_back(event.value)

    def refuse_not_your_turn(self) -> None:
        other = "agent" if self.ROLE == "user" else "user"
        self.app.report(f"wait for the {other} to answer", severity="warning")  # type: ignore[attr-defined]
