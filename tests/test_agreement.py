"""Agreement figures against values computed by hand (each computation is written out next to its test)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tauplay.core.agreement import (
    AUTO,
    NOMINAL,
    agreement_report,
    auto_agreement,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    label_sets,
)
from tauplay.core.labels import FaultLabel
from tests.support.store import add_annotation


def label(session_id: str, turn: int | None, annotator: str, category: str) -> FaultLabel:
    """A fault label as agreement reads it (its session, turn, annotator and category)."""
    return FaultLabel(category, "agent", "major", annotator, turn=turn, session_id=session_id)


def test_cohen_kappa_by_hand() -> None:
    # unit:  1  2  3  4  5  6  7  8  9  10
    # A:     M  M  M  E  E  N  N  N  N  N
    # B:     M  M  E  E  E  N  N  N  N  M
    # agree on 1,2,4,5,6,7,8,9 -> p_o = 8/10 = 0.8
    # A: M 3, E 2, N 5; B: M 3, E 3, N 4 -> p_e = (3*3 + 2*3 + 5*4) / 100 = 0.35
    # kappa = (0.8 - 0.35) / (1 - 0.35) = 0.45 / 0.65 = 0.6923077
    a = list("MMMEENNNNN")
    b = list("MMEEENNNNM")
    assert cohen_kappa(list(zip(a, b, strict=True))) == pytest.approx(0.45 / 0.65)


def test_cohen_kappa_undefined_and_perfect() -> None:
    assert cohen_kappa([]) is None
    assert cohen_kappa([("N", "N")] * 5) is None  # p_e = 1: undefined, not 1 or 0
    assert cohen_kappa([("Y", "Y"), ("N", "N")]) == pytest.approx(1.0)
    # total disagreement on a balanced split: p_o = 0, p_e = (1*1 + 1*1)/4 = 0.5 -> kappa = -1
    assert cohen_kappa([("Y", "N"), ("N", "Y")]) == pytest.approx(-1.0)


FOUR_UNITS = [["Y", "Y", "Y"], ["Y", "Y", "N"], ["N", "N", "N"], ["Y", "N", "N"]]


def test_fleiss_kappa_by_hand() -> None:
    # P_i = sum_j n_ij (n_ij - 1) / (n (n - 1)), n = 3 raters:
    #   YYY: 3*2/6 = 1;  YYN: (2*1 + 1*0)/6 = 1/3;  NNN: 1;  YNN: 1/3  -> P_bar = (8/3)/4 = 2/3
    # p_Y = (3+2+0+1)/12 = 0.5, p_N = 0.5 -> P_e = 0.5
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert fleiss_kappa(FOUR_UNITS) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        fleiss_kappa([["Y", "Y"], ["Y"]])
    assert fleiss_kappa([["Y", "Y"], ["Y", "Y"]]) is None


def test_krippendorff_alpha_by_hand() -> None:
    # Coincidences (each ordered pair inside a unit of m values weighs 1/(m-1) = 1/2):
    #   YYY: o_YY += 3;  YYN: o_YY += 1, o_YN += 1, o_NY += 1;  NNN: o_NN += 3;  YNN: o_NN += 1, o_YN += 1, o_NY += 1
    #   o_YY = 4, o_NN = 4, o_YN = o_NY = 2;  n_Y = n_N = 6, n = 12
    # alpha = 1 - (n - 1) * (o_YN + o_NY) / (n_Y n_N + n_N n_Y) = 1 - 11 * 4 / 72 = 7/18
    ratings = {i: dict(zip("abc", u, strict=True)) for i, u in enumerate(FOUR_UNITS)}
    assert krippendorff_alpha(ratings) == pytest.approx(7 / 18)
    # A unit with one rating is not pairable and changes nothing; a unit rated Y/N by two raters adds
    # o_YN = o_NY = 1 (weight 1/(2-1)): n_Y = n_N = 7, n = 14 -> alpha = 1 - 13 * 6 / 98 = 20/98
    ratings[4] = {"a": "Y"}
    assert krippendorff_alpha(ratings) == pytest.approx(7 / 18)
    ratings[5] = {"a": "Y", "b": "N"}
    assert krippendorff_alpha(ratings) == pytest.approx(20 / 98)
    assert krippendorff_alpha({1: {"a": "Y", "b": "Y"}}) is None  # one value only: undefined


# Two annotators on two sessions (turn None = the whole session):
#   ann: s1/None Missed Action, s1/2 Extra Action, s2/1 Misread Intent
#   bob: s1/2 Extra Action, s1/3 Wrong Order, s2/1 Early Stop
LABELS = [
    label("s1", None, "ann", "Missed Action"), label("s1", 2, "ann", "Extra Action"),
    label("s2", 1, "ann", "Misread Intent"),
    label("s1", 2, "bob", "Extra Action"), label("s1", 3, "bob", "Wrong Order"), label("s2", 1, "bob", "Early Stop"),
]


def _row(report, label):  # type: ignore[no-untyped-def]
    return next(r for r in report.labels if r.label == label)


def test_report_two_annotators_by_hand() -> None:
    # Units: (s1,None) (s1,2) (s1,3) (s2,1); both judged both sessions, so each rates all four.
    #   nominal: ann = MA, EA, none, MI;  bob = none, EA, WO, ES  -> p_o = 1/4
    #   ann counts MA1 EA1 none1 MI1, bob none1 EA1 WO1 ES1 -> p_e = (EA 1*1 + none 1*1)/16 = 1/8
    #   kappa = (1/4 - 1/8) / (7/8) = 1/7
    # Extra Action yes/no: N,Y,N,N for both -> p_o = 1, p_e = (1*1 + 3*3)/16 = 10/16 -> kappa = 1
    # Missed Action: ann Y,N,N,N, bob N,N,N,N -> p_o = 3/4, p_e = (3*4)/16 = 3/4 -> kappa = 0
    # Repeated Action: nobody marked it -> p_e = 1 -> undefined (None)
    sets = label_sets(LABELS, ["ann", "bob"])
    assert len(sets) == 4
    report = agreement_report(sets, ["ann", "bob"])
    assert report.units == 4
    assert _row(report, NOMINAL).cohen[("ann", "bob")] == pytest.approx(1 / 7)
    assert _row(report, NOMINAL).observed == pytest.approx(0.25)
    assert _row(report, "Extra Action").cohen[("ann", "bob")] == pytest.approx(1.0)
    assert _row(report, "Missed Action").cohen[("ann", "bob")] == pytest.approx(0.0)
    assert _row(report, "Repeated Action").cohen[("ann", "bob")] is None
    assert _row(report, NOMINAL).fleiss is None  # two raters: Cohen's kappa, not Fleiss'
    json.dumps(report.to_json())


def test_unjudged_sessions_are_missing_not_clean() -> None:
    # carl labelled only s2 (Early Stop at turn 1): he judged s2, never s1, so s1's units have no carl rating.
    labels = LABELS + [label("s2", 1, "carl", "Early Stop")]
    sets = label_sets(labels, ["ann", "bob", "carl"])
    assert "carl" not in sets[("s1", 2)] and sets[("s2", 1)]["carl"] == frozenset({"Early Stop"})
    report = agreement_report(sets, ["ann", "bob", "carl"])
    nominal = _row(report, NOMINAL)
    # Fleiss over the one unit all three judged, (s2,1): MI, ES, ES -> P_bar = (0 + 2*1)/(3*2) = 1/3;
    # p_MI = 1/3, p_ES = 2/3 -> P_e = 1/9 + 4/9 = 5/9 -> kappa = (1/3 - 5/9)/(4/9) = -1/2
    assert nominal.complete_units == 1
    assert nominal.fleiss == pytest.approx(-0.5)
    # bob vs carl: one shared unit, both ES -> p_e = 1 -> undefined
    assert nominal.cohen[("bob", "carl")] is None
    # judged can name a session a rater found clean: carl judged s1 and labelled nothing there
    sets = label_sets(labels, ["ann", "bob", "carl"], judged={"carl": {"s1"}})
    assert sets[("s1", 2)]["carl"] == frozenset()


def test_a_session_one_annotator_found_clean_by_hand() -> None:
    # s3: ann labelled Extra Action at turn 1; bob reviewed s3 (marked it, labelled nothing): he found it clean.
    labels = LABELS + [label("s3", 1, "ann", "Extra Action")]
    # Before bob's mark counts, (s3,1) has ann's rating only: not pairable, the figures are those of the
    # four-unit test above (nominal kappa 1/7, Extra Action kappa 1) -- the bias this mark removes.
    blind_to_marks = agreement_report(label_sets(labels, ["ann", "bob"]), ["ann", "bob"])
    assert blind_to_marks.units == 4
    assert _row(blind_to_marks, NOMINAL).cohen[("ann", "bob")] == pytest.approx(1 / 7)
    sets = label_sets(labels, ["ann", "bob"], judged={"bob": {"s3"}})
    assert sets[("s3", 1)] == {"ann": frozenset({"Extra Action"}), "bob": frozenset()}  # absent, not missing
    report = agreement_report(sets, ["ann", "bob"])
    # Units (s1,None) (s1,2) (s1,3) (s2,1) (s3,1), both rate all five:
    #   nominal: ann = MA, EA, none, MI, EA;  bob = none, EA, WO, ES, none  -> p_o = 1/5 (only (s1,2) agrees)
    #   ann: MA 1, EA 2, none 1, MI 1;  bob: none 2, EA 1, WO 1, ES 1
    #   p_e = (EA 2*1 + none 1*2) / 25 = 4/25  -> kappa = (1/5 - 4/25) / (21/25) = (1/25) / (21/25) = 1/21
    # Extra Action yes/no: ann N,Y,N,N,Y; bob N,Y,N,N,N -> p_o = 4/5; ann Y2 N3, bob Y1 N4
    #   p_e = (2*1 + 3*4) / 25 = 14/25 -> kappa = (20/25 - 14/25) / (11/25) = 6/11
    assert report.units == 5
    assert _row(report, NOMINAL).observed == pytest.approx(1 / 5)
    assert _row(report, NOMINAL).cohen[("ann", "bob")] == pytest.approx(1 / 21)
    assert _row(report, "Extra Action").cohen[("ann", "bob")] == pytest.approx(6 / 11)
    # s4: both reviewed it and neither labelled anything: one unit, the whole session, none/none.
    sets = label_sets(labels, ["ann", "bob"], judged={"bob": {"s3", "s4"}, "ann": {"s4"}})
    assert sets[("s4", None)] == {"ann": frozenset(), "bob": frozenset()}
    report = agreement_report(sets, ["ann", "bob"])
    # Six units: the five above plus none/none -> p_o = 2/6 = 1/3
    #   ann: MA 1, EA 2, none 2, MI 1;  bob: none 3, EA 1, WO 1, ES 1
    #   p_e = (EA 2*1 + none 2*3) / 36 = 8/36 = 2/9 -> kappa = (1/3 - 2/9) / (7/9) = 1/7
    # Extra Action: ann N,Y,N,N,Y,N; bob N,Y,N,N,N,N -> p_o = 5/6; ann Y2 N4, bob Y1 N5
    #   p_e = (2*1 + 4*5) / 36 = 22/36 = 11/18 -> kappa = (15/18 - 11/18) / (7/18) = 4/7
    assert report.units == 6
    assert _row(report, NOMINAL).cohen[("ann", "bob")] == pytest.approx(1 / 7)
    assert _row(report, "Extra Action").cohen[("ann", "bob")] == pytest.approx(4 / 7)
    # A session only one person reviewed gives a unit nobody can pair with: it changes no figure.
    alone = label_sets(labels, ["ann", "bob"], judged={"bob": {"s3", "s4", "s5"}, "ann": {"s4"}})
    assert alone[("s5", None)] == {"bob": frozenset()}
    assert agreement_report(alone, ["ann", "bob"]).units == 6


def test_people_against_automatic_suggestions_by_hand() -> None:
    # auto suggested s1/None Missed Action and s1/2 Extra Action, and judged s1 and s2.
    auto = [label("s1", None, AUTO, "Missed Action"), label("s1", 2, AUTO, "Extra Action")]
    reports = auto_agreement(LABELS + auto, ["ann", "bob"], judged={AUTO: {"s1", "s2"}})
    ann, bob = reports
    # ann vs auto, suggestible categories only: units (s1,None) MA/MA, (s1,2) EA/EA, and (s2,None) none/none
    # (both judged s2; ann's Misread Intent is not suggestible, so on these categories both found s2 clean)
    # -> p_o = 1; ann and auto: MA 1, EA 1, none 1 -> p_e = 3/9 = 1/3 -> kappa = 1
    assert _row(ann, NOMINAL).cohen[("ann", AUTO)] == pytest.approx(1.0)
    assert _row(ann, NOMINAL).units == 3
    # bob vs auto: units (s1,None) none/MA, (s1,2) EA/EA, (s1,3) WO/none, (s2,None) none/none -> p_o = 2/4;
    # bob: none 2, EA 1, WO 1; auto: MA 1, EA 1, none 2 -> p_e = (none 2*2 + EA 1*1)/16 = 5/16
    # -> kappa = (8/16 - 5/16)/(11/16) = 3/11
    assert _row(bob, NOMINAL).cohen[("bob", AUTO)] == pytest.approx(3 / 11)
    assert [r.label for r in bob.labels][1:] == ["Missed Action", "Wrong Order", "Extra Action", "Repeated Action"]


# -- the command, on a real SQLite store -----------------------------------------------------------------

def test_agreement_command_reads_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.cli import main
    from tauplay.store import SessionStore

    db = tmp_path / "a.db"
    with SessionStore(str(db)) as store:
        ids = {}
        for name in ("s1", "s2"):
            ids[name] = store.create_session(domain="airline", task_id=name, role="batch", agent={"kind": "oracle"},
                                             user={"kind": "scripted"}, task={"id": name, "actions": []})
        for lb in LABELS:
            add_annotation(store, ids[lb.session_id], category=lb.category, who_erred="agent", severity="major",
                                 annotator=lb.annotator, turn=lb.turn)
    assert main(["agreement", "--db", str(db), "--json", "--no-auto"]) == 0
    out = json.loads(capsys.readouterr().out)
    nominal = next(r for r in out["people"]["labels"] if r["label"] == NOMINAL)
    assert nominal["cohen"][0]["kappa"] == pytest.approx(1 / 7, abs=1e-4)
    assert main(["agreement", "--db", str(db), "--annotators", "ann,bob", "--no-auto"]) == 0
    text = capsys.readouterr().out
    assert "Cohen" in text and "0.143" in text
    assert main(["agreement", "--db", str(db), "--annotators", "ann"]) == 2
    assert "two annotators" in capsys.readouterr().err


def test_agreement_command_counts_sessions_found_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The hand computation of test_a_session_one_annotator_found_clean_by_hand, through the store."""
    from tauplay.cli import main
    from tauplay.store import SessionStore

    db = tmp_path / "a.db"
    with SessionStore(str(db)) as store:
        ids = {name: store.create_session(domain="airline", task_id=name, role="batch", agent={"kind": "oracle"},
                                          user={"kind": "scripted"}, task={"id": name, "actions": []})
               for name in ("s1", "s2", "s3", "s4")}
        for lb in LABELS:
            add_annotation(store, ids[lb.session_id], category=lb.category, who_erred="agent", severity="major",
                                 annotator=lb.annotator, turn=lb.turn)
        # ann kept an automatic suggestion at the end of s3 (saved with source "auto"): still her label
        add_annotation(store, ids["s3"], category="Extra Action", who_erred="agent", severity="major",
                             annotator="ann", turn=1, source="auto")
        store.mark_reviewed(ids["s3"], "bob", note="nothing wrong")

    def nominal() -> tuple[dict[str, object], dict[str, object]]:
        assert main(["agreement", "--db", str(db), "--json", "--no-auto"]) == 0
        out = json.loads(capsys.readouterr().out)
        return out, next(r for r in out["people"]["labels"] if r["label"] == NOMINAL)

    out, row = nominal()
    # five units, nominal kappa 1/21 (by hand in the test above); without bob's mark it would be 1/7 on four
    assert (out["sessions"], out["people"]["units"], row["units"]) == (3, 5, 5)
    assert row["cohen"][0]["kappa"] == pytest.approx(1 / 21, abs=1e-4)
    extra = next(r for r in out["people"]["labels"] if r["label"] == "Extra Action")
    assert extra["cohen"][0]["kappa"] == pytest.approx(6 / 11, abs=1e-4)
    with SessionStore(str(db)) as store:  # s4: both reviewed it, neither found a fault
        store.mark_reviewed(ids["s4"], "ann")
        store.mark_reviewed(ids["s4"], "bob")
    out, row = nominal()
    assert (out["sessions"], row["units"]) == (4, 6)
    assert row["cohen"][0]["kappa"] == pytest.approx(1 / 7, abs=1e-4)
    assert main(["agreement", "--db", str(db), "--no-auto"]) == 0
    text = capsys.readouterr().out
    assert "(4 sessions, 6 units)" in text and "0.143" in text and "0.571" in text  # nominal 1/7, EA 4/7
    # someone who only ever marked sessions reviewed is an annotator too
    with SessionStore(str(db)) as store:
        store.mark_reviewed(ids["s4"], "carl")
    out, row = nominal()
    assert out["annotators"] == ["ann", "bob", "carl"]
    assert next(c for c in row["cohen"] if c["b"] == "carl")["units"] == 1  # carl shares only (s4, None)


