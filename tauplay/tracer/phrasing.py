"""How the user asks for a goal, as data: a `Say` template per write tool, checked when the domain loads.

A `Say` holds the words of an `Intent` as `str.format` templates. A `{placeholder}` names either a parameter
of the write tool (filled from the write's arguments) or a word the hints class declares with
`@word("name")`: a method `(self, args, ctx)` that works the value out (a record's name, how the user refers
to an order). A word may return `Said(fact, words)`: `{name}` is then the words, and `name` in `facts` the
fact (or its facts, a tuple of them); a word with a parameter's name stands for that parameter (to give its
fact more forms, e.g. "2 more" for a new total). `facts`, `known` and `answers` name parameters or words the
same way (a parameter `p` in `facts` gives `fact("p", args["p"])`).
A choice of several phrasings is a tuple of templates; one is picked with the trace's random generator.
Three names are always there besides: `target` (what the goal acts on, `ctx.goal.target`), `output` (what the
write returned) and `persona` (the user's record), e.g. `"because {target[reason]}"`.

A goal phrased in a few ways depending on what it acts on is a `Variants`: its `key` (a template, e.g.
`"{target[variant]}"`) is filled first and names the `Say` to use (`default` for any other value).

The templates are filled in the order of the `Intent`'s fields (action, details, reason, facts, situation,
subject, known, slots, answers) and each word is worked out once, when it is first needed, so a word that
draws on the random generator draws in that order.

The instruction's first sentence (who the user is) is data the same way: an `Opening`, filled from the
persona's record (`{email}`, `{demographics[phone]}`) and two names every opening may read, `{name}` (the
person's full name) and `{id}` (the record's id); one template per way the persona identifies themselves when
it depends on that (`TracerHints.identifies_by`).

`TracerHints.check` (run whenever a domain's hints are looked up) fails with a one-line DomainError when a
template names something that is neither a parameter of its tool, a declared word nor a built-in name.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from tauplay.tracer.facts import Fact, answer, fact

if TYPE_CHECKING:
    from tauplay.tracer.trace import Intent, TraceContext

BUILT_IN = frozenset({"target", "output", "persona"})  # names every template may read (after parameters)
Choice = str | tuple[str, ...]  # one template, or several to pick one from
WordFn = Callable[[Any, dict[str, Any], "TraceContext"], Any]  # (hints, write's arguments, ctx) -> value


class Said(NamedTuple):
    """A word's value when it is also what the user must be able to say: one fact, or several in order."""

    fact: Fact | tuple[Fact, ...]
    words: str

    def __str__(self) -> str:
        return self.words

    def __format__(self, spec: str) -> str:
        return format(self.words, spec)


@dataclass(frozen=True)
class Say:
    """The template of one write tool's goal as the user asks for it (the fields of `Intent`)."""

    action: Choice
    situation: str = ""
    subject: Choice = ""
    details: tuple[Choice, ...] = ()
    reason: Choice = ""
    facts: tuple[str, ...] = ()  # parameters or words that are facts, in order
    known: tuple[str, ...] = ()  # parameters or words whose values the user knows, under their names
    slots: str | Mapping[str, Choice] = field(default_factory=dict)  # a word giving the dict, or templates
    answers: tuple[str, ...] = ()  # words or parameters whose values a correct answer holds (`answer` writes them)

    def templates(self) -> Iterator[str]:
        for choice in (self.action, *self.details, self.reason, self.situation, self.subject,
                       *(self.slots.values() if isinstance(self.slots, Mapping) else ())):
            yield from (choice,) if isinstance(choice, str) else choice

    def names(self) -> Iterator[str]:
        """Every parameter or word the template reads."""
        for template in self.templates():
            for _, name, _, _ in string.Formatter().parse(template):
                if name is not None:
                    yield _root(name, template)
        yield from self.facts
        yield from self.known
        yield from self.answers
        if isinstance(self.slots, str):
            yield self.slots


@dataclass(frozen=True)
class Variants:
    """Several templates of one goal: `key`, filled first, picks one of `cases` (else `default`)."""

    key: str
    cases: Mapping[str, Say]
    default: Say | None = None

    def choices(self) -> list[Say]:
        return [*self.cases.values(), *([self.default] if self.default is not None else [])]

    def names(self) -> Iterator[str]:
        yield from Say(self.key).names()
        for case in self.choices():
            yield from case.names()


Phrase = Say | Variants  # what a `PHRASES` entry holds
Opening = Choice | Mapping[str, Choice]  # the opening's templates, or per way the persona identifies themselves


