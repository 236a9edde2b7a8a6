"""Every matcher, by name, in the order an editor lists them: values, text, documents, composition, snapshot."""

from __future__ import annotations

from scorers.expectations.matchers import basic, compose, containment, distance, documents, snapshot
from scorers.expectations.matchers.base import Matcher

REGISTRY: dict[str, Matcher] = {
    matcher.name: matcher
    for matcher in [
        *basic.MATCHERS[:4],  # $type, $regex, $range, $icontains
        *containment.MATCHERS,
        *basic.MATCHERS[4:],  # $startsWith, $oneOf, $equals, $any
        *distance.MATCHERS,
        *documents.MATCHERS,
        *compose.MATCHERS,
        *snapshot.MATCHERS,
    ]
}

# Name → one line an editor and the docs show.
MATCHERS: dict[str, str] = {name: matcher.description for name, matcher in REGISTRY.items()}

# Stateful: a negation or a composition of a snapshot would change what is stored by what is negated (mcptest
# refuses it too), so it stands on its own.
STATEFUL = ("$snapshot",)
