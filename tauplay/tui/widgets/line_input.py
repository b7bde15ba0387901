"""A one-line box whose Enter takes the text typed before it, in the order the keys came.

Textual's Input submits through a key binding, and a binding runs only once the Enter key has travelled up
through the widget's parents to the app; keys typed right after it (type-ahead, or one terminal read holding
"line, Enter, next line, Enter") reach the box first. The box then sent both lines as one, once per Enter. Here
Enter is handled by the box itself, in turn with the other keys: the text so far is taken and the box emptied at
once, and what follows starts the next line. A handler that cannot use the line puts it back (`give_back`)."""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class LineInput(Input):
    async def _on_key(self, event: events.Key) -> None:
        if event.key != "enter":
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        value = self.value
        validation = self.validate(value) if "submitted" in self.validate_on else None
        self.value = ""
        self.post_message(self.Submitted(self, value, validation))

    def give_back(self, line: str) -> None:
        """A taken line that could not be used goes back in front of anything typed since, the cursor at the
        end (nothing the person typed is lost)."""
        self.value = line + self.value
        self.cursor_position = len(self.value)
