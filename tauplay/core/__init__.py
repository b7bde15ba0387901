"""The core: domain contract, environment, diff and hash, dependency graph, evaluation, tasks, emotions.

Never imports textual, litellm or the store (tests/test_import_hygiene.py holds it to that).
"""
