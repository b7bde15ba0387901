"""The runtime interceptor, two ways. `precall` (tauplay's own, `Interceptor`): a check between the agent and the
tools that refuses a call before it runs when its arguments fail the tool's schema or the domain's own look-ups,
with an error the agent can act on. `abstain` (AgentProp-Bench's, `abstain_check`, at the end of this module): the
calls run, and an answer that follows an error is withheld after the fact.

The pre-call checks, in order:
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


# -- after the fact: AgentProp-Bench's abstaining interceptor ------------------------------------------------
# The public interceptor (interceptor/interceptor.py, its tuned setting) lets every call run and, when the agent
# answers, withholds the answer if one of three layers fires: L1 the tool response it answers from is an error;
# L2 its reasoning holds at least two uncertainty words; L3 the answer claims success although that response was
# an error. tauplay reads "the tool response" as the last tool result before the answer and "the reasoning" as
# the text the agent sent with its tool calls since the user last spoke (an agent that sends none has no L2).

PRECALL = "precall"
ABSTAIN = "abstain"
INTERCEPTOR_MODES = (PRECALL, ABSTAIN)
ABSTENTION_TEXT = "I cannot reliably answer this: a check on the tools' results found a problem."
UNCERTAINTY_WORDS = ("error", "invalid", "unknown", "missing", "incorrect", "wrong", "cannot")
SUCCESS_WORDS = ("successfully", "completed", "done", "confirmed")
L1_FLAGS = 1  # the tuned thresholds the public sweep chose
L2_WORDS = 2


@dataclass(frozen=True)
class Abstention:
    layer: str  # L1 | L2 | L3
    reason: str


def abstain_check(answer: str, reasoning: str, last_result_error: bool, last_result: str = "") -> Abstention | None:
    """Whether to withhold this answer (the first layer that fires), or None to let it through."""
    if int(last_result_error) >= L1_FLAGS:
        return Abstention("L1", f"the last tool result is an error ({last_result[:80]})")
    lowered = reasoning.lower()
    hits = [w for w in UNCERTAINTY_WORDS if w in lowered]
    if len(hits) >= L2_WORDS:
        return Abstention("L2", f"the reasoning says {', '.join(hits)}")
    said = answer.lower()
    claims = [w for w in SUCCESS_WORDS if w in said]
    if claims and last_result_error:  # unreachable with L1 on, kept so the layers read as the public ones
        return Abstention("L3", f"the answer claims success ({claims[0]}) despite a tool error")
    return None
