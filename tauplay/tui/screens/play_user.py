"""Playing the user (tauplay.tui.screens.play): the task and emotion cards, the agent's side hidden as a customer's
is until revealed, the device's call line on a dual-control task, and ending satisfied or giving up."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, Static

from tauplay.core.behavior import card_line
from tauplay.core.events import Event, NoticeData
from tauplay.core.vocabulary import NoticeAbout
from tauplay.tui import keys
from tauplay.tui.screens.play import PlayScreen
from tauplay.tui.widgets.call_line import CallLine
from tauplay.tui.widgets.cards import Card, CardStack, device_card, emotion_card, task_card
from tauplay.tui.widgets.transcript import Transcript

HIDDEN_NOTE = ("A customer sees only the agent's messages: its tool calls, their results, the graph and the "
               "database diff are hidden. {key} reveals them (for annotators; the reveal is recorded in the "
               "session).")


class PlayUserScreen(PlayScreen):
    SCOPES = (keys.Scope.PLAY, keys.Scope.PLAY_USER)
    BINDINGS = keys.bindings(keys.Scope.PLAY_USER, keys.Scope.PLAY, labels={"play.tab1": "Task", "play.tab2": "Agent",  # type: ignore[assignment]
                                                          "play.graph": "Graph", "play.diff": "Diff"})
    ROLE = "user"
    TAB_TITLES = ("Task", "Agent")
    LATER_TABS = (2, 3, 4)  # the Agent tab too: composed after the first turn, from the events so far
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
        note = Static(Text(self.hidden_note(), style="dim"), id="agent-hidden", classes="hidden-note")
        note.display = not self.revealed
        yield note
        side = Transcript(me=self.ROLE, names=self.prepared.domain.role_names, id="agent-side")  # every event, results whole: shown once revealed
        side.display = self.revealed
        for event in self.events:  # the conversation so far
            side.add_event(event)
        yield side

    def on_session_event(self, event: Event) -> None:
        super().on_session_event(event)
        for side in self.query("#agent-side").results(Transcript):
            side.add_event(event)
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
        for note in self.query("#agent-hidden"):  # the tabs not composed yet are composed revealed
            note.display = False
        for side in self.query("#agent-side"):
            side.display = True
        for panel in self.graph_panels():
            panel.conceal(None)
        if (diff := self.diff_panel()) is not None:
            diff.conceal(None)
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
