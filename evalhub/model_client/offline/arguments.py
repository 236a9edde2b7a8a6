"""Fill a tool's arguments from the user's words, guided by its JSON input schema. Never invents a value."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalhub.model_client.offline.extract import Extracted, Found, zone_for
from evalhub.model_client.offline.ranking import Tool
from evalhub.model_client.offline.text import stem, words

# Extra words that label a number or flag for an argument whose name contains the key: "2 people" → passengers.
LABELS = {
    "latitude": ["lat"],
    "longitude": ["lon", "lng", "long"],
    "passenger": ["people", "person", "adult", "traveler", "traveller", "seat", "ticket", "pax", "guest"],
    "second": ["sec", "secs"],
    "minute": ["min", "mins"],
    "length": ["character", "char", "chars"],
    "limit": ["result", "item"],
    "count": ["result", "item"],
}
FROM_ROLE = {"origin", "from", "source", "src", "departure", "depart", "start"}
TO_ROLE = {"destination", "dest", "to", "target", "arrival", "arrive", "end"}
PLACE_NAMES = FROM_ROLE | TO_ROLE | {"city", "location", "place", "country", "region", "town", "airport", "where"}
PATH_NAMES = {"path", "file", "filename", "filepath", "dir", "directory", "folder"}
PATTERN_NAMES = {"pattern", "glob", "query", "regex", "search", "keyword", "term", "filter", "q"}
IDENTIFIER_NAMES = {"id", "identifier", "reference", "ref", "code", "number", "confirmation"}
_FILLERS = {"of", "is", "are", "be", "equal", "equals", "to", "at", "about", "around", "approximately", "for", "on"}
_FILLERS |= {"a", "an", "the", "with", "roughly", "exactly", "and"}
_NEGATIONS = {"no", "not", "without", "dont", "don't", "disable", "never"}
_PHRASE_KEYWORDS = [
    "matching", "named", "called", "containing", "saying", "that says",
    "with the text", "with text", "with content", "with the content", "about", "for",
]  # fmt: skip
_CURRENT_DIRECTORY = re.compile(r"\b(current|this|working) (directory|folder|dir)\b|\bhere\b", re.IGNORECASE)
# Which kinds are filled first: specific shapes before free text, so a date is never taken as a name.
_ORDER = [
    "url",
    "date",
    "time",
    "timezone",
    "path",
    "identifier",
    "place",
    "enum",
    "boolean",
    "number",
    "text",
    "array",
]


@dataclass(frozen=True)
class Filled:
    arguments: dict[str, Any]
    missing: list[str]


def fill_arguments(tool: Tool, text: str, context: str | None = None) -> Filled:
    """Arguments for `tool` from `text` (this step of the request). Required arguments still missing are
    then looked for in `context` (the whole request), except numbers, which are only read from the step."""
    props = tool.properties
    required = set(tool.required)
    arguments = _fill(props, Extracted(text), required=required, numbers=True)
    missing = [name for name in tool.required if name not in arguments]
    if missing and context and context != text:
        again = _fill(
            {k: props[k] for k in missing}, Extracted(context), required=required, numbers=False, taken=arguments
        )
        arguments.update(again)
    ordered = {name: arguments[name] for name in props if name in arguments}
    return Filled(ordered, [name for name in tool.required if name not in ordered])


def kind_of(name: str, schema: dict[str, Any]) -> str:
    name_words = set(words(name))
    description = str(schema.get("description") or "").lower()
    kind = _type(schema)
    if "enum" in schema:
        return "enum"
    if kind in {"integer", "number"}:
        return "number"
    if kind in {"boolean", "array"}:
        return kind
    if kind not in {"string", None}:
        return "unsupported"
    if schema.get("format") in {"uri", "url"} or name_words & {"url", "uri", "link", "href", "endpoint", "website"}:
        return "url"
    if name_words & {"timezone", "tz", "zone"} or "time zone" in description:
        return "timezone"
    if schema.get("format") == "date" or "date" in name_words or re.search(r"\bdate\b|yyyy-mm-dd", description):
        return "date"
    if schema.get("format") == "time" or name_words & {"time", "hour"} or "hh:mm" in description:
        return "time"
    if name_words & PATH_NAMES:
        return "path"
    if name_words & PLACE_NAMES:
        return "place"
    if name_words & IDENTIFIER_NAMES:
        return "identifier"
    return "text"


def role_of(name: str) -> str | None:
    name_words = set(words(name))
    if name_words & FROM_ROLE:
        return "from"
    if name_words & TO_ROLE:
        return "to"
    return None


def _type(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and isinstance(schema.get("anyOf"), list):
        kind = next((_type(s) for s in schema["anyOf"] if isinstance(s, dict) and _type(s) != "null"), None)
    return kind if isinstance(kind, str) else None


def _fill(
    props: dict[str, dict[str, Any]],
    ex: Extracted,
    *,
    required: set[str],
    numbers: bool,
    taken: dict[str, Any] | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    taken_values = set(map(str, (taken or {}).values()))
    for value_list in (ex.places, ex.zones, ex.dates, ex.paths, ex.urls, ex.quoted):
        for candidate in value_list:
            if str(candidate.value) in taken_values or zone_for(str(candidate.value)) in taken_values:
                ex.mark(candidate)
    kinds = {name: kind_of(name, schema) for name, schema in props.items()}
    for kind in _ORDER:
        # A list is filled only when required: any quoted string would fit an optional one.
        names = [n for n in props if kinds[n] == kind and (kind != "array" or n in required)]
        if not names or (kind == "number" and not numbers):
            continue
        if kind in {"place", "timezone"}:
            found.update(_roles(names, props, _place_candidates(ex, kind), ex))
        elif kind == "number":
            found.update(_numbers(names, props, ex, required))
        else:
            for name in names:
                value = _single(kind, name, props[name], ex)
                if value is not None:
                    found[name] = value
    return found


def _single(kind: str, name: str, schema: dict[str, Any], ex: Extracted) -> Any:
    fits = _accepts(schema)
    if kind == "url":
        quoted_urls = [q for q in ex.quoted if re.match(r"https?://", q.value)]
        return _value(ex.take(quoted_urls, fits) or ex.take(ex.urls, fits))
    if kind == "date":
        return _value(ex.take(ex.dates, fits))
    if kind == "time":
        return _value(ex.take(ex.times, fits))
    if kind == "path":
        path_like = [q for q in ex.quoted if "*" not in q.value and re.search(r"[/\\~]|\.\w{1,5}$", q.value)]
        found = ex.take(path_like, fits) or ex.take(ex.paths, fits)
        if found is None and _CURRENT_DIRECTORY.search(ex.text) and fits("."):
            return "."
        return _value(found)
    if kind == "identifier":
        return _value(ex.take(ex.quoted, fits) or ex.take(ex.identifiers, fits))
    if kind == "enum":
        return _enum(schema, ex)
    if kind == "boolean":
        return _boolean(name, ex)
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, dict) and _type(items) == "string":
            values = [f.value for f in ex.quoted + ex.paths if ex.is_free(f) and _accepts(items)(f.value)]
            return values or None
        return None
    if kind == "text":
        candidates = list(ex.quoted)
        if set(words(name)) & PATTERN_NAMES:
            candidates += ex.globs
        return _value(ex.take(candidates, fits)) or _phrase(ex, fits)
    return None


def _accepts(schema: dict[str, Any]) -> Callable[[Any], bool]:
    """Whether a found string honours the argument's pattern and length limits: a city is no IATA code."""
    pattern = schema.get("pattern")
    min_length, max_length = schema.get("minLength"), schema.get("maxLength")

    def fits(value: Any) -> bool:
        text = str(value)
        if isinstance(min_length, int) and len(text) < min_length:
            return False
        if isinstance(max_length, int) and len(text) > max_length:
            return False
        if isinstance(pattern, str):
            try:
                return re.search(pattern, text) is not None
            except re.error:
                return True  # an ECMA-only pattern Python cannot read: let the server judge
        return True

    return fits


