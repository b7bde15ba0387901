"""RUSE-style user behaviour (issue 18): the typed behaviour and its flag, each dimension changing what the scripted
user does against the default on the same task, the LLM user's prompt over HTTP to the local server, the behaviour
saved with the session and grouped by `tauplay stats`, and bad input as one line with exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.behavior import (
    Behavior,
    BehaviorError,
    card_line,
    instructions,
    load_persona,
    parse_behavior,
    resolve_behavior,
)
from tauplay.core.domain import get_domain
from tauplay.core.events import Event
from tauplay.core.tasks import load_tasks
from tauplay.core.vocabulary import UNSATISFIED_TOKEN
from tauplay.sim.behavior import wrong_detail
from tauplay.sim.oracle import OracleAgent
from tauplay.sim.participants import AgentAction, Conversation, EndSession, Say
from tauplay.sim.scripted_user import ScriptedUser, disclosure_parts
from tauplay.sim.session import SessionSetup, run_session
from tauplay.sim.withheld import without_ids
from tauplay.store import SessionStore
from tests.support.store import add_annotation

DOMAIN = get_domain("airline")
TASKS = load_tasks(DOMAIN.task_set_path(), "airline")
BOOK = TASKS.by_id("airline-starter-01-book-direct")  # three facts to tell, one booking to confirm
PARTS = disclosure_parts(BOOK)


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(str(tmp_path / "sessions.db"))
    yield s
    s.close()


class TalkingAgent:
    """An agent that only talks: its lines in turn, then ends the session."""

    kind = "test"

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def act(self, conversation: Conversation) -> AgentAction:
        said = len(conversation.said("agent")) - 1  # the greeting is the orchestrator's
        return Say(self.lines[said]) if said < len(self.lines) else EndSession("script over")


def user_messages(events: list[Event]) -> list[tuple[str | None, str]]:
    return [(e.data.get("intent"), e.data["content"]) for e in events if e.kind == "message" and e.role == "user"]


async def talk(store: SessionStore, behavior: str | None, lines: list[str]) -> list[tuple[str | None, str]]:
    user = ScriptedUser(parse_behavior(behavior) if behavior else None)
    _, out = await run_session(store, SessionSetup(DOMAIN, BOOK, DOMAIN.database()), TalkingAgent(lines), user)
    return user_messages(out.events)


async def with_oracle(store: SessionStore, behavior: str | None) -> tuple[float, list[tuple[str | None, str]]]:
    user = ScriptedUser(parse_behavior(behavior) if behavior else None)
    _, out = await run_session(store, SessionSetup(DOMAIN, BOOK, DOMAIN.database()), OracleAgent(), user)
    return out.value, user_messages(out.events)


def told(messages: list[tuple[str | None, str]]) -> list[int]:
    """Which of the task's facts each message carried, in order (a message may carry none)."""
    return [i for _, text in messages for i, part in enumerate(PARTS) if part in text or without_ids(part) in text]


# -- the typed behaviour ------------------------------------------------------------------------------------

def test_parse_defaults_levels_and_errors(tmp_path: Path) -> None:
    assert Behavior() == Behavior("comprehensive", "high", "cooperative", "precise")
    b = parse_behavior("disclosure=incremental, patience=low,cooperation=adversarial,precision=error_prone")
    assert b.to_json() == {"disclosure": "incremental", "patience": "low", "cooperation": "adversarial",
                           "precision": "error_prone"}
    assert parse_behavior("patience=low") == Behavior(patience="low")
    assert parse_behavior("minimal") == Behavior(disclosure="minimal")  # a level names its dimension
    assert parse_behavior(b.label) == b and Behavior.from_json(b.to_json()) == b
    for bad, words in (("disclosure=chatty", "disclosure must be one of comprehensive|incremental|minimal"),
                       ("mood=low", "unknown behaviour dimension 'mood'"),
                       ("patience=low,patience=high", "patience is given twice"),
                       ("", "empty behaviour"), ("sometimes", "is not dimension=level")):
        with pytest.raises(BehaviorError, match=re.escape(words)):
            parse_behavior(bad)
    persona = tmp_path / "p.toml"
    persona.write_text('name = "Ann"\ndisclosure = "minimal"\n[behavior]\nprecision = "error_prone"\n')
    assert load_persona(persona) == Behavior(disclosure="minimal", precision="error_prone")
    as_json = tmp_path / "p.json"
    as_json.write_text(json.dumps({"behavior": {"patience": "low", "cooperation": "adversarial"}}))
    assert load_persona(as_json) == Behavior(patience="low", cooperation="adversarial")
    # the flag wins over the file, dimension by dimension
    assert resolve_behavior("patience=high", as_json) == Behavior(patience="high", cooperation="adversarial")
    assert resolve_behavior(None, None) is None
    as_json.write_text(json.dumps({"disclosure": "some"}))
    with pytest.raises(BehaviorError, match="p.json: disclosure must be one of"):
        load_persona(as_json)
    # every level has its own words for a model and for a person
    for level in ("incremental", "minimal"):
        assert instructions(Behavior(disclosure=level)) != instructions(Behavior())
        assert card_line(Behavior(disclosure=level)) != card_line(Behavior())


