"""At 80x24 the cards are taller than the side panel: the task card's last line is reached with a named key
(f8, play.cards_down), the message box keeping the focus; after the end the same key goes back to the top."""

from __future__ import annotations

from textual.widgets import Input

from tauplay.tui import keys
from tauplay.tui.widgets.cards import task_card
from tests.tui.conftest import make_app, your_turn


def last_line_shown(cards, card) -> bool:
    """The card's last line lies inside the stack's visible rows (card offsets are in the stack's content)."""
    top = cards.scroll_offset.y
    return card.virtual_region.bottom <= top + cards.scrollable_content_region.height


async def test_the_whole_task_card_is_reachable_at_80x24_by_its_key(db_path):
    assert keys.by_id("play.cards_down").key == "f8"
    app = make_app(db_path, role="user")
    async with app.run_test(size=(80, 24)) as pilot:
        play = app.screen
        await your_turn(pilot, play)
        await pilot.pause()
        cards, card = play.query_one("#cards"), play.query_one("#task-card")
        assert not last_line_shown(cards, card)  # cut at this size: the key is needed
        pressed = 0
        assert "task airline-starter-03-add-bag" in task_card(play.prepared.task).renderables[-1].plain  # last line
        while not last_line_shown(cards, card) and pressed < 5:  # a page at a time
            await pilot.press("f8")
            await pilot.pause()
            pressed += 1
        assert last_line_shown(cards, card) and pressed <= 2
        assert isinstance(app.focused, Input) and app.focused.id == "message"  # typing goes on where it was
        for _ in range(5):
            if cards.scroll_offset.y >= cards.max_scroll_y:
                break
            await pilot.press("f8")
            await pilot.pause()
        await pilot.press("f8")  # past the end: the top again
        await pilot.pause()
        assert cards.scroll_offset.y == 0
