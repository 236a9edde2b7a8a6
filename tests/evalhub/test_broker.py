"""The embedded filesystem broker: a message a worker can see is always whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kombu import Connection

from evalhub.broker import Transport


@pytest.fixture
def channel(tmp_path: Path) -> object:
    folders = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path), "store_processed": False}
    with Connection("filesystem://", transport_options=folders) as conn:
        assert isinstance(conn.transport, Transport)  # `filesystem://` is ours wherever Celery is configured
        yield conn.default_channel


class FilesystemBrokerTests:
    def test_a_message_still_being_written_is_skipped_and_a_whole_one_is_delivered(
        self, channel: Transport.Channel, tmp_path: Path
    ) -> None:
        # What a publisher leaves while it writes: kombu's own transport named it `.msg` from the first byte, and a
        # worker polling then read it empty and stopped with "Unrecoverable error: JSONDecodeError".
        (tmp_path / "0_partial.runs.msg.part").write_text('{"body": "half')

        channel._put("runs", {"body": "whole"})

        assert channel._get("runs") == {"body": "whole"}
        assert sorted(os.listdir(tmp_path)) == ["0_partial.runs.msg.part"]