def full_name(person: Mapping[str, Any]) -> str:
    """'First Last', from the record's `name` (or the record itself) holding `first_name` and `last_name`."""
    name = person["name"] if isinstance(person.get("name"), Mapping) else person
    return f"{name['first_name']} {name['last_name']}"


def open_with(opening: Opening, way: str, persona: Mapping[str, Any], persona_id: str, rng: random.Random) -> str:
    """The opening sentence for this persona (a choice of several templates is drawn with `rng`)."""
    choice = opening[way] if isinstance(opening, Mapping) else opening
    template = choice if isinstance(choice, str) else rng.choice(choice)
    return template.format_map({**persona, "name": full_name(persona), "id": persona_id})


def opening_templates(opening: Opening) -> Iterator[str]:
    for choice in opening.values() if isinstance(opening, Mapping) else (opening,):
        yield from (choice,) if isinstance(choice, str) else choice


def _root(name: str, template: str) -> str:
    root = name.split(".", 1)[0].split("[", 1)[0]
    if not root or root.isdigit():
        raise ValueError(f"template {template!r} has a placeholder without a name")
    return root


class _Values(Mapping[str, Any]):
    """The parameters and words of one goal, each word worked out on first use."""

    def __init__(self, hints: Any, words: Mapping[str, WordFn], tool: str, args: dict[str, Any],
                 ctx: TraceContext) -> None:
        self._hints, self._words, self._tool, self._args, self._ctx = hints, words, tool, args, ctx
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self._words:
            if name not in self._made:
                self._made[name] = self._words[name](self._hints, self._args, self._ctx)
            return self._made[name]
        if name in self._args or name not in BUILT_IN:
            return self._args[name]
        if name == "target":
            return self._ctx.goal.target
        return self._ctx.output_of(self._tool) if name == "output" else self._ctx.persona

    def __iter__(self) -> Iterator[str]:
        return iter({**self._args, **dict.fromkeys(self._words)})

    def __len__(self) -> int:
        return len(set(self._args) | set(self._words))

    def fill(self, choice: Choice) -> str:
        template = choice if isinstance(choice, str) else self._ctx.rng.choice(choice)
        return template.format_map(self)

    def facts(self, name: str) -> list[Fact]:
        value = self[name]
        if isinstance(value, Said):
            value = value.fact
        if isinstance(value, Fact):
            return [value]
        if isinstance(value, tuple) and all(isinstance(f, Fact) for f in value):
            return list(value)
        return [fact(name, value)]

    def value(self, name: str) -> Any:
        value = self[name]
        if isinstance(value, Said):
            return value.fact.value if isinstance(value.fact, Fact) else value.words
        return value.value if isinstance(value, Fact) else value


def say(phrase: Phrase, tool: str, hints: Any, words: Mapping[str, WordFn], args: dict[str, Any],
        ctx: TraceContext) -> Intent:
    """The `Intent` `phrase` gives for this write."""
    from tauplay.tracer.trace import Intent

    values = _Values(hints, words, tool, args, ctx)
    template = _pick(phrase, values, tool)
    action = values.fill(template.action)
    details = [values.fill(d) for d in template.details]
    reason = values.fill(template.reason)
    facts = [f for name in template.facts for f in values.facts(name)]
    situation = values.fill(template.situation)
    subject = values.fill(template.subject)
    known = {name: values.value(name) for name in template.known}
    slots = dict(values[template.slots]) if isinstance(template.slots, str) else \
        {k: values.fill(v) for k, v in template.slots.items()}
    answers = [answer(values.value(name)) for name in template.answers]
    return Intent(tool, action, details, reason=reason, facts=facts, situation=situation, subject=subject,
                  known=known, slots=slots, answers=answers)


def _pick(phrase: Phrase, values: _Values, tool: str) -> Say:
    if isinstance(phrase, Say):
        return phrase
    key = values.fill(phrase.key)
    chosen = phrase.cases.get(key, phrase.default)
    if chosen is None:
        raise LookupError(f"PHRASES['{tool}']: no template for {phrase.key} = {key!r}")
    return chosen


def unnamed_placeholder(templates: Iterator[str]) -> str:
    """'' when every placeholder of `templates` has a name, else the first template with one that has not."""
    for template in templates:
        try:
            for _, name, _, _ in string.Formatter().parse(template):
                if name is not None:
                    _root(name, template)
        except ValueError:
            return template
    return ""


def unknown_names(template: Phrase, parameters: set[str], words: set[str]) -> list[str]:
    """The names `template` reads that are neither parameters of its tool nor declared words."""
    return [n for n in dict.fromkeys(template.names()) if n not in parameters and n not in words and n not in BUILT_IN]
