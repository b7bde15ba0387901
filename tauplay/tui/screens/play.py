"""Playing a session: the transcript and message box on the left, panels on the right.

As the user: task card, emotion card, graph, diff (never the policy or the gold actions while playing).
As the agent: tools (forms and a call line), the policy, graph, diff. Everything shown comes from the
session's event stream, the same stream the store saves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.lazy import Lazy
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from tauplay.core.behavior import card_line
from tauplay.core.events import Event, InjectionData, MessageData, NoticeData, ToolCallData, ToolResultData
from tauplay.core.text import visible, visible_any
from tauplay.core.vocabulary import NoticeAbout, Role
from tauplay.tui import keys
from tauplay.tui.session import Prepared
from tauplay.tui.startup import startup_done
from tauplay.tui.widgets.call_line import CallLine
from tauplay.tui.widgets.cards import Card, CardStack, device_card, emotion_card, task_card
from tauplay.tui.widgets.diff_panel import DiffPanel
from tauplay.tui.widgets.footer import KeysFooter
from tauplay.tui.widgets.graph_panel import GraphPanel
from tauplay.tui.widgets.tool_form import ToolForm
from tauplay.tui.widgets.transcript import USER_VIEW_OUTPUT, Transcript


class SidePanel(TabbedContent):
    ALLOW_MAXIMIZE = True


def describe_side(desc: dict[str, Any]) -> str:
    if desc.get("kind") == "llm":
        return f"llm {desc.get('model')}"
    return str(desc.get("kind", "?"))


class PlayScreen(Screen[None]):
    SCOPES: tuple[keys.Scope, ...] = (keys.Scope.PLAY,)
    ROLE = "user"
    TAB_TITLES: tuple[str, str] = ("Task", "Emotion")

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
                yield Input(placeholder=self.message_placeholder(), id="message", select_on_focus=False)
                yield from self.compose_chat_extra()
            with SidePanel(id="side", initial="tab-1"):
                with TabPane(self.TAB_TITLES[0], id="tab-1"):
                    yield from self.compose_tab1()
                with TabPane(self.TAB_TITLES[1], id="tab-2"):
                    yield from self.compose_tab2()
                with TabPane("Graph", id="tab-3"):
                    graph = GraphPanel(self.prepared.domain.name, self.graph_state, progress=self.progress_state,
                                       user_state=lambda: self.user_history, events=self.graph_events, id="graph")
                    graph.concealed = self.concealed_note()
                    yield Lazy(graph)
                with TabPane("Diff", id="tab-4"):
                    diff = DiffPanel(id="diff")
                    diff.concealed = self.concealed_note()
                    yield diff
        yield KeysFooter(compact=True)

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
        for panel in self.query(GraphPanel):  # the graph is built now, not on the way to this turn
            panel.build_soon()

    def show_turn(self) -> None:
        mine = self.your_turn
        other = "agent" if self.ROLE == "user" else "user"
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

    # -- panels -----------------------------------------------------------------------------------
    def gold_names(self) -> list[str]:
        return [a.name for a in self.prepared.task.actions]

    def graph_state(self) -> tuple[list[str], list[str] | None]:
        return self.history, self.gold_names() if self.show_gold else None

    def graph_events(self) -> list[Event]:
        """The session's events so far (the graph's "valid next": tools whose inputs are grounded now)."""
        return self.events

    def progress_state(self) -> tuple[Any, Any, bool]:
        """For a domain whose tasks carry their own graph: this session's state (None until it starts),
        the task, and whether every step may be shown (validation mode, with the gold overlay on)."""
        env = self.runner.env if self.runner is not None else None
        return (env.state if env is not None else None), self.prepared.task, self.show_gold

    def redraw_graph(self) -> None:
        for panel in self.query(GraphPanel):
            panel.redraw()

    def redraw_diff(self) -> None:
        env = self.runner.env
        distance = None
        if self.prepared.config.validate:
            from tauplay.core.gold_distance import distance_to_gold

            distance = distance_to_gold(env, self.prepared.task).count
        note = None if self.prepared.config.validate else "hidden until the end of the session"
        self.query_one("#diff", DiffPanel).show(self.last_diff, env.changes_since_start(), distance, note)
        self.diff_shown_at = time.perf_counter()
        self.call_after_refresh(self._diff_painted)

    def _diff_painted(self) -> None:
        self.diff_painted_at = time.perf_counter()  # the benchmark reads it: write -> diff on screen

    # -- actions ----------------------------------------------------------------------------------
    def action_side_tab(self, n: int) -> None:
        self.query_one("#side", SidePanel).active = f"tab-{n}"

    def action_scroll_side(self) -> None:
        """A page down in the side panel's tab shown, back to the top after its end, wherever the keys go: the
        task card is taller than the panel at 80x24, and the message box keeps the focus meanwhile."""
        pane = self.query_one("#side", SidePanel).active_pane
        if pane is None:
            return
        scrollable = next((w for w in pane.query("*") if w.allow_vertical_scroll and w.max_scroll_y > 0), None)
        if scrollable is None:
            return
        if scrollable.scroll_offset.y >= scrollable.max_scroll_y:
            scrollable.scroll_home(animate=False)
        else:
            scrollable.scroll_page_down(animate=False)

    def action_focus_chat(self) -> None:
        if self.maximized is not None:
            self.minimize()
        self.query_one("#message", Input).focus()

    def action_zoom_side(self) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.query_one("#side", SidePanel), container=False)

    def watch_maximized(self, before: Widget | None, now: Widget | None) -> None:
        """Zoomed, the keys go to the panel shown; back (f7, or escape, which Textual handles itself), to where
        they went before."""
        if now is not None:
            self._focus_before_zoom = self.focused
            if self.focused is None or now not in self.focused.ancestors_with_self:
                self.call_after_refresh(self._focus_in, now)
        elif before is not None:
            back = self._focus_before_zoom
            self._focus_before_zoom = None
            if back is None or not back.is_mounted or not back.focusable:
                back = self.query_one("#message", Input)
            self.call_after_refresh(back.focus)

    def _focus_in(self, panel: Widget) -> None:
        tabs = panel.query_one(TabbedContent) if not isinstance(panel, TabbedContent) else panel
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        target = next((w for w in (pane or panel).query("*") if w.focusable), None)
        (target or panel).focus()

    def action_toggle_gold(self) -> None:
        if not self.prepared.config.validate:
            self.app.report("the gold path is shown after the session (or when validating a task), "  # type: ignore[attr-defined]
                            "not while playing for a baseline", severity="warning")
            return
        self.show_gold = not self.show_gold
        self.redraw_graph()

    @on(Input.Submitted, "#message")
    def _send(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or self.ended:
            return
        if self.deliver(lambda seat: seat.say(text), "your message"):
            event.input.value = ""

    def refuse_not_your_turn(self) -> None:
        other = "agent" if self.ROLE == "user" else "user"
        self.app.report(f"wait for the {other} to answer", severity="warning")  # type: ignore[attr-defined]


HIDDEN_NOTE = ("A customer sees only the agent's messages: its tool calls, their results, the graph and the "
               "database diff are hidden. {key} reveals them (for annotators; the reveal is recorded in the "
               "session).")


class PlayUserScreen(PlayScreen):
    SCOPES = (keys.Scope.PLAY, keys.Scope.PLAY_USER)
    BINDINGS = keys.bindings(keys.Scope.PLAY_USER, keys.Scope.PLAY, labels={"play.tab1": "Task", "play.tab2": "Agent",  # type: ignore[assignment]
                                                          "play.graph": "Graph", "play.diff": "Diff"})
    ROLE = "user"
    TAB_TITLES = ("Task", "Agent")
    revealed = False  # the agent's side shown (after the reveal notice was saved)
    reveal_asked = False

    def hidden_note(self) -> str:
        return HIDDEN_NOTE.format(key=self.app.key_for("play.reveal"))  # type: ignore[attr-defined]

    def concealed_note(self) -> str | None:
        return None if self.revealed else self.hidden_note()

    def compose_tab1(self) -> ComposeResult:
        with CardStack(id="cards"):
            with Horizontal():
                yield Card(emotion_card(self.prepared.emotion, self.prepared.task.emotion_text), id="emotion-card")
                yield Card(task_card(self.prepared.task), id="task-card")
            if (behavior := self.prepared.behavior) is not None:  # RUSE-style behaviour: one line under the task
                yield Static(Text(card_line(behavior), style="bold"), id="behavior-line")
            if self.prepared.domain.user_tools:
                yield Card(device_card(self.prepared.domain), id="device-card")

    def compose_tab2(self) -> ComposeResult:
        yield Static(Text(self.hidden_note(), style="dim"), id="agent-hidden", classes="hidden-note")
        yield Transcript(me=self.ROLE, names=self.prepared.domain.role_names, id="agent-side")  # every event, results whole: shown once revealed

    def mounted(self) -> None:
        self.query_one("#agent-side", Transcript).display = False

    def on_session_event(self, event: Event) -> None:
        super().on_session_event(event)
        self.query_one("#agent-side", Transcript).add_event(event)
        payload = event.payload
        if isinstance(payload, NoticeData) and payload.about == NoticeAbout.REVEAL:
            self._show_agent_side()

    def action_reveal(self) -> None:
        if self.revealed or self.reveal_asked:
            self.action_side_tab(2)
            return
        if self.runner is None or self.runner.session is None:
            self.app.report("the session is still starting", severity="warning")  # type: ignore[attr-defined]
            return
        self.reveal_asked = True
        self.run_worker(self.runner.record_reveal(), group="reveal", exit_on_error=False)

    def _show_agent_side(self) -> None:
        """The reveal is saved: show the agent's side everywhere on this screen."""
        self.revealed = True
        self.query_one("#transcript", Transcript).reveal()
        self.query_one("#agent-hidden", Static).display = False
        self.query_one("#agent-side", Transcript).display = True
        for panel in self.query(GraphPanel):
            panel.conceal(None)
        self.query_one("#diff", DiffPanel).conceal(None)
        if self.last_diff is not None:
            self.redraw_diff()

    def action_expand_results(self) -> None:
        transcript = self.query_one("#transcript", Transcript)
        if not transcript.revealed:
            self.app.notify(f"tool results are part of the agent's side: {self.app.key_for('play.reveal')} "  # type: ignore[attr-defined]
                            "reveals it", markup=False)
            return
        expanded = transcript.toggle_expanded()
        self.app.notify("tool results in full" if expanded else "tool results cut again", markup=False)

    def compose_chat_extra(self) -> ComposeResult:
        if self.prepared.domain.user_tools:  # dual control: the person acts on the user's own device
            yield CallLine(self.prepared.domain, user_side=True, id="call-line")

    def turn_hint(self) -> str:
        if self.prepared.domain.user_tools:
            return f" · Enter sends; {self.app.key_for('play.device')} your device's call line"  # type: ignore[attr-defined]
        return " · Enter sends"

    def action_focus_call_line(self) -> None:
        found = self.query(CallLine)
        if found:
            found.first().input.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the device's call line (and its key in the footer) only where the user has a device of its own
        if action == "focus_call_line":
            return bool(self.prepared.domain.user_tools)
        return True

    @on(CallLine.Run)
    def _device_call(self, event: CallLine.Run) -> None:
        if self.deliver(lambda seat: seat.call_tool(event.name, event.arguments), f"your call {event.name}"):
            self.query_one("#message", Input).focus()

    @on(CallLine.Invalid)
    def _device_call_refused(self, event: CallLine.Invalid) -> None:
        """A device call that cannot be made is saved (an invalid_call notice of the user), as on the agent's seat;
        out of turn it is only shown."""
        if self.ended or not self.your_turn or self.runner is None:
            return
        self.seat.attempt_invalid(event.line, "; ".join(event.problems))

    def _finish(self, satisfied: bool) -> None:
        box = self.query_one("#message", Input)
        text = box.value.strip()
        if self.deliver(lambda seat: (seat.stop if satisfied else seat.abandon)(text),
                        "the end of the conversation" if satisfied else "giving up"):
            box.value = ""

    def action_satisfied(self) -> None:
        self._finish(True)

    def action_give_up(self) -> None:
        self._finish(False)


