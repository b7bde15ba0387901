"""What the validate screen (tauplay.tui.screens.validate) draws for the task on screen: the task (instruction,
emotion, known info, gold actions, verify's findings, the automatic checks), beside it the gold path on the
dependency graph and the database change, and under it the reasons, the note and the keys. A part of that screen.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.text import Text

from tauplay.core.text import visible
from tauplay.tui.screens.validate_state import REASONS, ValidateState
from tauplay.tui.widgets.changes import changes_group


class ValidateView(ValidateState):
    """The validate screen's drawing (a part of ValidateScreen)."""

    def _task_view(self) -> Group:
        task = self.shown_task()
        facts = self.facts[self.index]
        draft = self.draft
        parts: list[Any] = [Text(visible(f"Task {task.id}"), style="bold underline")]
        title = Text("\nInstruction", style="bold")
        if draft.instruction is not None:
            title.append("  (edited)", style="yellow")
        parts += [title, Text(visible(task.instruction))]
        title = Text("\nEmotion", style="bold")
        if draft.emotion is not None or draft.emotion_cleared:
            title.append("  (edited)", style="yellow")
        parts.append(title)
        if task.emotion is not None:
            e = task.emotion
            parts.append(Text(visible(f"{e.family} / {e.leaf}  ({e.intensity}; politeness {e.politeness}, "
                                      f"urgency {e.urgency}, trust {e.trust})")))
            if e.trigger:
                parts.append(Text(visible(f"trigger: {e.trigger}")))
        elif "emotion_error" in task.provenance:
            published = task.provenance.get("published_emotion", {})
            parts.append(Text(visible(f"published: {published.get('emotion_family')} / {published.get('emotion_leaf')}"),
                              style="red"))
            parts.append(Text(visible(str(task.provenance["emotion_error"])), style="red"))
        else:
            parts.append(Text("none", style="dim"))
        parts.append(Text("\nKnown info", style="bold"))
        if task.known_info:
            parts += [Text(visible(f"• {k}: {v}")) for k, v in task.known_info.items()]
        else:
            parts.append(Text("none", style="dim"))
        if task.outputs:
            parts.append(Text("\nRequired outputs", style="bold"))
            parts += [Text(visible(f"• {o}")) for o in task.outputs]
        parts.append(Text("\nGold actions", style="bold"))
        for i, a in enumerate(task.actions, start=1):
            line = Text(f"{i}. ")
            line.append(visible(a.name), style="bold")
            line.append(visible(" " + json.dumps(a.kwargs, ensure_ascii=False)))
            parts.append(line)
        if not task.actions:
            parts.append(Text("none", style="dim"))
        parts += self._audit_view()
        parts.append(Text("\nAutomatic checks", style="bold"))
        for c in facts.checks:
            mark, style = {True: ("✓", "green"), False: ("✗", "bold red"), None: ("·", "dim")}[c.ok]
            line = Text(f"{mark} ", style=style)
            line.append(f"{c.name}: ", style="bold")
            line.append(visible(c.detail))
            parts.append(line)
        return Group(*parts)

    def _audit_view(self) -> list[Any]:
        """verify's findings for the task as loaded (the same audit as `tauplay verify`)."""
        head = Text("\nAudit (tauplay verify)", style="bold")
        if not self.audits:
            return [head, Text("running…", style="dim")]
        audit = self.audits[self.index]
        if self.draft.edited:
            head.append("  of the task as loaded, before your edits", style="dim")
        if not audit.findings:
            return [head, Text("✓ no finding", style="green")]
        parts: list[Any] = [head]
        for f in audit.findings:
            line = Text("✗ " if f.severity == "error" else "! ", style="bold red" if f.severity == "error" else "yellow")
            where = f" (action {f.action + 1}{', ' + f.path if f.path else ''})" if f.action is not None else ""
            line.append(visible(f"{f.check}{where}: "), style="bold")
            line.append(visible(f.message))
            parts.append(line)
        key = self.app.key_for  # type: ignore[attr-defined]
        if not audit.valid:
            parts.append(Text(f"{key('validate.reject_findings')} rejects it for these findings", style="dim"))
        return parts

    def _side_view(self) -> Group:
        from tauplay.tui.widgets.graph_panel import render_graph

        facts = self.facts[self.index]
        gold = [a.name for a in self.task.actions]
        parts: list[Any] = [Text("Gold path on the dependency graph", style="bold underline")]
        parts.append(render_graph(self.graph, gold, gold, narrow=True))
        parts.append(Text("\nDatabase change made by the gold actions", style="bold underline"))
        parts.append(changes_group(facts.changes))
        return Group(*parts)

    def _bar_view(self) -> Text:
        draft = self.draft
        bar = Text()
        bar.append("reasons: ", style="bold")
        for i, (code, label) in enumerate(REASONS, start=1):
            on = code in draft.reasons
            bar.append(f"[{i}{'x' if on else ' '}] {label}  ", style="bold yellow" if on else "")
        bar.append("\nnote: ", style="bold")
        bar.append(visible(draft.note or "—"))
        if self.task.id in self.unsaved_ids:
            bar.append("  · changed, not saved yet: a verdict saves it (kept while you move on)", style="yellow")
        review = self.reviews.get(self.task.id)
        if review is not None:
            bar.append(f"\nsaved: {review.verdict}", style="bold")
            if review.reasons:
                bar.append(f" ({', '.join(review.reasons)})")
            if review.note:
                bar.append(visible(f" note: {review.note}"))
        # The keys the footer leaves out to fit 80 columns.
        key = self.app.key_for  # type: ignore[attr-defined]
        bar.append(f"\n{key('validate.undo')} undo · {key('validate.note')} note · {key('validate.instruction')} edit "
                   f"instruction · {key('validate.emotion')} edit emotion · {key('validate.play')} play it · "
                   f"{key('validate.reject_findings')} reject for the audit's findings", style="dim")
        return bar
