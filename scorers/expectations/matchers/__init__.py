"""Value matchers: a closed set of `$`-matchers and `match(expected, actual)`, where a value differs from what was
expected. One module per family (`basic`, `containment`, `distance`, `documents`, `compose`, `snapshot`), declared
with `base.Matcher`, listed in `registry`, applied and validated by `engine`.
"""

from __future__ import annotations

from scorers.expectations.matchers.base import (
    MatchContext,
    Matcher,
    MatchMode,
    Mismatch,
    Snapshots,
    join_path,
    matcher_of,
    regex_problem,
    suggestion,
)
from scorers.expectations.matchers.engine import check_value, describe_value, match
from scorers.expectations.matchers.registry import MATCHERS, REGISTRY

__all__ = [
    "MATCHERS",
    "REGISTRY",
    "MatchContext",
    "MatchMode",
    "Matcher",
    "Mismatch",
    "Snapshots",
    "check_value",
    "describe_value",
    "join_path",
    "match",
    "matcher_of",
    "regex_problem",
    "suggestion",
]
