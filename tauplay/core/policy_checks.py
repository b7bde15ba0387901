"""Policy checks beside the reward: the rules a session can break that its end state cannot show.

The reward stays the τ-bench one (the end state and the required outputs); these read the events only:

- `write_without_yes`: the agent ran a write and the user's last message before it was not a clear yes;
- `yes_to_other_action`: the user said yes, but to a proposal that named another action (the agent's message
  before that yes named neither this tool nor any of its key argument values, or named another write tool);
- `write_before_identified`: a write before the user was identified, where the domain's policy demands it
  (`Domain.identify_with`: the lookups that identify; `Domain.identity_argument`: or the user saying the id);
- `transfer_without_summary`: a hand-over whose summary is missing or a word or two;
- `checked_first`: a tool run before the lookup the domain's rules (`Domain.rules`) say must come first;
- each domain's own rules (`Domain.policy_rules()`), and with the start state its policy as code over the
  database (`Domain.action_rules()`: a write the policy forbids on the state it met).

Only the agent's calls that ran (the result is not an error) count: a failed call changed nothing, and the
fault suggestions already name it. Pure: events and domain in, violations out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tauplay.core.domain import Domain, DomainError, get_domain
from tauplay.core.events import Event, MessageData, TerminatedData, ToolCallData, ToolResultData
from tauplay.core.policy_rules import Violation
from tauplay.core.vocabulary import EventKind, Role

__all__ = ["GENERAL_RULES", "Violation", "check_policy", "is_clear_yes", "proposes", "session_violations"]

GENERAL_RULES = ("write_without_yes", "yes_to_other_action", "write_before_identified", "transfer_without_summary",
                 "checked_first")

_YES = re.compile(r"\b(yes|yeah|yep|yup|sure|ok|okay|go ahead|go on|go for it|please do|do it|do that|proceed|"
                  r"confirm|confirmed|correct|that'?s right|sounds good|that works|absolutely|of course|"
                  r"affirmative|agreed|alright|all right|fine|perfect)\b|^\W*y\W*$", re.IGNORECASE)
_NO = re.compile(r"^\W*(no|nope|nah|not|don'?t|do not|stop|wait|hold on|cancel that|never mind)\b|"
                 r"\b(no|don'?t|do not|not yet|never)\b\W*$", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_MIN_SUMMARY_WORDS = 3


def is_clear_yes(text: str) -> bool:
    """A message that agrees: an affirmative word, not opened (or closed) by a refusal."""
    return bool(_YES.search(text)) and not _NO.search(text)


def _words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def _values(value: Any) -> Iterator[str]:
    """The argument values a person would name: strings and numbers of three characters or more, nested too."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
    else:
        text = str(value).strip()
        if len(text) >= 3:
            yield text


def _names_tool(words: str, name: str) -> bool:
    return _words(name.replace("_", " ")) in words


def proposes(text: str, name: str, arguments: dict[str, Any], domain: Domain) -> bool:
    """Whether an agent's message proposed this call: it names the tool or one of its key argument values, and
    names no other write tool instead."""
    words = _words(text)
    named = _names_tool(words, name)
    if not named:
        others = [t.name for t in domain.write_tools if t.name != name and _names_tool(words, t.name)]
        if others:
            return False
    return named or any(_words(v) in words for v in _values(arguments))


def _agent_calls(events: Sequence[Event]) -> Iterator[tuple[Event, ToolCallData, bool]]:
    """The agent's own calls, each with whether it ran (its result is not an error)."""
    ok = {r.call_id: not r.error for e in events if e.kind == EventKind.TOOL_RESULT
          for r in [e.as_(ToolResultData)]}
    for e in events:
        if e.kind == EventKind.TOOL_CALL and e.role == Role.AGENT:
            call = e.as_(ToolCallData)
            if not call.by_user:
                yield e, call, ok.get(call.call_id, False)


def _last_message(events: Sequence[Event], before: int, role: Role) -> tuple[int, MessageData] | None:
    for i in range(before - 1, -1, -1):
        e = events[i]
        if e.kind == EventKind.MESSAGE and e.role == role:
            return i, e.as_(MessageData)
    return None


def _quote(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[:width - 1] + "…")


def _confirmations(events: Sequence[Event], domain: Domain) -> list[Violation]:
    if not domain.confirm_writes:
        return []
    out = []
    index = {e.seq: i for i, e in enumerate(events)}
    for event, call, ran in _agent_calls(events):
        spec = domain.tool_map.get(call.name)
        if not ran or spec is None or not spec.is_write:
            continue
        user = _last_message(events, index[event.seq], Role.USER)
        if user is None or not is_clear_yes(user[1].content):
            said = "nothing" if user is None else _quote(user[1].content)
            out.append(Violation("write_without_yes", f"{call.name} ran without a clear yes from the user "
                                 f"(their last message: {said})", event.turn, event.seq))
            continue
        agent = _last_message(events, user[0], Role.AGENT)
        if agent is None or not proposes(agent[1].content, call.name, call.arguments, domain):
            out.append(Violation("yes_to_other_action", f"{call.name} ran after a yes to a proposal that did not "
                                 "name it or its arguments" + (f" ({_quote(agent[1].content)})" if agent else ""),
                                 event.turn, event.seq))
    return out


