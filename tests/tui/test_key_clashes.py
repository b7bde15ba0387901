"""No two bindings that are live on one screen share a key: a key bound twice silently does only one thing."""

from __future__ import annotations

import pytest

from tauplay.tui import keys
from tauplay.tui.screens.confirm import ConfirmScreen
from tauplay.tui.screens.end import EndScreen
from tauplay.tui.screens.help import HelpScreen
from tauplay.tui.screens.home import HomeScreen
from tauplay.tui.screens.perception import PerceptionScreen
from tauplay.tui.screens.play_agent import PlayAgentScreen
from tauplay.tui.screens.play_user import PlayUserScreen
from tauplay.tui.screens.review_list import ReviewListScreen
from tauplay.tui.screens.review_session import SessionReviewScreen
from tauplay.tui.screens.stats import StatsScreen
from tauplay.tui.screens.validate import ValidateScreen

SCREENS = [PerceptionScreen, ReviewListScreen, SessionReviewScreen, EndScreen, HelpScreen, HomeScreen,
           PlayAgentScreen, PlayUserScreen, StatsScreen, ValidateScreen, ConfirmScreen]


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: s.__name__)
def test_each_key_does_one_thing_on_a_screen(screen: type) -> None:
    live = [k for k in keys.KEYS if k.scope == "app" or k.scope in screen.SCOPES]  # type: ignore[attr-defined]
    seen: dict[str, str] = {}
    clashes = []
    for k in live:
        if k.key in seen:
            clashes.append(f"{k.key}: {seen[k.key]} and {k.id}")
        seen[k.key] = k.id
    assert clashes == []
