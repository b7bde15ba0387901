"""Text from models, tools, files and people as it may be shown on a terminal: every control character made
visible, so that nothing a model or a file says can move the cursor, recolour, retitle or blank the screen.

`visible` is for display only; what is saved stays byte for byte what was received.
"""

from __future__ import annotations

import math
import re
from typing import Any

ESCAPE_SHOWN = "␛"  # ESC, the start of every CSI/OSC sequence, as one visible cell

# C0 controls but tab and newline, DEL, C1 controls, the bidirectional overrides that reorder what is shown,
# the invisible ones that hide a difference (zero-width space, direction marks, word joiner, BOM), and lone
# surrogates (a terminal cannot be sent them: printing one raises UnicodeEncodeError).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
                      "\ud800-\udfff]")


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\x1b":
        return ESCAPE_SHOWN
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with control characters replaced by visible escapes (ESC as ␛, the others as \\xNN or \\uNNNN);
    newlines and tabs kept, a CR LF pair shown as a newline. Text without controls is returned as it is."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_shown, text.replace("\r\n", "\n"))


def visible_any(value: object) -> str:
    """Any value as visible text (str() first)."""
    return visible(value if isinstance(value, str) else str(value))


def tidy_numbers(value: Any) -> Any:
    """A value for display with float arithmetic's noise taken off: 59.340000000000146 shows as 59.34 (a number
    within a millionth of a whole cent is that amount); anything else is left as it is."""
    if isinstance(value, float) and math.isfinite(value) and abs(value - round(value, 2)) < 1e-6:
        return round(value, 2)
    if isinstance(value, dict):
        return {k: tidy_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [tidy_numbers(v) for v in value]
    return value
