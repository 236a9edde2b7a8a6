from __future__ import annotations

from runs.templatetags.run_inspector import FOLD_CHARS, FOLD_ITEMS, TREE_NODES, folded_text, json_tree


class JsonTreeTests:
    def test_keys_and_values_are_escaped(self) -> None:
        html = json_tree({"<b>": "<script>x</script>"}, "call-1", "args")
        assert "<b>" not in html and "<script>" not in html
        assert '<span class="json-key">&lt;b&gt;</span>' in html
        assert '<span class="json-string">"&lt;script&gt;x&lt;/script&gt;"</span>' in html
        assert 'data-json="{&quot;&lt;b&gt;&quot;: &quot;&lt;script&gt;x&lt;/script&gt;&quot;}"' in html

    def test_each_node_has_a_key_and_a_copy_button_for_its_path(self) -> None:
        html = json_tree({"a": {"b": [1, True, None]}}, "call-2", "structured")
        assert 'data-key="call-2-structured:[]" open' in html
        assert 'data-key="call-2-structured:[&quot;a&quot;]" open' in html
        # Two levels open at first; deeper ones start closed.
        assert 'data-key="call-2-structured:[&quot;a&quot;, &quot;b&quot;]">' in html
        assert html.count('class="copy-button"') == 3
        assert '<span class="json-bool">true</span>' in html and '<span class="json-null">null</span>' in html

    def test_long_lists_and_strings_fold_behind_show_all(self) -> None:
        html = json_tree({"items": list(range(FOLD_ITEMS + 5)), "note": "x" * 500}, "k")
        assert f"show all {FOLD_ITEMS + 5} items" in html
        assert "show all 500 characters" in html and "x" * 500 in html

    def test_a_huge_value_is_drawn_as_nodes_up_to_a_budget_then_as_json_text(self) -> None:
        rows = [{"id": index} for index in range(2 * TREE_NODES)]
        html = json_tree({"rows": rows}, "k")
        assert html.count('class="json-node"') == TREE_NODES
        # The rest are still there, readable, as one block of JSON text (the copy button copies them all too).
        assert f"{2 * TREE_NODES - TREE_NODES + 2} more as JSON text" in html
        assert f"&quot;id&quot;: {2 * TREE_NODES - 1}" in html


class FoldedTextTests:
    def test_short_text_is_a_plain_pre(self) -> None:
        assert folded_text("<i>hi</i>", "final") == '<pre class="prose">&lt;i&gt;hi&lt;/i&gt;</pre>'

    def test_long_text_shows_its_head_and_all_of_it_behind_the_fold(self) -> None:
        html = folded_text("y" * (FOLD_CHARS + 1), "step-1", "text", css="code")
        assert 'data-key="step-1-text"' in html and f"show all {FOLD_CHARS + 1:,} characters" in html
        assert html.count("y" * FOLD_CHARS) == 2