def _value(found: Found | None) -> Any:
    return None if found is None else found.value


def _place_candidates(ex: Extracted, kind: str) -> list[Found]:
    if kind == "place":
        return ex.places
    candidates = list(ex.zones)
    for place in ex.places:
        zone = zone_for(place.value)
        if zone:
            candidates.append(Found(zone, place.start, place.end))
    return sorted(candidates, key=lambda f: f.start)


def _roles(
    names: list[str], props: dict[str, dict[str, Any]], candidates: list[Found], ex: Extracted
) -> dict[str, Any]:
    """ "from X" fills origin-like arguments, "to Y" destination-like ones, "in/at Z" the others; what is
    left goes in order of appearance."""

    def take(name: str, prepositions: set[str] | None) -> Found | None:
        fits = _accepts(props[name])
        for found in candidates:
            near = prepositions is None or ex.word_before(found) in prepositions
            if near and ex.is_free(found) and fits(found.value):
                ex.mark(found)
                return found
        return None

    result: dict[str, Any] = {}
    for name in sorted(names, key=lambda n: {"from": 0, "to": 1}.get(role_of(n) or "", 2)):
        role = role_of(name)
        found = take(name, _PREPOSITIONS.get(role or "", {"in", "at", "near", "for"}))
        if found is not None:
            result[name] = found.value
    for name in names:
        if name not in result and (found := take(name, None)) is not None:
            result[name] = found.value
    return result


