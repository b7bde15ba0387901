"""Tracer: generate policy-valid, emotion-conditioned tasks from a domain's tool dependency graph.

Stage 1 is `tauplay.core.graph.ToolGraph`; this package holds stages 2 (sample), 3 (instruct),
4 (emotion) and 5 (verify), and the pipeline that runs them (`generate`).
"""

from tauplay.tracer.pipeline import Result, Settings, Tracer, generate

__all__ = ["Result", "Settings", "Tracer", "generate"]
