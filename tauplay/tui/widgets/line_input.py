"""A one-line box whose Enter and editing keys act in the order the keys came.

Textual's Input submits and edits (Backspace, ctrl+u, Home, ...) through key bindings, and a binding runs only
once its key has travelled up through the widget's parents to the app; the letters typed right after it
(type-ahead, or one terminal read holding "line, Enter, next line, Enter") reach the box first. The box then sent
both lines as one, once per Enter, and a ctrl+u meant to clear the old line cleared the new one too. Here those
keys are handled by the box itself, in turn with the letters: Enter takes the text so far and empties the box at
once, so what follows starts the next line. A handler that cannot use the line puts it back (`give_back`)."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

# The box's own keys whose place among the typed letters matters (what they delete, where the cursor goes).
# Keys the box only passes on (up, down, page keys: scrolling) keep the usual route to the parents' bindings.
IN_ORDER = frozenset({"enter", "backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "alt+backspace",
                      "ctrl+backspace", "super+backspace", "left", "right", "home", "end", "ctrl+a", "ctrl+e",
                      "ctrl+left", "ctrl+right"})


class LineInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            value = self.value
            validation = self.validate(value) if "submitted" in self.validate_on else None
            self.value = ""
            self.post_message(self.Submitted(self, value, validation))
            return
        if event.key in IN_ORDER:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)

    def give_back(self, line: str) -> None:
        """A taken line that could not be used goes back in front of anything typed since, the cursor at the
        end (nothing the person typed is lost)."""
        self.value = line + self.value
        self.cursor_position = len(self.value)
