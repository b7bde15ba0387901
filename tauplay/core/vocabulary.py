"""The one vocabulary of tauplay: event kinds and roles, how a session ends, its status, and the words of
annotation (fault categories, who erred, severities, task verdicts and reasons).

Every other module imports these; none spells them again. Each is a StrEnum (a member equals its text, so
what is saved and compared stays plain text) with a tuple of the values for membership checks and choices.
"""

from __future__ import annotations

from enum import StrEnum


def values(enum: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


class EventKind(StrEnum):
    SESSION_STARTED = "session_started"
    MESSAGE = "message"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    NOTICE = "notice"
    TERMINATED = "terminated"
    INJECTION = "injection"  # an argument of the next tool call was corrupted on purpose (an AgentProp study)


class NoticeAbout(StrEnum):
    """What a notice records, when a reader acts on it (NoticeData.about)."""

    REVEAL = "reveal"  # the agent's side was shown to the person playing the user
    INVALID_CALL = "invalid_call"  # a call a person tried that could not be made (unknown tool, type, syntax)
    ABSTAINED = "abstained"  # the abstaining interceptor withheld the agent's answer (tauplay.core.interceptor)


class Role(StrEnum):
    """Who an event comes from."""

    AGENT = "agent"
    USER = "user"
    ENV = "env"
    SYSTEM = "system"


class TerminationReason(StrEnum):
    USER_STOP = "user_stop"
    USER_ABANDONED = "user_abandoned"
    TRANSFER = "transfer"
    AGENT_STOP = "agent_stop"
    MAX_STEPS = "max_steps"
    TOO_MANY_ERRORS = "too_many_errors"
    LLM_ERROR = "llm_error"
    ERROR = "error"  # anything else went wrong inside the session (it is ended, never left running)


class SessionStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    ABANDONED = "abandoned"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


# The status a session ends in, by its termination reason (any other reason: finished).
STATUS_OF_REASON: dict[str, SessionStatus] = {
    TerminationReason.USER_ABANDONED: SessionStatus.ABANDONED,
    TerminationReason.LLM_ERROR: SessionStatus.FAILED,
    TerminationReason.ERROR: SessionStatus.FAILED,
}


def status_of(reason: str) -> SessionStatus:
    return STATUS_OF_REASON.get(reason, SessionStatus.FINISHED)


class SessionRole(StrEnum):
    """Which side a person played: the user, the agent, or nobody (a batch run)."""

    USER = "user"
    AGENT = "agent"
    BATCH = "batch"


class FaultCategory(StrEnum):
    """The fault taxonomy of the τ-Emotion-Bench paper, and after it RUSE's masked error (issue 18): the agent
    corrected a mistake of its own without telling the user. New categories go last: review's digit keys and
    old stores' labels keep their meaning."""

    MISSED_ACTION = "Missed Action"
    WRONG_ORDER = "Wrong Order"
    EXTRA_ACTION = "Extra Action"
    REPEATED_ACTION = "Repeated Action"
    MISREAD_INTENT = "Misread Intent"
    EARLY_STOP = "Early Stop"
    MASKED_ERROR = "Masked Error"


class WhoErred(StrEnum):
    AGENT = "agent"
    USER = "user"
    ENVIRONMENT = "environment"


class Severity(StrEnum):
    MINOR = "minor"
    MAJOR = "major"
    CRITICAL = "critical"


class AnnotationSource(StrEnum):
    """Who put a label there: a person; an automatic suggestion a person confirmed; or an automatic suggestion
    saved as it came, not confirmed by anyone yet (it counts as a label only once confirmed)."""

    HUMAN = "human"
    AUTO = "auto"
    SUGGESTED = "suggested"


class LabelState(StrEnum):
    """How a fault label stands for the person at the screen: a suggestion nobody has confirmed (saved or not),
    a label of theirs not saved yet, theirs saved, or another annotator's. The end and review screens say it in
    these words."""

    SUGGESTED = "suggested"
    NEW = "new"
    MINE = "mine"
    OTHER = "other"


class Verdict(StrEnum):
    """A person's verdict on a task in validation."""

    APPROVE = "approve"
    REJECT = "reject"
    NEEDS_EDIT = "needs_edit"


class InjectionKind(StrEnum):
    """How an injected argument is wrong (AgentProp-Bench's parameter errors)."""

    TYPE_MISMATCH = "type_mismatch"  # a value of the wrong JSON type
    OUT_OF_RANGE = "out_of_range"  # outside an enum, a numeric bound or the calendar
    MISSING_REQUIRED = "missing_required"  # a required argument removed
    SEMANTIC_WRONG = "semantic_wrong"  # right type and range, wrong meaning (another record of the same kind)


class Propagation(StrEnum):
    """What became of an injected error in a session (defined in tauplay.core.propagation)."""

    REJECTED = "rejected"
    RECOVERED = "recovered"
    PROPAGATED = "propagated"
    UNAFFECTED = "unaffected"


class JudgeKind(StrEnum):
    """Who answered "did the injected error propagate?": an automatic judge, or a person."""

    SUBSTRING = "substring"
    LLM = "llm"
    ENSEMBLE = "ensemble"
    HUMAN = "human"


class JudgeLabel(StrEnum):
    YES = "yes"  # the error propagated to a wrong end state or final answer
    NO = "no"


# Why a task is rejected or sent back in validation: (code as saved, label as shown).
REVIEW_REASONS: tuple[tuple[str, str], ...] = (
    ("ambiguous_instruction", "ambiguous instruction"), ("unreachable_goal", "unreachable goal"),
    ("wrong_gold_action", "wrong gold action"), ("policy_conflict", "policy conflict"),
    ("emotion_mismatch", "emotion mismatch"), ("other", "other"))

EVENT_KINDS = values(EventKind)
ROLES = values(Role)
TERMINATION_REASONS = values(TerminationReason)
STATUSES = values(SessionStatus)
SESSION_ROLES = values(SessionRole)
# The seats a person can take in the app (`tauplay --role`): a batch session is played by nobody.
PLAYED_ROLES = (SessionRole.USER.value, SessionRole.AGENT.value)
FAULT_CATEGORIES = values(FaultCategory)
# The categories alignment with the gold actions suggests (agreement against the suggestions is on these); an
# Early Stop is suggested from how a session ended, and Misread Intent needs a person.
AUTOMATIC_FAULTS = FAULT_CATEGORIES[:4]
WHO_ERRED = values(WhoErred)
SEVERITIES = values(Severity)
ANNOTATION_SOURCES = values(AnnotationSource)
VERDICTS = values(Verdict)
INJECTION_KINDS = values(InjectionKind)
PROPAGATION_CLASSES = values(Propagation)
JUDGE_KINDS = values(JudgeKind)
AUTOMATIC_JUDGES = JUDGE_KINDS[:3]
JUDGE_LABELS = values(JudgeLabel)
REVIEW_REASON_CODES = tuple(code for code, _ in REVIEW_REASONS)

# Emotion fidelity: what a person perceived in a user turn. A family of tauplay.core.emotions, or this word.
PERCEIVED_NONE = "none"

# Which sessions count as an error in the statistics: trials that did not succeed, whatever their reward.
ERROR_STATUSES = (SessionStatus.FAILED, SessionStatus.INTERRUPTED)

# What a simulated user writes to end a session: satisfied, or giving up on the agent.
STOP_TOKEN = "###STOP###"
UNSATISFIED_TOKEN = "###UNSATISFIED###"
