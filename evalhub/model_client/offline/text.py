"""Words for the offline model: tokenising, stemming, stop words, synonyms and clause splitting."""

from __future__ import annotations

import re

# fmt: off
STOP_WORDS = frozenset([
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can",
    "could", "current", "currently", "do", "does", "for", "from", "function", "get", "give", "given", "go", "going",
    "had", "has", "have", "here", "how", "i", "if", "in", "into", "is", "it", "its", "just", "know", "let", "lets",
    "like", "make", "me", "my", "need", "now", "of", "on", "or", "our", "out", "please", "provided", "return",
    "returns", "right", "set", "should", "show", "so", "some", "specific", "specified", "than", "that", "the",
    "their", "them", "then", "there", "these", "this", "those", "to", "tool", "too", "up", "us", "use", "using",
    "via", "want", "was", "we", "what", "whats", "when", "where", "which", "who", "will", "with", "would", "you",
    "your",
])
# fmt: on

# Message words that mean a tool word (both sides stemmed). Small on purpose: every entry is documented
# behaviour of the offline model.
SYNONYMS = {
    "temperature": "weather",
    "forecast": "weather",
    "rain": "weather",
    "sunny": "weather",
    "umbrella": "weather",
    "fly": "flight",
    "plane": "flight",
    "airline": "flight",
    "reserve": "book",
    "reservation": "book",
    "find": "search",
    "look": "search",
    "lookup": "search",
    "folder": "directory",
    "dir": "directory",
    "ls": "list",
    "open": "read",
    "view": "read",
    "cat": "read",
    "display": "read",
    "save": "write",
    "download": "fetch",
    "retrieve": "fetch",
    "grab": "fetch",
    "scrape": "fetch",
    "webpage": "url",
    "website": "url",
    "page": "url",
    "link": "url",
    "sleep": "wait",
    "pause": "wait",
    "clock": "time",
    "hour": "time",
}


def stem(word: str) -> str:
    """A tiny suffix stripper, applied alike to message and tool words, so only consistency matters."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses") or re.search(r"(s|x|z|ch|sh)es$", word):
        word = word[:-2]
    elif word.endswith("s") and not re.search(r"(ss|us|is)$", word):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # getting → get, but not spelling → spel
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lowercase words, splitting snake_case, kebab-case and camelCase; digits-only tokens are dropped."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w and not w.isdigit()]


def content_words(text: str) -> list[str]:
    """Stemmed words without stop words or one-letter words."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS and len(w) > 1]


def message_terms(text: str) -> set[str]:
    """The stems of a user message, plus the tool words its synonyms stand for."""
    terms = set(content_words(text))
    return terms | {_SYNONYM_STEMS[t] for t in terms if t in _SYNONYM_STEMS}


_SYNONYM_STEMS = {stem(k): stem(v) for k, v in SYNONYMS.items()}

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)|`[^`]*`")
_SEPARATOR = re.compile(
    r"\s*(?:,?\s*\b(?:and then|and also|after that|afterwards|then|and)\b|;|(?<=[a-z][.!?])\s+(?=[A-Z]))\s*",
    re.IGNORECASE,
)


def split_clauses(text: str) -> list[str]:
    """Split a request at "and", "then", "and then", ";" and sentence ends, never inside quotes."""
    protected = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]
    clauses: list[str] = []
    start = 0
    for match in _SEPARATOR.finditer(text):
        if any(a <= match.start() < b for a, b in protected):
            continue
        clauses.append(text[start : match.start()])
        start = match.end()
    clauses.append(text[start:])
    return [c.strip(" ,.") for c in clauses if c.strip(" ,.")]
