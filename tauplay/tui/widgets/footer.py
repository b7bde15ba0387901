"""The key footer, rebuilt only when what it shows changes.

Textual's footer rebuilds all its keys (new widgets, styles, layout) on every change of focus and every
reactive that has bindings, even when the keys it shows stay the same; on the play screen that happens several
times between the session starting and the person's first turn being painted. This one keeps what it last
showed and rebuilds only when that differs.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    _shown: tuple[Any, ...] | None = None

    def shown_now(self) -> tuple[Any, ...]:
        """Everything the footer's keys are built from (Footer.compose): each binding shown, with its key as
        displayed, its words, whether it is enabled and its tooltip; the command palette's; the style."""
        app = self.app
        keys = tuple((binding.key, app.get_key_display(binding), binding.description, binding.action,
                      binding.group, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in self.screen.active_bindings.values() if binding.show)
        return keys, self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE

    async def recompose(self) -> None:
        """Rebuild the keys, unless they would be the very ones shown now (several changes of focus or
        bindings each ask for a rebuild, and all those asked for run)."""
        if self._shown is not None and self.is_attached and self.shown_now() == self._shown:
            return
        await super().recompose()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The screen's bindings are known once the footer is composed in it: its keys are built then, and painted
        # with the rest of the screen. (Textual's footer waits for the first change of bindings, then builds them
        # after the next paint: a second layout and paint of the whole screen before the person can act.) A later
        # change that shows other keys rebuilds them, as before.
        self.set_reactive(Footer._bindings_ready, True)

    def compose(self) -> Any:
        if self._bindings_ready:
            self._shown = self.shown_now()
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey):
                # Built with the class its `compact` (bound to the footer's) gives it once mounted: setting it
                # then restyles each key again, one by one.
                widget.add_class("-compact", update=False)
            yield widget
