"""What a model participant is told: the agent's system prompt and tools, the simulated user's instructions, a
narrator's rules (a domain whose other side narrates a scene: escape rooms).

The LLM participants build their prompts here, save them with the session (`session_started.prompts`), and
`export training` writes the saved ones, so a training example holds exactly what the model saw.
"""

from __future__ import annotations

from typing import Any

from tauplay.core.behavior import Behavior
from tauplay.core.behavior import instructions as behavior_instructions
from tauplay.core.domain import Domain
from tauplay.core.emotions import EmotionCondition, user_instructions
from tauplay.core.tasks import Task
from tauplay.core.vocabulary import STOP_TOKEN, UNSATISFIED_TOKEN


def agent_system_prompt(domain: Domain) -> str:
    preamble = domain.agent_preamble or (
        f"You are a customer service agent for {domain.title}. Help the user within the policy below, "
        "using the tools to look things up and make changes. Make at most one change at a time.")
    return preamble + "\n\n" + domain.policy


def agent_tools(domain: Domain) -> list[dict[str, Any]]:
    """The tool schemas the agent's model is given (OpenAI function form, derived from each tool's signature)."""
    return [t.openai_schema() for t in domain.tools]


def agent_prompt(domain: Domain) -> dict[str, Any]:
    """The agent's whole prompt, as saved with a session: {"system": text, "tools": [schemas]}."""
    return {"system": agent_system_prompt(domain), "tools": agent_tools(domain)}


USER_RULES = f"""You are a customer talking to a customer service agent. Play this person; never act as the agent.

How to talk:
- Write one short message at a time, the way a person types in a chat.
- Reveal what you want step by step: only what the current step needs, not the whole task at once.
- Use only facts from your task. If the agent asks for something your task does not say, say you do not know
  or do not have it; never invent ids, dates or numbers.
- Put the task in your own words rather than repeating it.
- When what you asked for is done and you are content, send {STOP_TOKEN} on its own.
- If the agent ignores how you feel, goes in circles, keeps asking what you already gave, is evasive or
  dismissive, and you lose patience before the task is done, send {UNSATISFIED_TOKEN} on its own.
  Do not send it once the task is done and you are content."""


USER_TOOLS_RULES = """You can act on your own device with the tools you are given: do what the agent asks you to do
on it with a tool call, and tell the agent what the tools show. Never make up what a tool would show."""


def user_system_prompt(task: Task, emotion: EmotionCondition | None, device_tools: bool = False,
                       behavior: Behavior | None = None) -> str:
    parts = [USER_RULES, "Your task:\n" + task.goal]
    if task.tau2 is not None and task.tau2.behaviour():  # tau2-bench's instructions on how to act
        parts.append("How to act:\n" + task.tau2.behaviour())
    if device_tools:  # dual control: the user has tools of its own
        parts.append(USER_TOOLS_RULES)
    if emotion is not None:
        parts.append("How you feel and behave:\n" + user_instructions(emotion))
    elif task.emotion_text:
        parts.append("How you feel and behave:\n" + task.emotion_text)
    if behavior is not None:  # RUSE-style dimensions, beside the emotion (they win where both speak)
        parts.append("How you act in this conversation (this overrides the rules above where they differ):\n"
                     + behavior_instructions(behavior))
    return "\n\n".join(parts)


NARRATOR_RULES = """You are the narrator of a game the player plays with tools you do not see. You set the scene and
answer the player in a line or two; you are not a player and you do not play for them.

How to narrate:
- Your first message sets the scene from the premise below, in your own words, and names what the player needs
  to begin (the id of the place, exactly as written). Keep it to a few sentences.
- Reveal nothing the premise does not say: no objects, hidden places, codes, clues, numbers or answers. You do
  not know what is hidden, so never guess it, hint at it or confirm a guess.
- When the player speaks to you, answer briefly and in the scene's voice, and remind them that everything they
  need is found with their tools.
- Never say the game is over and never write control words such as """ + STOP_TOKEN + """: the game decides when it
  ends and tells the player itself."""


def narrator_system_prompt(premise: str) -> str:
    """What a model narrating a scene is told: the rules, and the premise (what the player may know at the
    start; nothing hidden is given to the model, so it cannot give it away)."""
    return NARRATOR_RULES + "\n\nThe premise:\n" + premise
