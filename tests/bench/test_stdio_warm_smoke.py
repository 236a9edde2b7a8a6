"""bench/stdio_warm.py at its tiny size: it exits 0 and prints both runs-per-minute figures and their ratio.

(Beside main's tests/bench/test_bench_smoke.py, which runs every other bench the same way: on SQLite in tier 1, on a
database of its own on the test PostgreSQL in tier 2.)
"""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.base import PROJECT_DIR, PYTHON

TEST_DATABASE_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = TEST_DATABASE_URL.startswith(("postgres://", "postgresql://"))
HEADLINE = re.compile(r"^headline: (?P<what>.+?) = (?P<value>\d+(?:\.\d+)?)$", re.MULTILINE)


@pytest.mark.services
def test_stdio_warm_bench_prints_both_figures_and_the_ratio(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(EVALHUB_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1", TMPDIR=str(tmp_path))
    args = ["--tiny"]
    database = ""
    if ON_POSTGRES:
        database = f"{TEST_DATABASE_URL.split('?')[0].rsplit('/', 1)[0]}/evalhub_smoke_{uuid.uuid4().hex[:10]}"
        args += ["--database-url", database]
    try:
        done = subprocess.run(
            [PYTHON, "bench/stdio_warm.py", *args],
            cwd=PROJECT_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=240,
        )
    finally:
        if database:
            drop_database(database)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    figures = {match["what"]: float(match["value"]) for match in HEADLINE.finditer(output)}
    assert figures["runs per minute, fresh process per run"] > 0
    assert figures["runs per minute, warm reuse"] > 0
    assert figures["warm reuse / fresh process, runs per minute"] > 0
    assert "verdicts per scenario: the same in both modes" in output


def drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
