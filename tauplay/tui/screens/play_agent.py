"""Playing the agent (tauplay.tui.screens.play): the tools (forms and a call line), the policy, marking the next
call for corruption in an AgentProp study, and ending the session."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.lazy import Lazy
from textual.widgets import Input

from tauplay.core.events import Event, InjectionData
from tauplay.tui import keys
from tauplay.tui.screens.play import PlayScreen
from tauplay.tui.widgets.call_line import CallLine
from tauplay.tui.widgets.tool_form import ToolForm


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
        return f" · message the {self.prepared.domain.role_names.get('user', 'user')}, or call a tool"

    def _call(self, name: str, arguments: dict[str, Any]) -> bool:
        if not self.deliver(lambda seat: seat.call_tool(name, arguments), f"your call {name}"):
            return False
        self.query_one(CallLine).show_problems([])  # an old refusal no longer stands once a call went out
        box = self.query_one("#message", Input)  # the next move is most often a word to the user
        if self.maximized is not None:  # hidden behind the zoomed panel: it takes the keys when the zoom ends
            self._focus_before_zoom = box
        else:
            box.focus()
        return True

    def action_side_tab(self, n: int) -> None:
        super().action_side_tab(n)
        if n == 1:  # the tools: the list takes the keys (Down to a tool, Tab into its form), as ctrl+t does
            self.query_one("#tool-list").focus()
        elif n == 2:  # the policy: straight into its search box
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
            self.query_one(CallLine).input.give_back(event.line)  # keep what was typed

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

    def action_run_form(self) -> None:
        from tauplay.tui.widgets.tools_panel import ToolsPanel

        form = self.query_one(ToolsPanel).form
        if form is None:
            self.app.report("pick a tool first", severity="warning")  # type: ignore[attr-defined]
            return
        form.submit()
