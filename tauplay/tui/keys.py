"""Every key binding of the app in one table: id, default key, action, description, where it applies.

The screens build their `BINDINGS` from this table, the help screen and `docs/keys.md` list it, and a
user keymap (TOML: binding id = key) overrides the keys by id through Textual's keymap support.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from textual.binding import Binding

from tauplay.core.emotions import FAMILIES, INTENSITY
from tauplay.core.vocabulary import FAULT_CATEGORIES, INJECTION_KINDS, REVIEW_REASONS


class Scope(StrEnum):
    """Where a binding applies: the app everywhere, or the screens whose SCOPES name it. The values are the
    strings the help screen and docs/keys.md group by (a StrEnum, so they compare and print as those strings)."""

    APP = "app"
    HOME = "home"
    PLAY = "play"
    PLAY_USER = "play-user"
    PLAY_AGENT = "play-agent"
    PLAY_INJECT = "play-inject"
    END = "end"
    HELP = "help"
    VALIDATE = "validate"
    REVIEW_LIST = "review-list"
    REVIEW_SESSION = "review-session"
    REVIEW_PERCEIVE = "review-perceive"
    QUEUE = "queue"
    STATS = "stats"
    CONFIRM = "confirm"
    EDIT = "edit"


@dataclass(frozen=True)
class Key:
    """One key of the app: its id, default key, action and description."""
    id: str
    key: str
    action: str
    description: str
    scope: Scope
    show: bool = True
    priority: bool = True  # most keys must work while a text box has focus
    detail: str = ""  # a longer explanation for the help screen and docs/keys.md

    @property
    def explained(self) -> str:
        return f"{self.description}: {self.detail}" if self.detail else self.description


KEYS: tuple[Key, ...] = (
    Key("app.help", "f1", "app.help", "Help", Scope.APP),
    Key("app.palette", "ctrl+p", "app.command_palette", "Commands", Scope.APP, show=False),
    Key("app.quit", "ctrl+q", "app.quit", "Quit", Scope.APP, detail="asks first when labels, a verdict or edits are not saved"),
    Key("app.stats", "f6", "app.stats", "Statistics", Scope.APP, show=False,
        detail="the store's sessions in groups: rewards, pass^k, violations, faults, with terminal plots"),
    Key("home.start", "ctrl+s", "start", "Start", Scope.HOME),
    Key("home.resume", "ctrl+r", "resume", "Resume selected", Scope.HOME, detail="continue the unfinished session selected in the list"),
    Key("home.refresh", "f5", "refresh_sessions", "Refresh sessions", Scope.HOME, show=False),
    Key("play.tab1", "f2", "side_tab(1)", "Task / Tools tab", Scope.PLAY, detail="the emotion and task cards (user) or the tools and their forms (agent: the tool list takes the keys; Down to a tool, Tab into its form)"),
    Key("play.tab2", "f3", "side_tab(2)", "Agent's side / Policy tab", Scope.PLAY,
        detail="the agent's tool calls and results, once revealed (user), or the policy with its search box focused "
        "(agent)"),
    Key("play.graph", "f4", "side_tab(3)", "Graph tab", Scope.PLAY, show=False, detail="the tool dependency graph"),
    Key("play.diff", "f5", "side_tab(4)", "Diff tab", Scope.PLAY, show=False, detail="what the writes changed in the database"),
    Key("play.chat", "escape", "focus_chat", "Message box", Scope.PLAY, show=False, priority=False, detail="back to the message box"),
    Key("play.zoom", "f7", "zoom_side", "Zoom panel", Scope.PLAY, show=False, detail="the side panel fills the screen (again, or escape, to restore)"),
    Key("play.gold", "ctrl+o", "toggle_gold", "Gold path", Scope.PLAY, show=False, detail="overlay the gold path on the graph (while playing: validation mode only)"),
    Key("play.satisfied", "ctrl+s", "satisfied", "Satisfied", Scope.PLAY_USER, detail="end the conversation satisfied (sends ###STOP###, after any text in the box)"),
    Key("play.give_up", "ctrl+g", "give_up", "Give up", Scope.PLAY_USER, detail="give up on the agent (sends ###UNSATISFIED###; reward -1)"),
    Key("play.reveal", "f9", "reveal", "Reveal agent's side", Scope.PLAY_USER, show=False,
        detail="for annotators: show the agent's tool calls, their results, the graph and the diff, which a customer "
        "never sees (recorded in the session as a reveal notice)"),
    Key("play.cards_down", "f8", "scroll_side", "Cards page down", Scope.PLAY_USER, show=False,
        detail="a page down in the side panel shown (the task card is taller than the panel at 80x24; after its "
               "end, back to the top), the message box keeping the keys"),
    Key("play.device", "ctrl+l", "focus_call_line", "Device", Scope.PLAY_USER,
        detail="on a dual-control task: the call line of the user's own device (toggle_airplane_mode(), ...)"),
    Key("play.expand", "f10", "expand_results", "Full tool results", Scope.PLAY_USER, show=False,
        detail="once revealed: tool results in full in the transcript, or cut again"),
    Key("play.end", "ctrl+s", "end_session", "End", Scope.PLAY_AGENT, detail="end the session as the agent (asks first)"),
    Key("tools.line", "ctrl+l", "focus_call_line", "Call line", Scope.PLAY_AGENT, detail="type a call: name(arg=value, ...) or JSON"),
    Key("tools.pick", "ctrl+t", "pick_tool", "Pick a tool", Scope.PLAY_AGENT, show=False),
    Key("tools.run", "ctrl+r", "run_form", "Run form", Scope.PLAY_AGENT, detail="run the tool form shown in the Tools tab"),
    Key("end.save", "ctrl+s", "save", "Save", Scope.END, detail="save the labels and the verdict to the store"),
    Key("end.transcript", "f2", "side_tab('end-transcript')", "Transcript tab", Scope.END, show=False),
    Key("end.graph", "f4", "side_tab('end-graph')", "Graph tab", Scope.END, show=False,
        detail="the tool dependency graph (f4, as while playing)"),
    Key("end.diff", "f5", "side_tab('end-diff')", "Diff tab", Scope.END, show=False,
        detail="what the writes changed in the database (f5, as while playing)"),
    Key("end.reveal", "ctrl+d", "reveal", "Distance", Scope.END, detail="records that differ from the gold end state"),
    Key("end.gold", "ctrl+o", "toggle_gold", "Gold path", Scope.END, show=False),
    Key("end.home", "ctrl+n", Scope.HOME, "New session", Scope.END, detail="back to the home screen"),
    Key("end.fork", "ctrl+f", "fork", "Fork at turn", Scope.END, show=False,
        detail="a new session made of this one's events before the turn chosen in the label form's turn list, "
        "opened to play on from there (tauplay fork)"),
    Key("help.close", "escape", "dismiss", "Close help", Scope.HELP, priority=False),
    # tauplay validate
    Key("validate.approve", "a", "verdict('approve')", "Approve", Scope.VALIDATE, priority=False),
    Key("validate.reject", "x", "verdict('reject')", "Reject", Scope.VALIDATE, priority=False, detail="needs a reason"),
    Key("validate.reject_findings", "r", "reject_from_findings", "Reject (audit)", Scope.VALIDATE, show=False,
        priority=False,
        detail="reject for the audit's error findings: their reasons and a note naming them, saved as your verdict"),
    Key("validate.needs_edit", "e", "verdict('needs_edit')", "Needs edit", Scope.VALIDATE, priority=False, detail="needs a reason"),
    Key("validate.next", "n", "move(1)", "Next", Scope.VALIDATE, priority=False),
    Key("validate.previous", "p", "move(-1)", "Previous", Scope.VALIDATE, priority=False),
    Key("validate.undo", "u", "undo", "Undo", Scope.VALIDATE, show=False, priority=False, detail="take back the last verdict"),
    Key("validate.note", "o", "edit_note", "Note", Scope.VALIDATE, show=False, priority=False),
    Key("validate.instruction", "i", "edit_instruction", "Edit instruction", Scope.VALIDATE, show=False, priority=False),
    Key("validate.emotion", "m", "edit_emotion", "Edit emotion", Scope.VALIDATE, show=False, priority=False),
    Key("validate.play", "g", Scope.PLAY, "Play this task", Scope.VALIDATE, show=False, priority=False, detail="as the agent; back to the queue at the end"),
    *(Key(f"validate.reason.{code}", str(i), f"toggle_reason({i})", f"Reason: {label}", Scope.VALIDATE, show=False,
          priority=False) for i, (code, label) in enumerate(REVIEW_REASONS, start=1)),
    # tauplay review
    Key("review.filter", "f", "focus_filter", "Filter", Scope.REVIEW_LIST, priority=False, detail="key=value words, e.g. domain=airline reward=0"),
    Key("review.refresh", "f5", "refresh", "Refresh", Scope.REVIEW_LIST),
    Key("review.confirm", "c", Scope.CONFIRM, "Confirm label", Scope.REVIEW_SESSION, priority=False),
    Key("review.who", "w", "cycle('who')", "Who erred", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.severity", "v", "cycle('severity')", "Severity", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.add", "a", "add", "New label", Scope.REVIEW_SESSION, priority=False),
    Key("review.turn_down", "[", "shift_turn(-1)", "Turn -1", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.turn_up", "]", "shift_turn(1)", "Turn +1", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.whole", "s", "whole_session", "Whole session", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.note", "o", "note", "Note", Scope.REVIEW_SESSION, priority=False),
    Key("review.no_fault", "n", "no_fault", "Reviewed, no fault", Scope.REVIEW_SESSION, priority=False,
        detail="mark the session reviewed by you with no fault found (again: take the mark back); saving a label "
        "marks it reviewed too"),
    Key("review.delete", "x", "delete", "Delete / dismiss", Scope.REVIEW_SESSION, show=False, priority=False),
    Key("review.propagation", "p", "propagation", "Propagated?", Scope.REVIEW_SESSION, show=False, priority=False,
        detail="on an injected session: your answer to 'did the injected error propagate?', yes, then no, then "
        "none (saved as your judgment; the judges' answers stay hidden unless review --show-judges)"),
    Key("review.expand", "t", "expand_results", "Full tool results", Scope.REVIEW_SESSION, show=False, priority=False,
        detail="tool results in full in the transcript, or cut again"),
    Key("review.back", "escape", "back", "Back to the list", Scope.REVIEW_SESSION, priority=False),
    Key("review.fork", "ctrl+f", "fork", "Fork at turn", Scope.REVIEW_SESSION, show=False,
        detail="a new session made of this one's events before the selected label's turn (a adds a label, [ ] "
        "moves its turn), saved to play on with tauplay --session ID (tauplay fork)"),
    *(Key(f"review.category.{i}", str(i), f"category({i})", f"Category: {c}", Scope.REVIEW_SESSION, show=False,
          priority=False) for i, c in enumerate(FAULT_CATEGORIES, start=1)),
    Key("review.domain_category", "d", "domain_category", "Domain's category", Scope.REVIEW_SESSION, show=False,
        priority=False, detail="a fault category of the session's domain's own (escape rooms: Lost State, Ignored "
        "Clue, Dropped Intermediate Result, Wrong Final Answer), one after the other"),
    Key("review.perceive", "e", "perceive", "Perceived emotion", Scope.REVIEW_SESSION, show=False, priority=False,
        detail="mark the emotion you perceive in each user turn (the session's condition stays hidden)"),
    # perceived emotion (emotion fidelity), from a reviewed session
    *(Key(f"perceive.family.{i}", str(i), f"perceive({i})", f"Perceived: {family}", Scope.REVIEW_PERCEIVE,
          show=i == 1, priority=False) for i, family in enumerate(FAMILIES, start=1)),
    Key("perceive.none", "0", "perceive(0)", "Perceived: no emotion", Scope.REVIEW_PERCEIVE, priority=False),
    *(Key(f"perceive.intensity.{word}", key, f"intensity('{word}')", f"Intensity: {word}", Scope.REVIEW_PERCEIVE,
          show=word == "moderate", priority=False) for word, key in zip(INTENSITY, "moi", strict=True)),
    Key("perceive.clear", "x", "clear", "Clear mark", Scope.REVIEW_PERCEIVE, show=False, priority=False),
    Key("perceive.back", "escape", "back", "Back to the session", Scope.REVIEW_PERCEIVE, priority=False),
    # working from a shared queue (review / validate --queue)
    Key("queue.open", "enter", "open_item", "Open / next item", Scope.QUEUE, priority=False,
        detail="your unfinished item again, or the next one nobody holds"),
    Key("queue.skip", "s", "skip", "Give back, take next", Scope.QUEUE, priority=False,
        detail="return the unfinished item to the queue undone and take the next one"),
    Key("queue.refresh", "f5", "refresh", "Refresh", Scope.QUEUE),
    # the statistics screen
    Key("stats.by", "b", "focus_by", "Group by", Scope.STATS, priority=False,
        detail="dimension words: domain model simulator emotion leaf difficulty behavior disclosure patience "
        "cooperation precision annotator"),
    Key("stats.refresh", "f5", "refresh", "Refresh", Scope.STATS),
    Key("stats.review", "r", "review_group", "Review group", Scope.STATS, priority=False,
        detail="open the review list filtered on the selected group (Enter on a row does the same)"),
    Key("stats.back", "escape", "back", "Back", Scope.STATS, priority=False),
    # a yes / no question (ending a session, quitting with unsaved work)
    Key("confirm.yes", "y", "answer(True)", "Yes", Scope.CONFIRM),
    Key("confirm.no", "n", "answer(False)", "No", Scope.CONFIRM),
    Key("confirm.cancel", "escape", "answer(False)", "No (escape)", Scope.CONFIRM, show=False),
    # text editor pop-up (validate, review)
    Key("edit.save", "ctrl+s", "save", "Save", Scope.EDIT),
    Key("edit.cancel", "escape", "cancel", "Cancel", Scope.EDIT),
    # playing the agent in an AgentProp study
    Key("play.inject", "f8", "mark_injection", "Corrupt next call", Scope.PLAY_INJECT, show=False,
        detail=f"cycle the kind of error put into your next tool call before it runs ({', '.join(INJECTION_KINDS)}, "
        "none); you see its result as a model would"),
)

SCOPE_TITLES: dict[Scope, str] = {
    Scope.APP: "Everywhere", Scope.HOME: "Home", Scope.PLAY: "Playing (both roles)", Scope.PLAY_USER: "Playing the user",
    Scope.PLAY_AGENT: "Playing the agent", Scope.END: "End of session", Scope.HELP: "Help",
    Scope.VALIDATE: "Validating tasks (tauplay validate)", Scope.REVIEW_LIST: "Reviewing: the session list",
    Scope.REVIEW_SESSION: "Reviewing: one session", Scope.REVIEW_PERCEIVE: "Reviewing: perceived emotion",
    Scope.QUEUE: "Working from a shared queue (review / validate --queue)", Scope.STATS: "Statistics",
    Scope.EDIT: "Editing a text (validate, review)", Scope.CONFIRM: "A yes / no question",
    Scope.PLAY_INJECT: "Playing the agent: injection"}


def bindings(*scopes: Scope, labels: dict[str, str] | None = None) -> list[Binding]:
    """Textual bindings for the given scopes, in that order, each with its id (so a keymap can move it).
    `labels` gives a screen's own short description for a shared binding (the first side tab is "Task" for
    the user and "Tools" for the agent)."""
    labels = labels or {}
    return [Binding(k.key, k.action, labels.get(k.id, k.description), show=k.show, priority=k.priority, id=k.id)
            for scope in scopes for k in KEYS if k.scope == scope]


def by_id(binding_id: str) -> Key:
    for k in KEYS:
        if k.id == binding_id:
            return k
    raise KeyError(binding_id)


class KeymapError(ValueError):
    """A keymap file that cannot be used; the message names the file."""


def keymap_path() -> Path:
    if os.environ.get("TAUPLAY_KEYMAP"):
        return Path(os.environ["TAUPLAY_KEYMAP"]).expanduser()
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "tauplay" / "keymap.toml"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(binding id -> key, warnings) from a TOML file; ({}, []) when there is none.

    The file holds `id = "key"` lines, at the top level or under a `[keys]` table, e.g.
    `"play.satisfied" = "ctrl+y"`. Unknown ids are reported, not fatal.
    """
    path = path or keymap_path()
    if not path.exists():
        return {}, []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise KeymapError(f"{path}: {e}") from None
    if not text.strip():  # an empty file remaps nothing (and the TOML reader is not loaded for it)
        return {}, []
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise KeymapError(f"{path}: {e}") from None
    table = data.get("keys", data)
    if not isinstance(table, dict):
        raise KeymapError(f"{path}: [keys] must be a table of binding id = \"key\"")
    known = {k.id for k in KEYS}
    keymap: dict[str, str] = {}
    warnings: list[str] = []
    for binding_id, key in table.items():
        if not isinstance(key, str) or not key.strip():
            warnings.append(f"{path}: {binding_id}: the key must be a non-empty string")
        elif binding_id not in known:
            warnings.append(f"{path}: unknown binding id '{binding_id}'")
        else:
            keymap[binding_id] = key.strip()
    return keymap, warnings
