"""`evalhub-offline`: a built-in, deterministic, rule-based model for smoke-testing MCP servers without an API key.

It speaks the OpenAI Chat Completions wire format and is reached through the same openai SDK code path as a
real provider: `handle_chat_completion(request_json) -> response_json` is a pure function, served in-process
by `OfflineTransport` (an httpx transport) at the base URL http://evalhub-offline.local/v1, or by a Django
view. It is not an LLM: it reads the latest user message with the rules below and nothing else.

Requests
    `model` must be "evalhub-offline" (else 404 model_not_found, like OpenAI). `stream` is refused (400).
    `tools`, `tool_choice` ("auto", "none", "required" or one named function), `response_format` and
    `max_tokens`/`max_completion_tokens` are honoured as described below; other parameters are ignored.

1. Choosing a tool (when tools are offered)
    Words are lowercased, split at snake_case, kebab-case and camelCase, stripped of a short stop-word list
    ("the", "get", "please", "current"...) and of plural/-ing/-ed endings. A few message words stand for
    tool words: temperature/forecast/rain → weather; fly/plane → flight; reserve → book; find/look → search;
    folder → directory; open/view/cat → read; save → write; download/retrieve → fetch; website/page/link →
    url; sleep/pause → wait; clock/hour → time.
    Each tool scores the words of the latest user message it shares: 3 per word of its name, 2 of its
    title, 1 of its description or a parameter name; naming the tool verbatim ("use read_file") adds 5,
    and an http(s) link in the message adds 3 to a tool with a required URL argument. A tool is called
    only with a score of at least 3 (one name word, or three lesser words). Ties go to the tool whose
    required arguments can all be filled, then to the one with more name words that no other offered
    tool's name has ("directory" beats "file" when three tools are about files), then to more name words,
    then to the tool offered first. No tool from 3 up → a text answer saying no tool fits (this is what
    tool-restraint scenarios expect).

2. Several requests in one message
    The message is cut at "and", "then", "and then", "after that", ";" and sentence ends (never inside
    quotes). Each clause is scored on its own; a clause that matches no tool ("... and longitude 2.35")
    belongs to the step before it (or, before the first step, to the first step), and neighbouring
    clauses matching the same tool are one step. The model calls one tool per response, the steps in
    order; a tool already called since the last user message is not called again.

3. Filling arguments, by the tool's input schema (a value is used for one argument only)
    - url (named url/uri/link or format uri): an http(s) URL, or a bare domain such as example.com with
      https:// added.
    - date (named or described "date", or format date): an ISO date YYYY-MM-DD, or "June 1, 2025" /
      "1 June 2025" (a year is needed: "tomorrow" is never guessed).
    - time (named time/hour, or described HH:MM): "14:30", "3pm", "3:30 pm" → "15:30".
    - time zone (named timezone/tz/zone): an IANA name ("Europe/Paris"), UTC/GMT, or one of ~45 known
      cities ("Tokyo" → "Asia/Tokyo").
    - path (named path/file/dir/directory/folder): a quoted path, /absolute, ~/home, relative/with/slashes
      or name.ext; "current directory" or "here" → ".".
    - place (named city/location/place/country/origin/destination/from/to/source/target...): capitalised
      words ("New York") or IATA codes ("CDG") that are not stop words, request verbs, days or months. Arguments
      named like origin/from/source take the place after "from"; destination/to/target the place after
      "to"/"into"; others the place after "in"/"at"/"near"/"for"; what is left goes in order.
    - identifier (named id/reference/ref/code/number/confirmation): a quoted string, or a token of 4+
      capitals and digits with at least one digit ("ABC123", "12345").
    - enum: an allowed value mentioned in the message (case-insensitive, "_" read as a space).
    - number/integer: a number labelled by the argument's name first — the word before it ("latitude
      48.85", "lat: -33.9") wins over the word after it ("2 passengers", "2 adult passengers"; a filler such
      as "for" after a number ends the search). A few label synonyms: lat, lon/lng, people/adults/seats
      for passengers, sec for seconds, characters for length. An S or W after a number (with or without
      a degree sign) makes it negative. Unlabelled numbers then fill the REQUIRED number arguments in
      order of appearance ("48.85, 2.35"). Integers must be whole. Number words (zero … twelve) count only
      next to a label ("three people").
    - boolean: yes/no/true/false after the argument's name; its name alone means true, and after
      "no"/"not"/"without" false.
    - other strings (query, pattern, content...): a quoted string; for pattern-like names a glob ("*.py");
      else the words after "matching", "named", "called", "containing", "saying", "about" or "for", up to
      a following "in/under/from/to/on <something>".
    - array of strings, only when required: every quoted string and path left.
    A string value is used only if it matches the argument's `pattern`, `minLength` and `maxLength`, so a
    city is not passed where a 3-letter airport code is asked for.
    Required arguments still missing after the step's own clause are looked for in the whole message
    (except numbers). If a REQUIRED argument cannot be filled, the tool is not called: the answer asks
    for exactly the missing ones — "To call book_flight I need: origin, date, passengers. Please tell me."
    Values are never invented.

4. After tool results (role "tool" messages after the last user message)
    The next pending step is called if there is one (if it lacks a required argument, the summary below
    is followed by the question for it); otherwise the answer summarises every result in order: "Here
    is what I found. get_weather returned temperature 21.5, condition Sunny." JSON results are flattened
    to their key values (lists to their first three items); text is quoted up to 300 characters. A
    result is an error when it is JSON with "isError": true or an "error" key, text starting with
    Error/Exception/Traceback/Failed (or "SomethingError:"), or non-JSON text whose first 120 characters
    say error, fail, not found, no ... found, unknown, invalid, cannot, unable to, denied or refused (the
    OpenAI tool message has no isError flag); then the answer says "<tool> failed: <message>." and stops,
    naming the step it did not take.

5. Without tools, or with tool_choice "none"
    A short fixed answer quoting the request. With `response_format` {"type": "json_schema"}, the content
    is the smallest valid JSON for the schema: first enum value, 0 (or the minimum), false, "" (a fixed
    sentence for properties named reason/explanation/rationale), every property filled, $ref/anyOf
    followed — so a judge schema {label: enum, reason: string} gets a valid verdict. {"type":
    "json_object"} gives {"answer": "<text>"}. A text longer than max_tokens is cut, finish_reason
    "length".

6. Usage and determinism
    prompt_tokens = Σ ⌈characters/4⌉ over each message's text and tool_calls JSON, plus the tools JSON;
    completion_tokens = ⌈characters/4⌉ of the answer (or of the tool name + arguments JSON); cached 0.
    The model is free: cost 0, not unknown. The same request always gets the same response: ids are
    hashes of the request, `created` is 0, `system_fingerprint` names the rules version.

7. Code mode (offline/code_mode.py)
    When the only tool offered is `run_code` (EvalHub's code mode), the typed JavaScript API in its
    description is read back into tools and the rules above choose as usual; a tool call is written as a
    program, `const result = await tools.NAME({...}); return result;`.
    An earlier `run_code` call counts as a call of the tool its program called, its result as the
    "Return value: …" the program sent back.
8. Conversations
    A user message that follows the model's own question for missing arguments (an answer ending "Please tell
    me.") answers it: the request read is the earlier request with that message after it, so "origin: London;
    date: 2026-12-18; passengers: 2." completes "Book me a flight to Paris". A request whose system message starts
    with "You are playing the user in a conversation with an AI assistant." asks the model to play a simulated
    user (runs/conversation/simulator.py); the rules are in `simulated_user.py`: it gives the facts the agent's
    latest answer asks for by name, "name: value; …", and replies DONE when it asks for none.

Known limitations (tests/evalhub/model_client/fixtures/offline_prompts.json lists them; bench/offline_accuracy.py
reports them): no geocoding (a city is not turned into latitude/longitude, so the weather tool asks for
them); free text without quotes or a keyword is not picked up ("write hello to notes.txt"); a request
needs a tool word ("what's in /tmp" calls nothing); a tool is called once per turn ("time in Tokyo and in
London" makes one call); a request that implies a tool without its words ("if it's 18:00 in Paris, what
time is it in New York") picks the wrong one; labels shared by two number arguments ("character 5000"
for start_index vs max_length) go to the first; relative dates ("tomorrow") are never resolved.
"""

from __future__ import annotations

from evalhub.model_client.config import ProviderConfig
from evalhub.model_client.offline.model import OFFLINE_MODEL, RULES_VERSION, OfflineModelError, handle_chat_completion
from evalhub.model_client.offline.transport import OFFLINE_BASE_URL, OFFLINE_HOST, OfflineTransport, is_offline_url

__all__ = [
    "OFFLINE_BASE_URL",
    "OFFLINE_HOST",
    "OFFLINE_MODEL",
    "RULES_VERSION",
    "OfflineModelError",
    "OfflineTransport",
    "handle_chat_completion",
    "is_offline_url",
    "offline_config",
]


def offline_config(name: str = "EvalHub offline") -> ProviderConfig:
    """The provider settings of the built-in offline model (ProviderClient gives it a single attempt)."""
    return ProviderConfig(name=name, base_url=OFFLINE_BASE_URL, transport=OfflineTransport())
