"""The runtime interceptor: a check between the agent and the tools that refuses a call before it runs when its
arguments fail the tool's schema or the domain's own look-ups, with an error the agent can act on.

Three checks, in order:
1. the schema (types, enums, required arguments, unknown arguments), as the environment checks it;
2. unknown ids: an argument named like the key of a table (`reservation_id`, `flight_number`, `order_id`...)
   whose value names no record of that table;
3. values not seen: an id-like argument (`*_id`, `*_ids`, `*_number`, a table key) whose value neither the user
   said nor a tool result returned in this session. An agent that states an id it was never given is guessing,
   even when the guess names a real record.

Values a tool call makes up for new records (a booking creates its own id) never pass through an argument, so
no check refuses a creation. The agent's own earlier arguments do not count as seen: a guessed id stays a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from tauplay.core.domain import ROW_NUMBER, Domain
from tauplay.core.injection import SessionView, leaves, path_text
from tauplay.core.schema import validate

REFUSED_BY = "interceptor"  # ToolResultData.refused_by of a call it refused
_ID_SUFFIXES = ("_id", "_ids", "_number", "_code")
MIN_CHECKED = 3  # shorter values (a count, "1A") are not identifiers worth checking


def _id_like(name: str) -> bool:
    return name.endswith(_ID_SUFFIXES)


@dataclass(frozen=True)
class Interceptor:
    """Checks each call of one domain's tools; `check` returns the refusal (the tool's error text) or None."""

    domain: Domain

    def key_tables(self) -> dict[str, list[str]]:
        """Argument name -> the tables keyed by it (only id-like keys: a device `name` is not an identifier)."""
        out: dict[str, list[str]] = {}
        for spec in self.domain.tables:
            if spec.key != ROW_NUMBER and _id_like(spec.key):
                out.setdefault(spec.key, []).append(spec.name)
        return out

    def check(self, name: str, arguments: dict[str, object], view: SessionView) -> str | None:
        spec = self.domain.tool_map.get(name)
        if spec is None:
            return (f"refused by the interceptor: there is no tool '{name}' (tools: "
                    f"{', '.join(self.domain.tool_map)})")
        problems = validate(arguments, spec.parameters)
        if problems:
            return (f"refused by the interceptor: {name} was called with invalid arguments: {'; '.join(problems)}. "
                    "Call it again with every required argument, each of its declared type and values.")
        tables = self.key_tables()
        for leaf in leaves(dict(arguments), spec.parameters):
            value, field = leaf.value, leaf.name
            if not isinstance(value, str) or len(value) < MIN_CHECKED:
                continue
            where = path_text(leaf.path)
            keyed = tables.get(field)
            if keyed and all(view.state.get(table, value) is None for table in keyed):
                return (f"refused by the interceptor: {where} '{value}' names no {keyed[0].rstrip('s')} on "
                        "record. Check the value with the user or look it up before calling again.")
            if (keyed or _id_like(field)) and not view.mentioned(value):
                return (f"refused by the interceptor: {where} '{value}' has not come up in this conversation "
                        "(the user did not say it and no tool result returned it). Ask the user or look it up "
                        "before using it.")
        return None
