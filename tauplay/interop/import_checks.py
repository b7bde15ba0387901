"""What an import must refuse before writing anything: results whose tool calls the domain does not have
(tau2-bench's telecom is not tauplay's telecom), and a results file that names another tau2-bench domain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tauplay.core.events import ToolCallData, of_kind
from tauplay.core.labels import SessionBundle
from tauplay.interop.errors import InteropError


def check_tools(bundles: Sequence[SessionBundle], domain: Any, source: str, item: str = "session") -> None:
    """InteropError naming the first session whose calls are not the domain's (agent tools, and user tools
    for the user's own calls)."""
    for i, bundle in enumerate(bundles):
        for _, call in of_kind(bundle.events, ToolCallData):
            name, by_user = call.name, call.by_user
            tools = domain.user_tool_map if by_user else domain.tool_map
            if name not in tools:
                side = "user tools" if by_user else "tools"
                hint = _hint(domain.name, name)
                raise InteropError(f"{source}: {item} {i} calls '{name}', which is not among the {side} of domain "
                                   f"'{domain.name}'{hint}; nothing imported")


def _hint(domain_name: str, tool: str) -> str:
    from tauplay.core.domain import available_domains

    other = f"tau2-{domain_name}"
    if not domain_name.startswith("tau2-") and other in available_domains():
        return f" (tau2-bench results of {domain_name}? use --domain {other})"
    return ""


def check_tau2_domain(data: Any, domain_name: str, source: str) -> None:
    """A tau2-bench results file names its domain: it must be the one imported into (`airline` for
    `tau2-airline` or tauplay's own `airline`)."""
    info = data.get("info") if isinstance(data, dict) else None
    env = info.get("environment_info") if isinstance(info, dict) else None
    named = env.get("domain_name") if isinstance(env, dict) else None
    if isinstance(named, str) and named and named != domain_name.removeprefix("tau2-"):
        raise InteropError(f"{source}: the results are of tau2-bench's '{named}' domain, not '{domain_name}'; "
                           "nothing imported")
