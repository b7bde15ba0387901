"""Participants and the orchestrator; litellm is imported lazily (inside tauplay.llm.complete).

events          the event stream (what the store saves and the TUI draws)
participants    the agent / user interfaces, Conversation, make_agent / make_user
llm_participants LLMAgent, LLMUser          oracle  OracleAgent
scripted_user   ScriptedUser                human   HumanAgent, HumanUser (fed by the TUI)
orchestrator    Orchestrator, Limits, Outcome
session         run_session, resume_session, StoreRecorder (the store is passed in)
batch           run_batch, summarize (pass^k per domain and emotion family)
"""
