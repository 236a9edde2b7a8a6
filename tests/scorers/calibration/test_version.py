"""Fingerprints: every change of what scores makes a new one; nothing else does."""

from __future__ import annotations

from scorers.calibration.version import LENGTH, expectations_fingerprint, scorer_fingerprint

JUDGE = {
    "kind": "judge",
    "code": "",
    "system_prompt": "Was it polite?",
    "labels": "GOOD|1\nBAD|0",
    "judge_model": "gpt-4o",
}
CODE = {"kind": "code", "code": "async () => 1", "system_prompt": "", "labels": "", "judge_model": ""}


class FingerprintTests:
    def test_it_is_stable_and_short(self) -> None:
        assert scorer_fingerprint(**JUDGE) == scorer_fingerprint(**dict(JUDGE))
        assert len(scorer_fingerprint(**JUDGE)) == LENGTH

    def test_each_part_of_a_judge_changes_it(self) -> None:
        base = scorer_fingerprint(**JUDGE)
        for part, value in [("system_prompt", "Was it kind?"), ("labels", "GOOD|1\nBAD|0.2"), ("judge_model", "o3")]:
            assert scorer_fingerprint(**(JUDGE | {part: value})) != base, part

    def test_code_changes_a_code_scorer(self) -> None:
        assert scorer_fingerprint(**CODE) != scorer_fingerprint(**(CODE | {"code": "async () => 0"}))

    def test_what_a_kind_does_not_use_does_not_count(self) -> None:
        assert scorer_fingerprint(**CODE) == scorer_fingerprint(**(CODE | {"system_prompt": "left in the form"}))

    def test_line_endings_do_not_count(self) -> None:
        assert scorer_fingerprint(**(JUDGE | {"labels": "GOOD|1\r\nBAD|0"})) == scorer_fingerprint(**JUDGE)

    def test_expectations_change_it_and_key_order_does_not(self) -> None:
        spec = [{"kind": "tool_called", "tool": "get_weather"}]
        assert expectations_fingerprint(spec) == expectations_fingerprint(
            [{"tool": "get_weather", "kind": "tool_called"}]
        )
        assert expectations_fingerprint(spec) != expectations_fingerprint(
            [*spec, {"kind": "final_answer", "icontains": "x"}]
        )