def test_wrong_detail_changes_one_digit_and_keeps_the_rest() -> None:
    wrong, bad, right = wrong_detail("My user id is mia_li_3668, reservation 4WQ150.")  # type: ignore[misc]
    assert (bad, right) == ("mia_li_3669", "mia_li_3668")
    assert wrong == "My user id is mia_li_3669, reservation 4WQ150."
    assert wrong_detail("No digits here.") is None


# -- each dimension changes the scripted user, against the default on the same task --------------------------

DEFAULT = "disclosure=comprehensive"  # every dimension at its default level, given explicitly
SILENT = ["I see.", "Right.", "Noted.", "Okay then.", "Is there anything else?", "Anything more?", "Go on?", "And?"]


async def test_without_a_behaviour_the_scripted_user_keeps_its_own_way(store: SessionStore) -> None:
    legacy = await talk(store, None, SILENT)
    assert told(legacy)[:3] == [0, 1, 2] and [i for i, _ in legacy[:3]] == ["disclose"] * 3  # one a message
    assert (await talk(store, DEFAULT, SILENT))[0] != legacy[0]


async def test_disclosure_incremental_tells_one_fact_per_turn_and_only_when_asked(store: SessionStore) -> None:
    default = await talk(store, DEFAULT, SILENT)
    incremental = await talk(store, "disclosure=incremental", SILENT)
    # comprehensive: the whole task in the first message
    assert told(default[:1]) == [0, 1, 2] and "disclose" not in [i for i, _ in default[1:]]
    # incremental: only the opening's fact until the agent asks; then one fact per question
    assert told(incremental[:4]) == [0]
    assert [intent for intent, _ in incremental[1:4]] == ["hold"] * 3
    assert told(incremental) == [0, 1, 2]
    asked_at = [i for i, (_, text) in enumerate(incremental) if any(p in text for p in PARTS[1:])]
    assert asked_at == [5, 6]  # the replies to "Is there anything else?" and "Anything more?"


async def test_disclosure_minimal_waits_to_be_asked_for_each_fact(store: SessionStore) -> None:
    lines = ["I see.", "How would you like to pay? Which card?", "Any bags to check?",
             "Which flight do you want, and when?", "Thanks."]
    default = await talk(store, DEFAULT, lines)
    minimal = await talk(store, "disclosure=minimal", lines)
    assert told(default[:1]) == [0, 1, 2]
    assert minimal[0][0] == "request" and told(minimal[:1]) == []  # the opening asks for help, nothing more
    assert minimal[1][0] == "hold"  # "I see." asked nothing
    # each question gets the fact it is about, in the agent's order, not the task's
    assert [told([m]) for m in minimal[2:5]] == [[2], [1], [0]]
    assert "4787" in minimal[2][1] and "bags" in minimal[3][1]