def test_agreement_command_with_nothing_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tauplay.cli import main
    from tauplay.store import SessionStore

    db = tmp_path / "a.db"
    with SessionStore(str(db)) as store:
        store.create_session(domain="airline", task_id="1", role="batch", agent={}, user={}, task={})
    assert main(["agreement", "--db", str(db), "--domain", "airline"]) == 2
    assert "no labelled or reviewed sessions to compare in domain 'airline'" in capsys.readouterr().err


def test_agreement_command_against_automatic_suggestions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Imported sessions carry alignment suggestions; a person who labels exactly them agrees fully."""
    from tauplay.cli import main
    from tauplay.core.tasks import load_tasks
    from tauplay.interop.taubench import sessions_from_taubench
    from tauplay.store import SessionStore
    from tauplay.store.bundles import write_bundles
    from tests.test_interop import REPO, results_fixture

    db = tmp_path / "a.db"
    bundles = sessions_from_taubench(results_fixture(load_tasks(REPO / "domains/airline/tasks/starter.json")),
                                     "r.json", "airline")
    with SessionStore(str(db)) as store:
        write_bundles(store, bundles, ["a" * 32, "b" * 32])
        wrong = "b" * 32
        call = next(e for e in store.events(wrong) if e.kind == "tool_call"
                    and e.data["name"] == "update_reservation_baggages")
        add_annotation(store, wrong, category="Extra Action", who_erred="agent", severity="major", annotator="ann",
                             turn=call.turn, seq=call.seq)
        add_annotation(store, wrong, category="Missed Action", who_erred="agent", severity="major", annotator="ann")
        # bob put the extra write on the wrong turn and saw no missed action
        add_annotation(store, wrong, category="Extra Action", who_erred="agent", severity="major", annotator="bob",
                             turn=2)
    assert main(["agreement", "--db", str(db), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ann, bob = out["auto"]
    # ann vs auto: units (b,None) MA/MA and (b,1) EA/EA -> p_o = 1, p_e = 1/2 -> kappa = 1
    assert ann["raters"] == ["ann", AUTO] and ann["labels"][0]["cohen"][0]["kappa"] == pytest.approx(1.0)
    # bob vs auto: units (b,None) none/MA, (b,1) none/EA, (b,2) EA/none -> p_o = 0;
    # bob: none 2, EA 1; auto: MA 1, EA 1, none 1 -> p_e = (none 2*1 + EA 1*1)/9 = 1/3 -> kappa = -1/2
    assert bob["labels"][0]["cohen"][0]["kappa"] == pytest.approx(-0.5)
    # between the two people: units (b,None) MA/none, (b,1) EA/none, (b,2) none/EA -> p_o = 0,
    # ann: MA 1, EA 1, none 1; bob: none 2, EA 1 -> p_e = (EA 1*1 + none 1*2)/9 = 1/3 -> kappa = -1/2
    assert out["people"]["labels"][0]["cohen"][0]["kappa"] == pytest.approx(-0.5)
