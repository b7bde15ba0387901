"""Participants (LLM, oracle, scripted, human) and the orchestrator. litellm is imported lazily."""