async def test_patience_low_is_short_threatens_and_leaves_sooner(store: SessionStore) -> None:
    silent = ["Hm."] * 12
    default = await talk(store, "patience=high", silent)
    low = await talk(store, "patience=low", silent)
    assert default[-1][0] == low[-1][0] == "abandon" and low[-1][1].endswith(UNSATISFIED_TOKEN)
    assert len(low) < len(default)
    assert "threaten" in [i for i, _ in low] and "threaten" not in [i for i, _ in default]
    assert low[0][1].startswith("I'm a little nervous") and default[0][1].startswith("Hi there!")  # no greeting
    assert told(low[:1]) == told(default[:1]) == [0, 1, 2]  # the same facts, in fewer words
    assert len(low[0][1]) < len(default[0][1])
    assert sum(len(t) for _, t in low[1:]) / (len(low) - 1) < sum(len(t) for _, t in default[1:]) / (len(default) - 1)


async def test_cooperation_adversarial_disputes_wavers_and_still_wants_its_goal(store: SessionStore) -> None:
    default_reward, default = await with_oracle(store, "cooperation=cooperative")
    reward, adversarial = await with_oracle(store, "cooperation=adversarial")
    assert [i for i, _ in default] == ["disclose", "confirm", "stop"]
    assert [i for i, _ in adversarial] == ["disclose", "dispute", "stop"]
    assert default_reward == reward == 1.0  # the goal is the task's, whatever the dispute
    lines = ["Okay.", "I can't do that, it is against our policy.", "Noted.", "Bye?"]
    wavering = await talk(store, "cooperation=adversarial", lines)
    intents = [i for i, _ in wavering]
    assert "test" in intents and "waver" in intents
    assert not {"test", "waver"} & {i for i, _ in await talk(store, "cooperation=cooperative", lines)}


async def test_precision_error_prone_gives_a_wrong_detail_and_corrects_it(store: SessionStore) -> None:
    _, default = await with_oracle(store, "precision=precise")
    _, prone = await with_oracle(store, "precision=error_prone")
    # The opening keeps its ids back (the user id among them), so the wrong detail is one it does say.
    assert "yusuf_lopez_1876" not in default[0][1] and "yusuf_lopez_1876" not in prone[0][1]
    intent, fix = prone[1]
    m = re.fullmatch(r"Sorry, I got that wrong: it is (\S+), not (\S+)\.", fix)
    assert intent == "fix_detail" and m is not None, prone[1]
    right, wrong = m.groups()
    assert right != wrong and right in default[0][1] and wrong in prone[0][1] and wrong not in default[0][1]
    assert not any(i == "fix_detail" for i, _ in default)


async def test_every_level_still_solves_the_starter_tasks_with_the_oracle(store: SessionStore) -> None:
    for label in ("disclosure=incremental", "disclosure=minimal", "cooperation=adversarial", "precision=error_prone",
                  "disclosure=minimal,patience=low,cooperation=adversarial,precision=error_prone"):
        for task in TASKS.tasks:
            _, out = await run_session(store, SessionSetup(DOMAIN, task, DOMAIN.database()), OracleAgent(),
                                       ScriptedUser(parse_behavior(label)))
            assert out.value == 1.0, (label, task.id)


# -- the LLM user's prompt, the saved behaviour, stats --------------------------------------------------------

