"""What the scripted user keeps back when it opens: the ids and codes its instruction holds (a reservation
code, an order number, a user id, an e-mail). A person opens with what they want done and gives such values
when the agent asks for them (`scripted_user.answer_question`); a name ("I am Mia Li") stays."""

from __future__ import annotations

import re

# An id or code: an order number (#W1234567), a user or payment id (mia_li_3668, credit_card_123), a flight
# number (HAT175), a booking reference in capitals (LUA6DF), an item id of 7+ digits, an e-mail address. Not a product's option ("512GB").
_EMAIL = r"[\w.+-]+@[\w-]+\.[\w.]+\w"
_ID = (rf"(?:{_EMAIL}|\b\d{{7,}}\b|#[A-Za-z]?\d{{3,}}\w*|\b[A-Za-z]+(?:_[A-Za-z]+)*_\d+\b"
       r"|(?-i:\b[A-Z]{2,}\d+[A-Z0-9]*\b|\b(?=\w*[A-Z])[A-Z0-9]{6}\b))")
_BARE = re.compile(_ID)
_PARENS = re.compile(r"\s*\(([^()]*)\)")
_EMAIL_CLAUSE = re.compile(rf",?\s*(?:and\s+)?(?:with|my)\s+(?:the\s+)?e-?mail(?:\s+address)?\s*(?:is|:)?\s*{_EMAIL}",
                           re.IGNORECASE)
_LABEL_BEFORE = re.compile(rf"\b((?:user|order|reservation|booking|confirmation|item|product|payment|flight)[ _]?"
                           rf"(?:id|number|code|no\.?)?)\s*(?:is|:|#)?\s*{_ID}", re.IGNORECASE)
# Where an id went, the noun before it needs a determiner of its own ("on reservation X" -> "on my reservation"):
# words that already are one, and the adjectives that may stand between ("my pending order").
_DETERMINERS = frozenset("my the a an this that these those your our his her their its which each every one another "
                         "same".split())
_ADJECTIVES = frozenset("pending delivered processed cancelled canceled recent latest last upcoming current new old "
                        "basic economy business first class one-way round-trip existing".split())
_MARK = "\x00"
_MARKED = re.compile(r"((?:[\w'-]+\s+)*?)((?:[\w-]+\s+)*)\x00", re.IGNORECASE)


def is_id(token: str) -> bool:
    return bool(_BARE.fullmatch(token))


def _parens(m: re.Match[str]) -> str:
    inside = m.group(1)
    if not _BARE.search(inside):
        return m.group(0)
    left = _BARE.sub("", inside)
    # Only a label was left ("user id: "): drop the brackets too.
    return "" if len(re.findall(r"[A-Za-z]+", left)) <= 3 else f" ({_tidy(left)})"


def _tidy(text: str) -> str:
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,;:])(?=[,.;:])", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def without_ids(text: str) -> str:
    """`text` with its ids and e-mail addresses left out and the sentence tidied ("my reservation ABC123 (user
    id: x_1)" -> "my reservation")."""
    text = _EMAIL_CLAUSE.sub("", text)
    text = _PARENS.sub(_parens, text)
    text = _with_determiners(_LABEL_BEFORE.sub(lambda m: _MARK + m.group(1), text))
    text = _tidy(_BARE.sub("", text))
    return re.sub(r"\bI am(?: and|,)\s+", "I ", text)  # the instruction named the user by its id


def _with_determiners(text: str) -> str:
    """Each marked noun (its id was taken out) gets "my" (a flight: "a particular") unless a determiner already
    stands before it, across the adjectives between ("in pending order X" -> "in my pending order")."""
    out: list[str] = []
    pieces = text.split(_MARK)
    out.append(pieces[0])
    for piece in pieces[1:]:
        before = "".join(out)
        words = re.findall(r"[\w'-]+", before)
        i = len(words) - 1
        while i >= 0 and words[i].lower() in _ADJECTIVES:
            i -= 1
        has_determiner = i >= 0 and words[i].lower() in _DETERMINERS
        if not has_determiner:
            word = "a particular" if piece.lower().startswith("flight") else "my"
            adjectives = words[i + 1:]
            # Put the determiner before the adjectives (or before the noun when there are none).
            cut = len(before)
            for adj in reversed(adjectives):
                cut = before.rfind(adj, 0, cut)
            at_start = not before[:cut].strip() or before[:cut].rstrip().endswith((".", "!", "?"))
            if at_start and before[cut:cut + 1].isupper():
                word = word[0].upper() + word[1:]
                before = before[:cut] + before[cut].lower() + before[cut + 1:]
            elif at_start and not adjectives and piece[:1].isupper():
                word = word[0].upper() + word[1:]
                piece = piece[0].lower() + piece[1:]
            out = [before[:cut] + word + " " + before[cut:]]
        out.append(piece)
    return "".join(out)
