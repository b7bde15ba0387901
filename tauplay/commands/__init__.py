"""One module per sub-command: `add_arguments(parser)` and `run(args) -> exit code`.

The CLI imports only the module of the command being run, so `tauplay verify` never pays for
textual or litellm.
"""
