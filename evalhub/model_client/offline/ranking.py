"""Which offered tool a request is about: weighted word overlap, and the request cut into steps."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalhub.model_client.offline.text import content_words, message_terms, split_clauses, words

# A word of the tool's name counts 3, of its title 2, of its description or a parameter name 1; naming the
# tool verbatim ("use read_file") adds 5, and an http(s) link adds 3 to a tool with a required URL. A tool is
# called only from THRESHOLD up: one name word, or three lesser words.
NAME_WEIGHT, TITLE_WEIGHT, OTHER_WEIGHT, VERBATIM_BONUS, URL_BONUS = 3, 2, 1, 5, 3
THRESHOLD = 3
_URL = re.compile(r"https?://\S+")


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    schema: dict[str, Any]

    @classmethod
    def from_openai(cls, tool: dict[str, Any]) -> Tool | None:
        function = tool.get("function") if tool.get("type", "function") == "function" else None
        if not isinstance(function, dict) or not function.get("name"):
            return None
        schema = function.get("parameters")
        return cls(
            name=str(function["name"]),
            title=str(function.get("title") or ""),
            description=str(function.get("description") or ""),
            schema=schema if isinstance(schema, dict) else {},
        )

    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        props = self.schema.get("properties")
        return {k: v for k, v in props.items() if isinstance(v, dict)} if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        required = self.schema.get("required")
        return [r for r in required if r in self.properties] if isinstance(required, list) else []

    def vocabulary(self) -> dict[str, int]:
        weights: dict[str, int] = {}
        for text, weight in (
            (" ".join(self.properties), OTHER_WEIGHT),
            (self.description, OTHER_WEIGHT),
            (self.title, TITLE_WEIGHT),
            (self.name, NAME_WEIGHT),
        ):
            for word in content_words(text):
                weights[word] = max(weights.get(word, 0), weight)
        return weights


@dataclass(frozen=True)
class Score:
    tool: Tool
    points: int
    name_hits: int
    unique_name_hits: int = 0


def score(tool: Tool, text: str, other_names: set[str] | None = None) -> Score:
    """Points of `tool` for `text`; `other_names` are the name words of the other offered tools."""
    vocabulary = tool.vocabulary()
    terms = message_terms(text)
    points = sum(vocabulary.get(term, 0) for term in terms)
    if re.search(rf"(?<![\w-]){re.escape(tool.name)}(?![\w-])", text, re.IGNORECASE):
        points += VERBATIM_BONUS
    if _URL.search(text) and _takes_url(tool):
        points += URL_BONUS  # a link is as clear a request for a URL-taking tool as its name
    name_hits = set(content_words(tool.name)) & terms
    return Score(tool, points, len(name_hits), len(name_hits - (other_names or set())))


def _takes_url(tool: Tool) -> bool:
    return any(
        set(words(name)) & {"url", "uri", "link"} or tool.properties[name].get("format") == "uri"
        for name in tool.required
    )


def rank(tools: list[Tool], text: str) -> list[Score]:
    """Best first; ties go to more name words that no other tool's name has ("directory" beats "file"
    when three tools are about files), then to more name words, then to the order offered."""
    names = [set(content_words(tool.name)) for tool in tools]
    scores = [
        score(tool, text, set().union(*(n for j, n in enumerate(names) if j != i))) for i, tool in enumerate(tools)
    ]
    order = sorted(
        range(len(scores)), key=lambda i: (-scores[i].points, -scores[i].unique_name_hits, -scores[i].name_hits, i)
    )
    return [scores[i] for i in order]


def best_tool(tools: list[Tool], text: str, prefer: Callable[[Tool], bool] | None = None) -> Tool | None:
    """The top tool from THRESHOLD up. Among tools tied on points, `prefer` ("its required arguments can
    all be filled") comes before the other tie-breaks."""
    ranked = rank(tools, text)
    if not ranked or ranked[0].points < THRESHOLD:
        return None
    tied = [s.tool for s in ranked if s.points == ranked[0].points]
    if prefer is not None:
        return next((tool for tool in tied if prefer(tool)), tied[0])
    return tied[0]


@dataclass(frozen=True)
class Step:
    """One part of the request and the tool that serves it."""

    tool: Tool
    text: str


def plan(tools: list[Tool], request: str, prefer: Callable[[Tool, str], bool] | None = None) -> list[Step]:
    """Cut the request at "and"/"then" into steps, one tool each.

    A clause that matches no tool ("and longitude 2.35") belongs to the step before it (or the first step);
    neighbouring clauses that match the same tool are one step.
    """
    steps: list[Step] = []
    leading: list[str] = []
    for clause in split_clauses(request):
        tool = best_tool(tools, clause, _bind(prefer, clause))
        if tool is None or (steps and steps[-1].tool == tool):
            if steps:
                steps[-1] = Step(steps[-1].tool, f"{steps[-1].text}, {clause}")
            else:
                leading.append(clause)
            continue
        steps.append(Step(tool, ", ".join([*leading, clause])))
        leading = []
    if not steps:
        # No single clause was enough; the request as a whole may still be.
        tool = best_tool(tools, request, _bind(prefer, request))
        if tool is not None:
            steps.append(Step(tool, request))
    return steps


def _bind(prefer: Callable[[Tool, str], bool] | None, text: str) -> Callable[[Tool], bool] | None:
    return None if prefer is None else (lambda tool: prefer(tool, text))
