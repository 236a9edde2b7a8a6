"""A tool result over the 32 MB stdio message limit is reported as what it is (issue 18, finding 16).

Before, EvalHub stopped reading at the limit and the session reported "the server closed its stdout", which a
healthy server had not done.
"""

from __future__ import annotations

import anyio
import pytest

from evalhub.mcp_client import ErrorKind, McpConnectionError, connect

from .helpers import fixture_config


class OversizedMessageTests:
    def test_a_result_over_the_limit_says_so(self) -> None:
        async def call_export() -> None:
            # Reading 32 MB on a busy machine can take seconds: the size limit, not the time limit, must stop it.
            async with connect(fixture_config("huge_result_server.py", request_timeout=120.0)) as conn:
                assert (await conn.call_tool("ping"))["content"][0]["text"] == "pong"
                await conn.call_tool("export")

        with pytest.raises(McpConnectionError) as caught:
            anyio.run(call_export)

        assert caught.value.kind == ErrorKind.INVALID_OUTPUT
        assert caught.value.message == (
            "The server's answer to the call to tool 'export' was larger than 32 MB, EvalHub's limit for one stdio "
            "message, so EvalHub stopped reading it and closed the connection; make the answer smaller (e.g. "
            "paginate) or return a link to the data."
        )
