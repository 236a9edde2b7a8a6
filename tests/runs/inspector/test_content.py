from __future__ import annotations

from runs.inspector.content import image_source, parse_json_text, result_parts
from tests.runs.inspector.records import PIXEL, WEATHER


class ResultPartsTests:
    def test_a_text_copy_of_structured_content_is_left_out_and_counted(self) -> None:
        parts = result_parts(
            {
                "content": [{"type": "text", "text": '{"sky": "clear"}'}, {"type": "text", "text": "Sunny"}],
                "structuredContent": {"sky": "clear"},
            }
        )
        assert parts["repeats"] == 1
        assert [(b["kind"], b["index"]) for b in parts["blocks"]] == [("text", 1)]
        assert (parts["has_structured"], parts["structured"]) == (True, {"sky": "clear"})

    def test_json_text_that_differs_from_structured_content_is_kept_as_a_tree(self) -> None:
        parts = result_parts({"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": WEATHER})
        assert parts["blocks"] == [{"kind": "json", "value": [1, 2], "index": 0}] and parts["repeats"] == 0

    def test_null_structured_content_is_nothing_to_show(self) -> None:
        parts = result_parts({"content": [], "structuredContent": None, "isError": True})
        assert parts["has_structured"] is False

    def test_a_result_cut_to_a_string_is_shown_raw(self) -> None:
        parts = result_parts('{"content": [{"type": "text", "text": "aaa…truncated 99 bytes')
        assert parts["is_raw"] is True and parts["raw"].startswith('{"content"')

    def test_resources_and_links_keep_their_text_and_address_only(self) -> None:
        blocks = result_parts(
            {
                "content": [
                    {
                        "type": "resource",
                        "resource": {"uri": "file:///a.txt", "text": "hello", "mimeType": "text/plain"},
                    },
                    {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}},
                    {"type": "resource_link", "uri": "https://example.com/x", "name": "x", "description": "d"},
                    {"type": "mystery", "x": 1},
                ]
            }
        )["blocks"]
        assert [b["kind"] for b in blocks] == ["resource", "resource", "resource_link", "other"]
        assert (blocks[0]["text"], blocks[1]["blobSize"], blocks[2]["uri"]) == ("hello", 4, "https://example.com/x")


class ImageSourceTests:
    def test_a_raster_image_becomes_a_data_uri(self) -> None:
        assert image_source({"mimeType": "image/png", "data": PIXEL}) == f"data:image/png;base64,{PIXEL}"

    def test_svg_and_bad_data_are_not_shown(self) -> None:
        assert image_source({"mimeType": "image/svg+xml", "data": "PHN2Zz48L3N2Zz4="}) is None
        assert image_source({"mimeType": "image/png", "data": 'x" onerror="alert(1)'}) is None


class ParseJsonTextTests:
    def test_only_objects_and_arrays_read_as_json(self) -> None:
        assert parse_json_text(' {"a": 1} ') == (True, {"a": 1})
        assert parse_json_text("42") == (False, None)
        assert parse_json_text("[not json") == (False, None)
