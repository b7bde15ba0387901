"""What the app holds back while it starts: cyclic garbage collection.

`tauplay play` turns the collector off before it builds anything; start-up allocates many objects that all stay
alive (widgets, styles, the start state), and the collector's passes over them cost a noticeable part of the
time to the person's first turn. The first screen the person acts on turns it back on (`startup_done`), and the
app does at the latest GC_HELD_AT_MOST_S after it mounts.

Turning it back on freezes what start-up built first (`gc.freeze`): those objects live as long as the app, and
the collector's first pass over all of them (tens of thousands, allocated while it was off) would otherwise run
right after the first turn is painted, holding up the person's first keys. A cycle start-up left behind is not
collected then; the ones made afterwards are, as usual.
"""

from __future__ import annotations

import gc

GC_HELD_AT_MOST_S = 5.0


def startup_done() -> None:
    """The first screen the person acts on is shown: the collector runs again (idempotent)."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
