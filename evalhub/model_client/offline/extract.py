"""Values found in a user message: numbers, dates, times, quoted strings, URLs, paths, places, time zones.

Each value keeps its position so that one piece of text fills one argument only, and so that labels
("latitude 48.85") and prepositions ("from Paris", "to Rome") next to it can be read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalhub.model_client.offline.text import STOP_WORDS, stem

MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
_NUMBER_NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]
NUMBER_WORDS = {word: value for value, word in enumerate([*_NUMBER_NAMES, "twelve"])}

# City → IANA time zone, for time-zone arguments given as a place ("what time is it in Tokyo").
CITY_ZONES = {
    "amsterdam": "Europe/Amsterdam", "athens": "Europe/Athens", "auckland": "Pacific/Auckland",
    "bangkok": "Asia/Bangkok", "beijing": "Asia/Shanghai", "berlin": "Europe/Berlin", "boston": "America/New_York",
    "brussels": "Europe/Brussels", "buenos aires": "America/Argentina/Buenos_Aires", "cairo": "Africa/Cairo",
    "chicago": "America/Chicago", "delhi": "Asia/Kolkata", "denver": "America/Denver", "dubai": "Asia/Dubai",
    "dublin": "Europe/Dublin", "hong kong": "Asia/Hong_Kong", "istanbul": "Europe/Istanbul",
    "jakarta": "Asia/Jakarta", "johannesburg": "Africa/Johannesburg", "lisbon": "Europe/Lisbon",
    "london": "Europe/London", "los angeles": "America/Los_Angeles", "madrid": "Europe/Madrid",
    "melbourne": "Australia/Melbourne", "mexico city": "America/Mexico_City", "moscow": "Europe/Moscow",
    "mumbai": "Asia/Kolkata", "nairobi": "Africa/Nairobi", "new york": "America/New_York", "oslo": "Europe/Oslo",
    "paris": "Europe/Paris", "rome": "Europe/Rome", "san francisco": "America/Los_Angeles",
    "sao paulo": "America/Sao_Paulo", "seattle": "America/Los_Angeles", "seoul": "Asia/Seoul",
    "shanghai": "Asia/Shanghai", "singapore": "Asia/Singapore", "stockholm": "Europe/Stockholm",
    "sydney": "Australia/Sydney", "tokyo": "Asia/Tokyo", "toronto": "America/Toronto",
    "vancouver": "America/Vancouver", "vienna": "Europe/Vienna", "warsaw": "Europe/Warsaw",
    "zurich": "Europe/Zurich",
}  # fmt: skip

# Capitalised words that are not places: sentence openers, verbs, days and months.
# fmt: off
NOT_PLACE = STOP_WORDS | frozenset(MONTHS) | frozenset([
    "book", "search", "find", "list", "read", "write", "fetch", "wait", "convert", "show", "check", "call", "tell",
    "hi", "hello", "hey", "thanks", "thank", "ok", "okay", "yes", "no", "could", "would", "can", "please", "i",
    "im", "id", "ill", "time", "weather", "flight", "flights", "forecast", "today", "tomorrow", "tonight", "monday",
    "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "utc", "gmt", "json", "html", "api", "url",
    "file",
])
# fmt: on

_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_PATTERNS = {
    "quoted": re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)|`([^`]+)`"),
    "url": re.compile(r"https?://[^\s\"'<>`]+[^\s\"'<>`.,;:!?)]"),
    "domain": re.compile(
        r"(?<![\w@/.])(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|co|edu|gov|app|fr|de|uk)(?:/[^\s]*)?\b"
    ),
    "iso_date": re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    "day_month_date": re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+(\d{{4}})\b", re.IGNORECASE),
    "month_day_date": re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE),
    "clock_time": re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)(?:\s*([ap])\.?m\b\.?)?", re.IGNORECASE),
    "ampm_time": re.compile(r"\b(1[0-2]|0?[1-9])\s*([ap])\.?m\b\.?", re.IGNORECASE),
    "zone": re.compile(
        r"\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?"
        r"|\b(?:UTC|GMT)\b"
    ),
    "path": re.compile(
        r"(?<![\w/.:])(?:~|\.{1,2})?/[\w.\-/~]*"
        r"|\b[\w\-]+(?:/[\w.\-]+)+"
        r"|\b[\w\-]+\.(?:txt|md|py|json|csv|log|ya?ml|toml|js|ts|html?|css|xml|ini|cfg|sh|pdf|png|jpe?g|rst)\b"
    ),
    # Booking references, order numbers, ticket ids: 4+ letters/digits with at least one digit, no lowercase.
    "identifier": re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{3,}(?![\w-])"),
    "glob": re.compile(r"(?<!\S)[\w.\-/]*\*[\w.\-/*?]*"),
    "number": re.compile(
        r"(?<![\w.\-])([-+\u2212]?\d+(?:\.\d+)?)(?:\s*°\s*([NSEW])?|\s?([NSEW])(?![A-Za-z]))?(?![\w°]|\.\d)"
    ),
    "number_word": re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE),
    "place": re.compile(r"\b[A-Z][\w'\u2019\-]*(?:\s+(?:(?:de|da|del|do|la|le|of|upon)\s+)?[A-Z][\w'\u2019\-]*)*"),
}


@dataclass(frozen=True)
class Found:
    value: Any
    start: int
    end: int
    # For a number: True when written as a word ("two"), which only counts next to a label.
    spelled: bool = False


@dataclass
class Extracted:
    """Every candidate value in one text, by kind, in order of appearance."""

    text: str
    used: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        t = self.text
        self.quoted = [
            Found(next(g for g in m.groups() if g is not None), m.start(), m.end()) for m in _find("quoted", t)
        ]
        self.urls = [Found(m.group(0), m.start(), m.end()) for m in _find("url", t)]
        self.urls += [
            Found("https://" + m.group(0), m.start(), m.end())
            for m in _find("domain", t)
            if not _inside(m.start(), self.urls)
        ]
        self.dates = sorted(self._dates(), key=lambda f: f.start)
        self.times = self._times()
        self.zones = [Found(m.group(0), m.start(), m.end()) for m in _find("zone", t)]
        blocked = self.quoted + self.urls
        self.paths = [
            Found(m.group(0), m.start(), m.end()) for m in _find("path", t) if not _inside(m.start(), blocked)
        ]
        self.globs = [
            Found(m.group(0), m.start(), m.end()) for m in _find("glob", t) if not _inside(m.start(), blocked)
        ]
        blocked = blocked + self.dates + self.times + self.paths + self.zones
        self.identifiers = [
            Found(m.group(0), m.start(), m.end()) for m in _find("identifier", t) if not _inside(m.start(), blocked)
        ]
        self.numbers = [n for n in self._numbers() if not _inside(n.start, blocked)]
        self.places = [p for p in self._places() if not _inside(p.start, blocked)]

    def take(self, candidates: list[Found], fits: Callable[[Any], bool] | None = None) -> Found | None:
        """The first candidate not used yet (and accepted by `fits`), now marked as used."""
        for found in candidates:
            if self.is_free(found) and (fits is None or fits(found.value)):
                self.mark(found)
                return found
        return None

    def is_free(self, found: Found) -> bool:
        return not any(found.start < b and a < found.end for a, b in self.used)

    def mark(self, found: Found) -> None:
        self.used.append((found.start, found.end))

    def word_before(self, found: Found) -> str:
        """The word just before a value, e.g. the preposition in "from Paris"."""
        before = re.findall(r"[A-Za-z]+", self.text[max(0, found.start - 40) : found.start])
        return before[-1].lower() if before else ""

    def _dates(self) -> list[Found]:
        t = self.text
        dates = [Found(m.group(0), m.start(), m.end()) for m in _find("iso_date", t)]
        for m in _find("day_month_date", t):
            dates.append(Found(_iso(m.group(3), m.group(2), m.group(1)), m.start(), m.end()))
        for m in _find("month_day_date", t):
            dates.append(Found(_iso(m.group(3), m.group(1), m.group(2)), m.start(), m.end()))
        return dates

    def _times(self) -> list[Found]:
        t = self.text
        times = []
        for m in _find("clock_time", t):
            times.append(Found(_clock(int(m.group(1)), int(m.group(2)), m.group(3)), m.start(), m.end()))
        for m in _find("ampm_time", t):
            if not _inside(m.start(), times):
                times.append(Found(_clock(int(m.group(1)), 0, m.group(2)), m.start(), m.end()))
        return sorted(times, key=lambda f: f.start)

    def _numbers(self) -> list[Found]:
        numbers = []
        for m in _find("number", self.text):
            text = m.group(1).replace("\u2212", "-")
            value: float | int = float(text) if "." in text else int(text)
            if (m.group(2) or m.group(3) or "").upper() in {"S", "W"}:
                value = -value
            numbers.append(Found(value, m.start(), m.end()))
        for m in _find("number_word", self.text):
            numbers.append(Found(NUMBER_WORDS[m.group(1).lower()], m.start(), m.end(), spelled=True))
        return sorted(numbers, key=lambda f: f.start)

    def _places(self) -> list[Found]:
        places = []
        for m in _find("place", self.text):
            parts = [(w.start(), w.end(), w.group(0)) for w in re.finditer(r"\S+", m.group(0))]
            # Drop openers and verbs around the name: "Book Paris" → "Paris", "Tokyo Time" → "Tokyo".
            while parts and _not_place(parts[0][2]):
                parts.pop(0)
            while parts and _not_place(parts[-1][2]):
                parts.pop()
            if parts:
                start, end = m.start() + parts[0][0], m.start() + parts[-1][1]
                name = re.sub(r"['\u2019]s$", "", self.text[start:end])
                places.append(Found(name, start, end))
        return places


def _not_place(word: str) -> bool:
    lowered = re.sub(r"['\u2019]", "", re.sub(r"['\u2019]s$", "", word)).lower()  # I'm → im, I'd → id
    return lowered in NOT_PLACE or stem(lowered) in NOT_PLACE or lowered in {"de", "da", "del", "do", "la", "le"}


def _find(kind: str, text: str) -> list[re.Match[str]]:
    return list(_PATTERNS[kind].finditer(text))


def _inside(position: int, spans: list[Found]) -> bool:
    return any(f.start <= position < f.end for f in spans)


def _iso(year: str, month: str, day: str) -> str:
    month_number = next(i for i, name in enumerate(MONTHS, 1) if name.startswith(month.lower()[:3]))
    return f"{int(year):04d}-{month_number:02d}-{int(day):02d}"


def _clock(hour: int, minute: int, meridiem: str | None) -> str:
    if meridiem and meridiem.lower() == "p" and hour < 12:
        hour += 12
    if meridiem and meridiem.lower() == "a" and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"


def zone_for(place: str) -> str | None:
    """The IANA zone of a place the offline model knows, or the zone itself if it is one."""
    if "/" in place or place.upper() in {"UTC", "GMT"}:
        return place
    return CITY_ZONES.get(place.lower())
