"""The offline model on its prompt table, through the real openai SDK and the offline transport.

The table (fixtures/offline_prompts.json) must pass in full; its known limitations must still fail, so
that a rule change that fixes one moves it into the table instead of going unnoticed.
"""

from __future__ import annotations

from tests.evalhub.model_client.offline_table import evaluate, load_table

TABLE = load_table()
REQUIRED_ACCURACY = 1.0


def failures_report(outcomes: list) -> str:
    return "\n".join(f"{o.id}: {o.got}" for o in outcomes)


class OfflineAccuracyTests:
    def test_the_table_is_large_and_varied(self) -> None:
        rows = TABLE["rows"]
        toolsets = {row["toolset"] for row in rows}
        refusals = [row for row in rows if row["expect"]["tool"] is None and "missing" in row["expect"]]

        assert len(rows) >= 30
        assert toolsets == {"demo", "travel", "filesystem", "time", "fetch", "all"}
        assert len(refusals) >= 8
        assert len({row["id"] for row in rows}) == len(rows)

    def test_every_single_turn_row_passes(self) -> None:
        report = evaluate(TABLE["rows"])

        assert report.accuracy >= REQUIRED_ACCURACY, failures_report(report.failures)

    def test_every_multi_step_row_passes(self) -> None:
        report = evaluate(TABLE["multi_step"])

        assert report.accuracy >= REQUIRED_ACCURACY, failures_report(report.failures)

    def test_known_limitations_still_fail(self) -> None:
        report = evaluate(TABLE["known_limitations"])

        fixed = [o for o in report.outcomes if o.ok]
        assert not fixed, "now handled, move to rows: " + failures_report(fixed)
