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
_LABEL_BEFORE = re.compile(rf"\b((?:user|order|reservation|booking|confirmation|item|product|payment)[ _]?"
                           rf"(?:id|number|code|no\.?)?)\s*(?:is|:|#)?\s*{_ID}", re.IGNORECASE)


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
    text = _LABEL_BEFORE.sub(lambda m: m.group(1), text)
    text = _tidy(_BARE.sub("", text))
    return re.sub(r"\bI am(?: and|,)\s+", "I ", text)  # the instruction named the user by its id
