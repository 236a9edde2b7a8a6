from __future__ import annotations

from scorers.version_diff import DiffLine, diff_lines, scorer_text


def test_changed_lines_are_shown_removed_then_added_with_both_line_numbers() -> None:
    old = "async () => {\n  return 0;\n}"
    new = "async () => {\n  console.log('x');\n  return 1;\n}"

    assert diff_lines(old, new) == [
        DiffLine("same", "async () => {", 1, 1),
        DiffLine("removed", "  return 0;", 2, None),
        DiffLine("added", "  console.log('x');", None, 2),
        DiffLine("added", "  return 1;", None, 3),
        DiffLine("same", "}", 3, 4),
    ]


def test_identical_texts_have_no_change() -> None:
    assert {line.kind for line in diff_lines("a\nb", "a\nb")} == {"same"}


def test_a_judge_is_compared_by_its_prompt_labels_and_model() -> None:
    text = scorer_text(kind="judge", code="", system_prompt="Be strict.", labels="GOOD|1\nBAD|0", judge_model="")

    assert text == "Be strict.\n\n# Labels\nGOOD|1\nBAD|0\n\n# Judge model\n(the default judge model)"
    assert scorer_text(kind="code", code="async () => 1", system_prompt="x", labels="y", judge_model="z") == (
        "async () => 1"
    )
