"""The embedded filesystem broker, with messages that appear whole.

kombu's filesystem transport creates a message's file and then writes it; a worker polling at the same moment
moves the empty file away, fails to decode it and stops ("Unrecoverable error: JSONDecodeError"). The faster a
worker polls (settings.py polls every 50 ms, so a run starts at once), and the more runs are queued together,
the likelier that is. Here a message is written under a name readers skip and renamed into place when complete
(an atomic rename on one filesystem), so a reader only ever sees whole messages.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # as kombu-stubs
        # kombu's own file name: readers take `<stamp>_<uuid>.<queue>.msg`, oldest first.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        path = os.path.join(self.data_folder_out, name)
        partial = f"{path}.part"  # not `<queue>.msg`: readers skip it
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, path)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {path!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    @property
    def default_connection_params(self) -> dict[str, Any]:
        # Folders have no host. kombu's default names one, and then warns "No hostname was supplied" whenever
        # `filesystem://` connects: on every `manage.py evalhub run`.
        return {}


def register() -> None:
    """Make `filesystem://` (the default CELERY_BROKER_URL) use this transport, in the web app and the worker."""
    TRANSPORT_ALIASES["filesystem"] = "evalhub.broker:Transport"
