"""Emotion conditions: the taxonomy as data, typed words to leaves, and the two renderings."""

from __future__ import annotations

import pytest

from tauplay.core.emotions import (
    ADJECTIVES,
    DEFAULT_LEAF,
    FAMILIES,
    LEAF_FAMILY,
    EmotionCondition,
    EmotionError,
    card,
    condition_from_word,
    patience,
    resolve_emotion,
    user_instructions,
)


@pytest.mark.parametrize(("word", "family", "leaf"), [
    ("frustrated", "anger", "frustration"), ("annoyed", "anger", "annoyance"), ("angry", "anger", "frustration"),
    ("furious", "anger", "fury"), ("anxious", "fear", "anxiety"), ("nervous", "fear", "nervousness"),
    ("scared", "fear", "dread"), ("panicked", "fear", "panic"), ("disappointed", "sadness", "disappointment"),
    ("sad", "sadness", "disappointment"), ("hopeless", "sadness", "hopelessness"), ("disgusted", "disgust", "dislike"),
    ("relieved", "enjoyment", "relief"), ("excited", "enjoyment", "excitement"), ("proud", "enjoyment", "pride"),
    ("calm", "enjoyment", "peace"), ("  Frustrated ", "anger", "frustration"), ("fed up", "anger", "exasperation"),
])
def test_adjectives_map_to_leaves(word, family, leaf):
    assert resolve_emotion(word) == (family, leaf)


def test_every_adjective_lands_on_a_real_leaf():
    for word, leaf in ADJECTIVES.items():
        assert leaf in LEAF_FAMILY, word


def test_families_leaves_and_slash_form():
    for family in FAMILIES:
        assert resolve_emotion(family) == (family, DEFAULT_LEAF[family])
        assert DEFAULT_LEAF[family] in FAMILIES[family]
    assert resolve_emotion("frustration") == ("anger", "frustration")
    assert resolve_emotion("fear/panic") == ("fear", "panic")
    with pytest.raises(EmotionError, match="not in the anger family.*fury"):
        resolve_emotion("anger/panic")


def test_unknown_word_lists_the_choices():
    with pytest.raises(EmotionError) as err:
        resolve_emotion("grumpy")
    message = str(err.value)
    assert "'grumpy'" in message
    for choice in ("frustrated", "anxious", "relieved", "anger", "enjoyment"):
        assert choice in message


def test_leaf_outside_its_family_is_an_error():
    with pytest.raises(EmotionError, match="not in the sadness family"):
        EmotionCondition("sadness", "fury")
    with pytest.raises(EmotionError, match="urgency must be one of"):
        EmotionCondition("anger", "fury", urgency="extreme")


def test_word_sets_intensity_unless_given():
    assert condition_from_word("annoyed").intensity == "mild"
    assert condition_from_word("furious").intensity == "intense"
    assert condition_from_word("frustrated").intensity == "moderate"
    assert condition_from_word("angry").intensity == "moderate"
    assert condition_from_word("furious", intensity="mild").intensity == "mild"
    c = condition_from_word("anxious", politeness="warm", urgency="high", trust="skeptical", trigger="a wedding")
    assert (c.family, c.leaf, c.politeness, c.urgency, c.trust, c.trigger) == \
        ("fear", "anxiety", "warm", "high", "skeptical", "a wedding")


def test_instructions_follow_each_dimension():
    base = EmotionCondition("anger", "frustration", "moderate", "neutral", "moderate", "cautious", "a lost bag")
    text = user_instructions(base)
    assert "frustrat" in text and "a lost bag" in text
    variants = {
        "politeness": [user_instructions(EmotionCondition("anger", "frustration", politeness=p))
                       for p in ("cold", "neutral", "warm")],
        "urgency": [user_instructions(EmotionCondition("anger", "frustration", urgency=u))
                    for u in ("low", "moderate", "high")],
        "trust": [user_instructions(EmotionCondition("anger", "frustration", trust=t))
                  for t in ("skeptical", "cautious", "trusting")],
        "intensity": [user_instructions(EmotionCondition("anger", "frustration", intensity=i))
                      for i in ("mild", "moderate", "intense")],
    }
    for dimension, texts in variants.items():
        assert len(set(texts)) == 3, dimension
    assert "curt" in variants["politeness"][0] and "thank" in variants["politeness"][2]
    assert "one item at a time" in variants["trust"][0]
    families = {f: user_instructions(EmotionCondition(f, DEFAULT_LEAF[f])) for f in FAMILIES}
    assert len(set(families.values())) == len(FAMILIES)


def test_patience_shrinks_with_urgency_and_anger():
    calm = EmotionCondition("enjoyment", "peace", "mild", urgency="low", trust="trusting")
    hot = EmotionCondition("anger", "fury", "intense", urgency="high", trust="skeptical")
    assert patience(calm) > patience(EmotionCondition("anger", "frustration")) > patience(hot) >= 1


def test_card_is_short_plain_text():
    c = EmotionCondition("fear", "anxiety", "intense", "warm", "high", "skeptical", "missing her daughter's wedding")
    text = card(c)
    lines = text.splitlines()
    assert 3 <= len(lines) <= 5
    assert lines[0].startswith("Feeling: anxious (fear / anxiety), intense")
    assert "missing her daughter's wedding" in text and "press for speed" in text
    assert lines[-1].startswith("Play it: sound very anxious")  # the family and intensity say how to write
    assert "[" not in text  # nothing a renderer could take for markup