def _identity_values(events: Sequence[Event], argument: str) -> set[str]:
    """Every value the session used or saw under the identity argument (in call arguments and tool outputs)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k == argument and isinstance(v, str) and len(v) >= 3:
                    found.add(v)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for e in events:
        if e.kind == EventKind.TOOL_CALL:
            walk(e.as_(ToolCallData).arguments)
        elif e.kind == EventKind.TOOL_RESULT:
            try:
                walk(json.loads(e.as_(ToolResultData).output))
            except (ValueError, TypeError):
                continue
    return found


def _identified_from(events: Sequence[Event], domain: Domain) -> int | None:
    """The seq of the event from which the user counts as identified (the user saying an identity value the
    session used or saw, or a lookup of `Domain.identify_with` that succeeded); None: not yet."""
    ids = _identity_values(events, domain.identity_argument) if domain.identity_argument else set()
    id_words = [_words(v) for v in ids]
    lookups = {e.seq for e, call, ran in _agent_calls(events) if ran and call.name in domain.identify_with}
    for e in events:
        if e.seq in lookups:
            return e.seq
        if e.kind == EventKind.MESSAGE and e.role == Role.USER and id_words:
            said = _words(e.as_(MessageData).content)
            if any(w in said for w in id_words):
                return e.seq
    return None


def is_identified(events: Sequence[Event], domain: Domain) -> bool:
    """Whether the user counts as identified by now, as `write_before_identified` reads it (always, in a
    domain whose policy asks for no identification)."""
    if not domain.identify_with and not domain.identity_argument:
        return True
    return _identified_from(events, domain) is not None


def _identification(events: Sequence[Event], domain: Domain) -> list[Violation]:
    if not domain.identify_with and not domain.identity_argument:
        return []
    start = _identified_from(events, domain)
    out = []
    for e, call, ran in _agent_calls(events):
        if start is not None and e.seq >= start:
            break
        spec = domain.tool_map.get(call.name)
        if ran and spec is not None and spec.is_write:
            out.append(Violation("write_before_identified", f"{call.name} ran before the user was identified "
                                 f"({_identify_how(domain)})", e.turn, e.seq))
    return out


def _identify_how(domain: Domain) -> str:
    ways = list(domain.identify_with)
    if domain.identity_argument:
        ways.append(f"the user giving their {domain.identity_argument.replace('_', ' ')}")
    return "by " + " or ".join(ways)


def _transfers(events: Sequence[Event], domain: Domain) -> list[Violation]:
    out = []
    for event, call, ran in _agent_calls(events):
        spec = domain.tool_map.get(call.name)
        if not ran or spec is None or not spec.terminal or "summary" not in spec.parameters.get("properties", {}):
            continue
        summary = call.arguments.get("summary")
        if not isinstance(summary, str) or len(_WORD.findall(summary)) < _MIN_SUMMARY_WORDS:
            out.append(Violation("transfer_without_summary", f"{call.name} handed the user over without a summary "
                                 f"of their issue (summary: {_quote(str(summary or ''))})", event.turn, event.seq))
    return out


def _checked_first(events: Sequence[Event], domain: Domain) -> list[Violation]:
    if not domain.rules:
        return []
    needs = {r.tool: r for r in domain.rules}
    done: set[str] = set()
    out = []
    for event, call, ran in _agent_calls(events):
        if not ran:
            continue
        rule = needs.get(call.name)
        if rule is not None and not done.intersection(rule.after):
            why = f": {rule.reason}" if rule.reason else ""
            out.append(Violation("checked_first", f"{call.name} ran before {' or '.join(rule.after)}{why}",
                                 event.turn, event.seq))
        done.add(call.name)
    return out


def _action_rules(events: Sequence[Event], domain: Domain, database: Any) -> list[Violation]:
    """The domain's policy as code (`Domain.action_rules`): each of the agent's writes that ran, judged on the
    state it met (the session's calls that ran, replayed from its start state)."""
    from tauplay.core.environment import Environment

    if not domain.action_rules():
        return []
    ok = {r.call_id: not r.error for e in events if e.kind == EventKind.TOOL_RESULT
          for r in [e.as_(ToolResultData)]}
    env = Environment(domain, database)
    out = []
    for e in events:
        if e.kind != EventKind.TOOL_CALL:
            continue
        call = e.as_(ToolCallData)
        if not ok.get(call.call_id, False):
            continue
        requestor = "user" if call.by_user else "assistant"
        spec = domain.tool_map.get(call.name)
        if requestor == "assistant" and spec is not None and spec.is_write:
            for rule, why in domain.forbids(call.name, call.arguments, env.state):
                out.append(Violation(rule.id, f"{call.name}: {why} (policy: {rule.sentence})", e.turn, e.seq))
        env.call(call.name, call.arguments, requestor)
    return out


def check_policy(events: Sequence[Event], domain: Domain, database: Any = None) -> list[Violation]:
    """Every violation in the session, in the order of the events they point at. With the session's start
    `database`, the domain's rules over the database too (`Domain.action_rules`)."""
    found: list[Violation] = []
    for check in (_confirmations, _identification, _transfers, _checked_first):
        found.extend(check(events, domain))
    if database is not None:
        found.extend(_action_rules(events, domain, database))
    for rule in domain.policy_rules():
        found.extend(rule.check(events, domain))
    return sorted(found, key=lambda v: (v.seq if v.seq is not None else -1, v.rule))


def session_violations(events: Sequence[Event], domain_name: str) -> list[Violation] | None:
    """A saved session's violations: those its `terminated` event recorded, else checked now. None when
    neither is possible (not ended here and the domain is unknown here). The end and review screens use this."""
    ended = next((e for e in reversed(events) if e.kind == EventKind.TERMINATED), None)
    if ended is not None:
        recorded = ended.as_(TerminatedData).violations
        if recorded is not None:
            return [Violation.from_json(v) for v in recorded if isinstance(v, dict)]
    try:
        domain = get_domain(domain_name)
    except DomainError:
        return None
    return check_policy(events, domain)