class PlayAgentScreen(PlayScreen):
    SCOPES = (keys.Scope.PLAY, keys.Scope.PLAY_AGENT, keys.Scope.PLAY_INJECT)
    BINDINGS = keys.bindings(keys.Scope.PLAY_AGENT, keys.Scope.PLAY, keys.Scope.PLAY_INJECT,  # type: ignore[assignment]
                             labels={"play.tab1": "Tools", "play.tab2": "Policy", "play.graph": "Graph",
                                     "play.diff": "Diff"})
    ROLE = "agent"
    TAB_TITLES = ("Tools", "Policy")
    marked_kind: str | None = None  # the error the person asked for on their next call (AgentProp study)

    def action_mark_injection(self) -> None:
        """Cycle the kind of error put into my next tool call: each kind in turn, then none."""
        from tauplay.core.vocabulary import INJECTION_KINDS

        order: list[str | None] = [None, *INJECTION_KINDS]
        kind = order[(order.index(self.marked_kind) + 1) % len(order)]
        if self.runner is None or self.ended or not self.runner.mark_injection(kind):
            self.app.report("the session has not started yet", severity="warning")  # type: ignore[attr-defined]
            return
        self.marked_kind = kind
        self.app.notify(f"your next tool call will get a {kind} error; you see its result as a model would"
                        if kind else "no error on your next call", markup=False)

    def on_session_event(self, event: Event) -> None:
        super().on_session_event(event)
        payload = event.payload
        if isinstance(payload, InjectionData) and payload.source == "marked":
            self.marked_kind = None

    def message_placeholder(self) -> str:
        return f"message to the {self.prepared.domain.role_names.get('user', 'user')} (Enter sends)"

    def compose_chat_extra(self) -> ComposeResult:
        yield CallLine(self.prepared.domain, id="call-line")

    def compose_tab1(self) -> ComposeResult:
        from tauplay.tui.widgets.tools_panel import ToolsPanel

        yield ToolsPanel(self.prepared.domain, id="tools")

    def compose_tab2(self) -> ComposeResult:
        from tauplay.tui.widgets.policy_pane import PolicyPane

        yield Lazy(PolicyPane(self.prepared.domain.policy, id="policy"))

    def turn_hint(self) -> str:
        return " · message the user, or call a tool"

    def _call(self, name: str, arguments: dict[str, Any]) -> bool:
        if not self.deliver(lambda seat: seat.call_tool(name, arguments), f"your call {name}"):
            return False
        self.query_one("#message", Input).focus()  # the next move is most often a word to the user
        return True

    def action_side_tab(self, n: int) -> None:
        super().action_side_tab(n)
        if n == 2:  # the policy: straight into its search box
            self.call_after_refresh(self._focus_policy_search)

    def _focus_policy_search(self) -> None:
        found = self.query("#policy-search")
        if found:
            found.first().focus()
        else:  # the pane is mounted lazily: once it is there
            self.set_timer(0.05, self._focus_policy_search)

    @on(CallLine.Run)
    def _call_line(self, event: CallLine.Run) -> None:
        if not self._call(event.name, event.arguments):
            self.query_one(CallLine).input.value = event.line  # keep what was typed

    @on(ToolForm.Run)
    def _form_run(self, event: ToolForm.Run) -> None:
        self._call(event.name, event.arguments)

    @on(CallLine.Invalid)
    def _call_line_refused(self, event: CallLine.Invalid) -> None:
        self._attempted(event.line, event.problems)

    @on(ToolForm.Invalid)
    def _form_refused(self, event: ToolForm.Invalid) -> None:
        self._attempted(f"{event.name} (form)", event.problems)

    def _attempted(self, text: str, problems: list[str]) -> None:
        """A call the person tried that cannot be made is saved (an invalid_call notice); nothing runs and it
        stays the person's move. Out of turn it is only shown, as any refused line."""
        if self.ended or not self.your_turn or self.runner is None:
            return
        self.seat.attempt_invalid(text, "; ".join(problems))

    def action_end_session(self) -> None:
        if self.ended:
            return
        if not self.your_turn:
            self.refuse_not_your_turn()
            return
        from tauplay.tui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes and not self.ended and self.your_turn:
                self.seat.end("the agent ended the session")

        self.app.push_screen(ConfirmScreen("End the session now? The user gets no further answer and the "
                                           "session is scored as it stands."), answered)

    def action_focus_call_line(self) -> None:
        self.query_one(CallLine).input.focus()

    def action_pick_tool(self) -> None:
        self.action_side_tab(1)
        self.query_one("#tool-list").focus()

    def action_run_form(self) -> None:
        from tauplay.tui.widgets.tools_panel import ToolsPanel

        form = self.query_one(ToolsPanel).form
        if form is None:
            self.app.report("pick a tool first", severity="warning")  # type: ignore[attr-defined]
            return
        form.submit()