def test_llm_user_prompt_carries_the_behaviour_over_http(llm_server, tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    llm_server.queue("user").text("I need to add a bag.").text("Yes.").text("###STOP###")
    code = main(["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--user", "llm",
                 "--user-model", "openai/user", "--user-api-base", llm_server.url, "--db", db, "--json",
                 "--behavior", "disclosure=minimal,cooperation=adversarial"])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads(out)
    wanted = {"disclosure": "minimal", "patience": "high", "cooperation": "adversarial", "precision": "precise"}
    assert report["user"]["behavior"] == wanted
    system = llm_server.requests_for("user")[0]["messages"][0]
    assert system["role"] == "system"
    assert instructions(Behavior(**wanted)) in system["content"]
    assert "never volunteer anything" in system["content"] and "Dispute the agent's first proposal" in system["content"]
    with SessionStore(db) as store:
        (record,) = store.list_sessions(batch_id=report["batch_id"])
        assert record.user["behavior"] == wanted
        started = store.events(record.id)[0]
        assert started.kind == "session_started"
        assert started.data["user"]["behavior"] == wanted
        assert instructions(Behavior(**wanted)) in started.data["prompts"]["user"]["system"]
    # no behaviour given: no behaviour text in the prompt
    llm_server.queue("user").text("###STOP###")
    assert main(["run", "--domain", "airline", "--task-ids", "airline-starter-03-add-bag", "--user", "llm",
                 "--user-model", "openai/user", "--user-api-base", llm_server.url, "--db", db, "--json"]) == 0
    capsys.readouterr()
    assert "Disclosure:" not in llm_server.requests_for("user")[-1]["messages"][0]["content"]


def stats_json(capsys, *argv: str) -> dict[str, Any]:
    assert main(["stats", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_behaviour_is_saved_and_stats_group_by_it_and_by_each_dimension(tmp_path: Path, capsys) -> None:
    db = str(tmp_path / "s.db")
    tasks = ["--task-ids", "airline-starter-01-book-direct", "airline-starter-08-round-trip-two"]
    for flags in ([], ["--behavior", "disclosure=incremental"], ["--behavior", "disclosure=minimal,patience=low"],
                  ["--behavior", "disclosure=comprehensive"]):
        assert main(["run", "--domain", "airline", *tasks, "--db", db, "--json", *flags]) == 0
        capsys.readouterr()
    groups = stats_json(capsys, "--db", db, "--by", "behavior")["groups"]
    by_key = {g["key"]["behavior"]: g["sessions"] for g in groups}
    assert by_key == {"none": 2, "disclosure=incremental": 2, "disclosure=minimal,patience=low": 2, "default": 2}
    disclosure = {g["key"]["disclosure"]: g["sessions"] for g in stats_json(capsys, "--db", db, "--by",
                                                                              "disclosure")["groups"]}
    assert disclosure == {"none": 2, "incremental": 2, "minimal": 2, "comprehensive": 2}
    both = {(g["key"]["disclosure"], g["key"]["patience"]): g["sessions"]
            for g in stats_json(capsys, "--db", db, "--by", "disclosure", "patience")["groups"]}
    assert both == {("none", "none"): 2, ("incremental", "high"): 2, ("minimal", "low"): 2,
                    ("comprehensive", "high"): 2}
    # a group opens the review list on the same sessions
    from tauplay.analysis.keys import review_filters
    from tauplay.tui.review_filters import find_sessions, parse_filters

    with SessionStore(db) as store:
        for key, count in (({"disclosure": "minimal"}, 2), ({"behavior": "disclosure=incremental"}, 2),
                           ({"behavior": "default"}, 2), ({"patience": "none"}, 2)):
            filters = parse_filters(" ".join(f"{k}={v}" for k, v in review_filters(key).items()))
            assert len(find_sessions(store, filters, "me", blind=False)) == count, key
    # the table output too
    assert main(["stats", "--db", db, "--by", "precision"]) == 0
    assert "precise" in capsys.readouterr().out


def test_resume_keeps_the_behaviour(tmp_path: Path) -> None:
    from tauplay.sim.kinds import make_user

    user = make_user({"kind": "scripted", "behavior": {"disclosure": "minimal"}})
    assert user.describe() == {"kind": "scripted", "behavior": Behavior(disclosure="minimal").to_json()}
    assert make_user({"kind": "scripted"}).describe() == {"kind": "scripted"}  # old sessions: nothing added


@pytest.mark.parametrize("argv, message", [
    (["run", "--domain", "airline", "--behavior", "disclosure=chatty"],
     "tauplay run: --behavior: disclosure must be one of comprehensive|incremental|minimal, got 'chatty'"),
    (["run", "--domain", "airline", "--behavior", "mood=low"],
     "tauplay run: --behavior: unknown behaviour dimension 'mood' (dimensions: disclosure, patience, cooperation, "
     "precision)"),
    (["--role", "agent", "--behavior", "patience=never"],
     "tauplay play: --behavior: patience must be one of high|low, got 'never'"),
    (["run", "--domain", "airline", "--persona", "/nonexistent/p.json"], "cannot read the persona file"),
])
def test_bad_behaviour_is_one_line_and_exit_2(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "s.db"
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not db.exists()  # nothing was started


# -- the masked error label (issue 18 item 5) ---------------------------------------------------------------

def test_masked_error_is_a_label_everywhere_labels_go(tmp_path: Path, capsys) -> None:
    from tauplay.core.labels import FaultLabel
    from tauplay.core.vocabulary import FAULT_CATEGORIES, FaultCategory
    from tauplay.tui.review_filters import parse_filters

    masked = FaultCategory.MASKED_ERROR.value
    assert masked == "Masked Error" and FAULT_CATEGORIES[-1] == masked  # after the paper's six: old keys keep
    assert FAULT_CATEGORIES[:6] == ("Missed Action", "Wrong Order", "Extra Action", "Repeated Action",
                                    "Misread Intent", "Early Stop")
    assert FaultLabel(masked, "agent", "major", "ann").problems() == []
    db = str(tmp_path / "s.db")
    assert main(["run", "--domain", "airline", "--task-ids", "airline-starter-01-book-direct", "--db", db,
                 "--json", "--behavior", "precision=error_prone"]) == 0
    capsys.readouterr()
    with SessionStore(db) as store:
        (record,) = store.list_sessions()
        add_annotation(store, record.id, category=masked, who_erred="agent", severity="major", annotator="ann",
                             note="fixed the user's id without saying so")
        add_annotation(store, record.id, category="Early Stop", who_erred="user", severity="minor", annotator="bo")
    (group,) = stats_json(capsys, "--db", db, "--by", "precision")["groups"]
    assert group["key"] == {"precision": "error_prone"}
    assert group["faults"]["Masked Error"] == 1 and group["faults"]["Early Stop"] == 1
    assert stats_json(capsys, "--db", db, "--label", "MaskedError")["groups"][0]["sessions"] == 1
    assert parse_filters("label=masked_error") == {"label": masked}
    # export and import keep it
    out = tmp_path / "sessions.json"
    assert main(["export", "sessions", "--out", str(out), "--db", db]) == 0
    capsys.readouterr()
    other = str(tmp_path / "other.db")
    assert main(["import", "sessions", str(out), "--db", other]) == 0
    capsys.readouterr()
    with SessionStore(other) as store:
        (record,) = store.list_sessions()
        assert sorted(a.category for a in store.annotations(record.id)) == ["Early Stop", masked]
        assert record.user["behavior"]["precision"] == "error_prone"
    assert main(["stats", "--db", other, "--by", "behavior"]) == 0
    out = capsys.readouterr().out
    assert "Masked" in out and "precision=error_prone" in out


def test_play_entry_gives_the_behaviour_to_whoever_plays_the_user(tmp_path: Path) -> None:
    import argparse

    from tauplay.commands.play import add_arguments, config_from
    from tauplay.tui.session import prepare

    persona = tmp_path / "ann.json"
    persona.write_text(json.dumps({"name": "Ann", "patience": "low", "disclosure": "incremental"}))
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for role, kind in (("agent", "scripted"), ("user", "human")):
        args = parser.parse_args(["--role", role, "--task", "airline-starter-01-book-direct", "--persona",
                                  str(persona), "--behavior", "cooperation=adversarial"])
        prepared = prepare(config_from(args))  # type: ignore[arg-type]
        assert prepared.user["kind"] == kind
        assert prepared.behavior == Behavior("incremental", "low", "adversarial", "precise")
        assert prepared.user["behavior"] == prepared.behavior.to_json()


async def test_a_fork_and_the_play_entry_keep_the_users_behaviour(tmp_path: Path) -> None:
    from tauplay.commands.play import _resume_config
    from tauplay.sim.fork import fork_session
    from tauplay.tui.session import PlayConfig, prepare

    db = str(tmp_path / "s.db")
    behavior = Behavior(disclosure="incremental", precision="error_prone")
    with SessionStore(db) as store:
        parent, out = await run_session(store, SessionSetup(DOMAIN, BOOK, DOMAIN.database()), OracleAgent(),
                                        ScriptedUser(behavior))
        assert out.value == 1.0
        for role, kind in (("batch", "scripted"), ("user", "human"), ("agent", "scripted")):
            child = fork_session(store, parent, 1, role=role, annotator="ann")
            record = store.get_session(child)
            assert record.user["kind"] == kind and record.user["behavior"] == behavior.to_json(), role
            if role == "user":  # a person continues it in the app: the card has the same behaviour
                config = _resume_config(PlayConfig(db_url=db, behavior="patience=low"), child)
                assert prepare(config).behavior == behavior  # type: ignore[arg-type]
