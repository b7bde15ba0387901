"""The paper's emotion conditions (issue 24, item 2): each domain declares its families and sub-families with
τ-Emotion-Bench Table 2's counts where the paper gives them, generation draws only within them, and `run` and
`stats --by emotion` group the same published sessions the same way (one function, `emotion_group`)."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tauplay.cli import main
from tauplay.core.domain import get_domain
from tauplay.core.emotions import (
    OUR_PICK,
    PUBLISHED_PAIRS,
    EmotionCondition,
    EmotionError,
    EmotionSet,
    emotion_group,
)
from tauplay.core.tasks import load_tasks
from tauplay.tracer import Settings, generate
from tests.conftest import taubench_dir

# τ-Emotion-Bench Table 2: (families, sub-families) per domain -- the anchor the domains' sets must meet.
TABLE_2 = {"airline": (5, 16), "retail": (5, 17), "telecom": (5, 13), "telehealth": (3, 8), "school": (4, 10),
           "basketball": (1, 2)}
PICKED = ("restaurant", "travel", "movie", "bank")  # not in the paper: tauplay's own sets, and they say so


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.mark.parametrize(("name", "counts"), TABLE_2.items())
def test_each_paper_domain_declares_table_2s_families_and_sub_families(name: str, counts: tuple[int, int]) -> None:
    emotions = get_domain(name).emotions
    assert emotions is not None and emotions.counts == counts and emotions.paper == counts
    assert "Table 2" in emotions.source


@pytest.mark.parametrize("name", PICKED)
def test_the_other_domains_say_their_set_is_tauplays_pick(name: str) -> None:
    emotions = get_domain(name).emotions
    assert emotions is not None and emotions.source == OUR_PICK and emotions.paper is None


def test_a_set_that_misses_its_paper_counts_or_the_taxonomy_is_refused() -> None:
    with pytest.raises(EmotionError, match="Table 2 gives 1 / 3"):
        EmotionSet({"anger": ("frustration", "annoyance")}, "test", paper=(1, 3))
    with pytest.raises(EmotionError, match="not in the anger family"):
        EmotionSet({"anger": ("relief",)}, "test")


@pytest.mark.parametrize("name", ["telehealth", "basketball", "airline"])
def test_generation_draws_only_within_the_domains_conditions(name: str) -> None:
    domain = get_domain(name)
    emotions = domain.emotions
    assert emotions is not None
    result = generate(domain, domain.database(), Settings(n=12, seed=3, depth=(2, 3)))
    drawn = [t.emotion for t in result.tasks.tasks]
    assert drawn and all(e is not None and e.leaf in emotions.leaves.get(e.family, ()) for e in drawn)
    families = Counter(e.family for e in drawn if e is not None)
    assert set(families) == set(emotions.families)  # balanced over the domain's own families, all of them
    assert max(families.values()) - min(families.values()) <= 1
    assert result.tasks.provenance["emotions"] == {f: 1.0 for f in emotions.families}


def test_a_family_the_domain_does_not_draw_from_is_refused(tmp_path: Path, capsys: Any) -> None:
    code = main(["generate", "--domain", "telehealth", "--n", "2", "--emotions", "anger=1,fear=1",
                 "--out", str(tmp_path / "t.json")])
    err = capsys.readouterr().err
    assert code == 2 and "anger: not among this domain's emotion families (fear, sadness, enjoyment" in err
    assert not (tmp_path / "t.json").exists()


def test_every_published_pair_maps_to_the_family_it_is_published_under() -> None:
    for family, leaves in PUBLISHED_PAIRS.items():
        for leaf in leaves:
            condition = EmotionCondition(family, leaf)
            assert condition.published_pair and emotion_group(condition) == family
            assert emotion_group(condition.to_json()) == family  # as a session saves it
    assert emotion_group(None) == emotion_group({}) == "none"


# -- `run` and `stats --by emotion` on the same published sessions ---------------------------------------

def _published_ids(folder: Path) -> list[str]:
    """Every airline task whose pair the Atlas puts under another family, and as many others."""
    tasks = load_tasks(folder / "tasks_test.json", "airline").tasks
    pairs = [t.id for t in tasks if t.emotion is not None and t.emotion.published_pair]
    others = [t.id for t in tasks if t.id not in pairs][: len(pairs)]
    assert len(pairs) >= 9
    return pairs + others


@pytest.mark.parametrize("emotion", [None, "none", "anxious"])
def test_stats_by_emotion_groups_the_sessions_as_run_does(tmp_path: Path, emotion: str | None) -> None:
    folder = taubench_dir("airline")
    db = tmp_path / "s.db"
    extra = ["--emotion", emotion] if emotion else []
    code, out = cli("run", "--domain", "airline", "--data", str(folder), "--tasks", str(folder / "tasks_test.json"),
                    "--task-ids", *_published_ids(folder), "--db", str(db), "--json", *extra)
    assert code == 0, out
    ran = json.loads(out)
    by_run = {r["name"]: r["sessions"] for r in ran["summary"] if r["group"] == "emotion"}
    code, out = cli("stats", "--db", str(db), "--by", "emotion", "--batch", ran["batch_id"], "--json")
    assert code == 0, out
    by_stats = {g["key"]["emotion"]: g["sessions"] for g in json.loads(out)["groups"]}
    assert by_stats == by_run
    assert sum(by_run.values()) == len(ran["sessions"])
    if emotion is None:  # the tasks' own conditions: all five families, none left without one
        assert "none" not in by_run and len(by_run) == 5
    else:
        assert set(by_run) == {"none" if emotion == "none" else "fear"}
