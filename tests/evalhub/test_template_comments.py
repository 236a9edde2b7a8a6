"""Django's `{# … #}` comment ends at the end of its line: one spread over two lines is printed on the page."""

from __future__ import annotations

import re

from tests.base import PROJECT_DIR

OPEN_COMMENT = re.compile(r"\{#(?!.*#\})")


class TemplateCommentTests:
    def test_no_template_has_a_one_line_comment_spread_over_lines(self) -> None:
        broken = [
            f"{path.relative_to(PROJECT_DIR)}:{number}"
            for path in sorted((PROJECT_DIR / "templates").rglob("*.html"))
            for number, line in enumerate(path.read_text().splitlines(), start=1)
            if OPEN_COMMENT.search(line)
        ]
        assert broken == [], "use {% comment %} … {% endcomment %} for comments longer than a line"
