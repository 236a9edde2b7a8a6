"""What `await tools.x(…)` gives a program, from a nested call's record (pure)."""

from __future__ import annotations

import json

from runs.code_mode.execute import RUN_CODE_LIMITS, answer_for_program


def record(result: dict) -> dict:
    return {"toolName": "t", "result": result}


class AnswerForProgramTests:
    def test_structured_content_wins_then_json_text_then_plain_text(self) -> None:
        structured = record({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}})
        json_text = record({"content": [{"type": "text", "text": '{"b": 2}'}]})
        plain = record({"content": [{"type": "text", "text": "hello"}]})

        assert json.loads(answer_for_program(structured)["value"]) == {"a": 1}
        assert json.loads(answer_for_program(json_text)["value"]) == {"b": 2}
        assert json.loads(answer_for_program(plain)["value"]) == "hello"

    def test_an_error_result_rejects_with_its_text(self) -> None:
        answer = answer_for_program(record({"content": [{"type": "text", "text": "boom"}], "isError": True}))
        assert answer == {"ok": False, "message": "tools.t: boom"}

    def test_nan_falls_back_to_text_and_a_huge_result_is_refused(self) -> None:
        nan = answer_for_program(
            record({"content": [{"type": "text", "text": "n"}], "structuredContent": {"v": float("nan")}})
        )
        assert json.loads(nan["value"]) == "n"
        huge = "x" * (RUN_CODE_LIMITS.max_input_bytes + 1)
        refused = answer_for_program(record({"content": [{"type": "text", "text": huge}]}))
        assert refused["ok"] is False and "a program accepts at most 8,388,608 bytes per result" in refused["message"]
