"""Policy violations saved on a session's ending are shown beside the reward (end screen) and in the review
transcript; a session never checked says so rather than "none"."""

from __future__ import annotations

from rich.console import Console

from tauplay.core.events import Event, TerminatedData
from tauplay.core.vocabulary import Role
from tauplay.tui.widgets.review_log import transcript_lines
from tauplay.tui.widgets.violations import saved_violations, violation_lines

BROKEN = [{"rule": "write_without_yes", "detail": "cancel_reservation ran with no yes to it", "seq": 7, "turn": 3}]


def _plain(lines) -> str:
    console = Console(width=200, record=True, color_system=None)
    for line in lines:
        console.print(line)
    return console.export_text()


def _ending(violations):
    return Event.of(9, Role.SYSTEM, TerminatedData(reason="user_stop", reward={"reward": 1.0}, violations=violations))


def test_violations_are_listed_with_their_rule_turn_and_detail():
    text = _plain(violation_lines(BROKEN))
    assert "policy violations: 1" in text and "write_without_yes" in text and "turn 3" in text
    assert "no yes to it" in text
    assert "none" in _plain(violation_lines([])) and "not checked" in _plain(violation_lines(None))


def test_the_saved_ending_is_read_and_the_review_transcript_shows_it():
    assert saved_violations([_ending(BROKEN)]) == BROKEN
    assert saved_violations([]) is None
    text = _plain(transcript_lines([_ending(BROKEN)]))
    assert "write_without_yes" in text and "reward 1.0" in text
    assert "violations" not in _plain(transcript_lines([_ending(None)]))


async def test_the_end_screen_shows_a_write_made_with_no_yes(db_path):
    from tauplay.tui.capture import screen_text
    from tauplay.tui.screens.confirm import ConfirmScreen
    from tauplay.tui.screens.end import EndScreen
    from tests.tui.conftest import make_app, send, wait_until, your_turn

    app = make_app(db_path, role="agent")
    async with app.run_test(size=(100, 30)) as pilot:
        play = app.screen
        await send(pilot, play, 'update_reservation_baggages("S6Q6LB", 3, 1, "credit_card_5773697")',
                   box="#call-input")  # nobody asked the user
        await your_turn(pilot, play)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, EndScreen), what="the end screen")
        await pilot.pause()
        text = screen_text(app)
        rules = [v["rule"] for v in app.screen.outcome.violations]
        assert "write_without_yes" in rules and f"policy violations: {len(rules)}" in text
        assert "write_without_yes" in text and "Reward 1" in text  # the reward stays the end state's
