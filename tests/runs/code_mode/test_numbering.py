"""One numbering of a run's calls for every place that names them (runs/code_mode/numbering.py)."""

from __future__ import annotations

from runs.code_mode.numbering import labels, labels_for


def program(*nested: dict[str, object]) -> dict[str, object]:
    return {"toolName": "run_code", "nestedCalls": list(nested)}


def plain(name: str = "get_weather") -> dict[str, object]:
    return {"toolName": name, "nestedCalls": []}


class LabelTests:
    def test_the_runs_calls_count_in_order_and_a_programs_calls_under_it(self) -> None:
        top_level = [program(plain(), plain()), plain(), program(plain())]

        # allToolCalls order: a call, then the calls it made.
        assert labels(top_level) == ["1", "1.1", "1.2", "2", "3", "3.1"]

    def test_a_record_whose_lists_disagree_counts_positions(self) -> None:
        # From before nested calls existed: allToolCalls holds more than toolCalls accounts for.
        assert labels_for([plain()], [plain(), plain(), plain()]) == ["1", "2", "3"]
        assert labels_for([program(plain())], [program(), plain()]) == ["1", "1.1"]
