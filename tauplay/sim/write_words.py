"""A write the agent will not make, in everyday words: the first clause of the tool's own description ("change the
checked bags of a reservation"), never its name ("update reservation baggages")."""

from __future__ import annotations

import re

from tauplay.core.grounding import words
from tauplay.core.tools import ToolSpec

_CLAUSE = re.compile(r"[.;:(]|,\s| and (?:charg|refund)|\s+-\s")


def everyday(spec: ToolSpec) -> str:
    """What the write does, lower case, as a verb phrase ("cancel a whole reservation"); the tool's name in words
    when it has no description."""
    text = (spec.description or "").strip()
    first = _CLAUSE.split(text, maxsplit=1)[0].strip()
    first = re.sub(r"^(?:ask|request|try) to\s+", "", first, flags=re.IGNORECASE)
    if len(first.split()) < 2:
        return words(spec.name)
    return first[0].lower() + first[1:]