_PREPOSITIONS = {"from": {"from"}, "to": {"to", "into", "towards"}}


def _numbers(
    names: list[str], props: dict[str, dict[str, Any]], ex: Extracted, required_names: set[str]
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    labels = {name: _label_stems(name) for name in names}
    free = [n for n in ex.numbers if ex.is_free(n)]
    for number in free:
        name = _labelled(number, ex, labels, before=True) or _labelled(number, ex, labels, before=False)
        if name and name not in result and _number_fits(number.value, props[name]):
            result[name] = number.value
            ex.mark(number)
    # Unlabelled numbers fill the required number arguments still empty, in order of appearance.
    required = [n for n in names if n not in result and n in required_names]
    for name in required:
        for number in ex.numbers:
            if not number.spelled and ex.is_free(number) and _number_fits(number.value, props[name]):
                result[name] = number.value
                ex.mark(number)
                break
    return result


def _number_fits(value: float, schema: dict[str, Any]) -> bool:
    return _type(schema) != "integer" or float(value).is_integer()


def _label_stems(name: str) -> set[str]:
    stems = {stem(w) for w in words(name)}
    for word in words(name):
        stems |= {stem(label) for label in LABELS.get(stem(word), []) + LABELS.get(word, [])}
    return stems - {"max", "min", "num", "number"}


def _labelled(number: Found, ex: Extracted, labels: dict[str, set[str]], *, before: bool) -> str | None:
    if before:
        nearby = [w for w in re.findall(r"[A-Za-z_]+", ex.text[max(0, number.start - 40) : number.start])]
        while nearby and nearby[-1].lower() in _FILLERS:
            nearby.pop()
        nearby = nearby[-1:]
    else:
        # The word right after, or the one after that when the first is a qualifier ("2 adult passengers");
        # a filler ends the search so that "one for 2 passengers" does not label "one".
        nearby = re.findall(r"[A-Za-z_]+", ex.text[number.end : number.end + 30])[:2]
        if nearby and nearby[0].lower() in _FILLERS:
            nearby = []
    for word in nearby:
        for name, stems in labels.items():
            if stem(word.lower()) in stems or any(stem(w) in stems for w in words(word)):
                return name
    return None


def _enum(schema: dict[str, Any], ex: Extracted) -> Any:
    best: tuple[int, Any] | None = None
    for option in schema.get("enum") or []:
        spelled = str(option)
        pattern = r"(?<!\w)(" + re.escape(spelled) + "|" + re.escape(re.sub(r"[_-]", " ", spelled)) + r")(?!\w)"
        for match in re.finditer(pattern, ex.text, re.IGNORECASE):
            found = Found(option, match.start(), match.end())
            if ex.is_free(found) and (best is None or match.start() < best[0]):
                best = (match.start(), option)
            break
    return None if best is None else best[1]


def _boolean(name: str, ex: Extracted) -> bool | None:
    stems = _label_stems(name)
    tokens = re.findall(r"[A-Za-z_']+", ex.text)
    for index, token in enumerate(tokens):
        if stem(token.lower()) in stems or token.lower() == name.lower():
            following = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
            if following in {"true", "yes", "on"}:
                return True
            if following in {"false", "no", "off"}:
                return False
            return not (index > 0 and tokens[index - 1].lower() in _NEGATIONS)
    return None


def _phrase(ex: Extracted, fits: Callable[[Any], bool]) -> str | None:
    """Free text after a keyword: "files named report", "a note saying hello world"."""
    for keyword in _PHRASE_KEYWORDS:
        match = re.search(
            rf"\b{keyword}\s+(.+?)(?=\s+(?:in|under|inside|within|from|into|to|on)\s+\S|[.?!]*$)",
            ex.text,
            re.IGNORECASE,
        )
        if match:
            phrase = match.group(1).strip(" \"'`,")
            found = Found(phrase, match.start(1), match.end(1))
            if phrase and ex.is_free(found) and fits(phrase):
                ex.mark(found)
                return phrase
    return None
