"""The size caps on what a run records (runs/record_limits.py): head kept, marker, full size and hash."""

from __future__ import annotations

import hashlib
import json

from runs.record_limits import FLOOR_BYTES, cap_json, cap_text, compact_json, marker


class CapTextTests:
    def test_text_within_the_limit_is_kept_whole(self) -> None:
        capped = cap_text("héllo", 8)  # as stored: a JSON string, quotes included

        assert (capped.value, capped.size, capped.cut) == ("héllo", 8, None)

    def test_longer_text_keeps_its_head_a_marker_its_full_size_and_hash(self) -> None:
        text = "abcdefghij" * 1000  # 10,000 bytes

        capped = cap_text(text, 1000)

        assert capped.value == text[:952] + "…truncated 9048 bytes"
        assert capped.size == len(capped.value.encode()) + 2 <= 1000
        assert capped.cut == {"bytes": 10_000, "sha256": hashlib.sha256(text.encode()).hexdigest()}

    def test_escapes_count_as_stored(self) -> None:
        text = "line\n" * 1000  # 5 bytes a line, 6 once escaped in JSON

        capped = cap_text(text, 1000)

        head = capped.value.split("…truncated")[0]
        assert capped.value == head + marker(5000 - len(head)) and text.startswith(head)
        assert 900 < capped.size == len(compact_json(capped.value)) <= 1000

    def test_a_character_is_never_cut_in_half(self) -> None:
        text = "é" * 1000  # 2 bytes each: a cut at an odd byte drops the half character

        capped = cap_text(text, 101)

        assert capped.value == "é" * 26 + marker(2000 - 52)


class CapJsonTests:
    def test_a_value_within_the_limit_is_the_same_object(self) -> None:
        value = {"content": [{"type": "text", "text": "ok"}], "isError": False}

        capped = cap_json(value, 1000)

        assert capped.value is value and capped.cut is None and capped.size == len(compact_json(value))

    def test_a_long_text_block_keeps_its_head_and_the_keys_after_it(self) -> None:
        value = {"content": [{"type": "text", "text": "x" * 100_000}], "structuredContent": None, "isError": True}

        capped = cap_json(value, 2000)

        text = capped.value["content"][0]["text"]
        assert text.startswith("xxxx") and text.endswith(" bytes") and "…truncated " in text
        assert capped.value["isError"] is True and capped.value["structuredContent"] is None
        assert capped.value["content"][0]["type"] == "text"
        assert capped.size == len(compact_json(capped.value)) <= 2000
        full = compact_json(value)
        assert capped.cut == {"bytes": len(full), "sha256": hashlib.sha256(full).hexdigest()}

    def test_a_long_list_keeps_its_first_items_and_one_marker_for_the_rest(self) -> None:
        value = list(range(100_000))

        capped = cap_json(value, 1000)

        *head, rest = capped.value
        assert head == list(range(len(head))) and len(head) > 100
        remaining = json.dumps(list(range(len(head), 100_000)), separators=(",", ":"))
        assert rest == marker(len(remaining) - 2)
        assert capped.size <= 1000

    def test_a_value_too_wide_to_shrink_becomes_the_head_of_its_json_text(self) -> None:
        value = {f"key{n}": n for n in range(10_000)}

        capped = cap_json(value, FLOOR_BYTES)

        assert isinstance(capped.value, str) and capped.value.startswith('{"key0":0,"key1":1,')
        assert capped.value.endswith(" bytes") and capped.size <= FLOOR_BYTES
        assert capped.cut is not None and capped.cut["bytes"] == len(compact_json(value))
