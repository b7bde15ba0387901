"""tauplay: play, annotate and validate emotion-conditioned tool-calling benchmarks in the terminal."""

__version__ = "0.1.0"
