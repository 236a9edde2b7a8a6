"""The offline model behind an in-process httpx transport, so the openai SDK reaches it like any server."""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit

import httpx

from evalhub.model_client.offline.model import OFFLINE_MODEL, OfflineModelError, handle_chat_completion

log = logging.getLogger(__name__)

OFFLINE_HOST = "evalhub-offline.local"
OFFLINE_BASE_URL = f"http://{OFFLINE_HOST}/v1"


def is_offline_url(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "").lower() == OFFLINE_HOST


class OfflineTransport(httpx.BaseTransport):
    """Answers POST …/chat/completions and GET …/models in-process; nothing goes on the network."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "POST" and path.endswith("/chat/completions"):
            try:
                payload = json.loads(request.read() or b"null")
            except ValueError:
                return _error(OfflineModelError(400, "The request body is not valid JSON."))
            try:
                return httpx.Response(200, json=handle_chat_completion(payload))
            except OfflineModelError as error:
                return _error(error)
            except Exception:
                # A bug in the rules must look like a server error to the caller, not break the HTTP layer.
                log.exception("the offline model failed on a request")
                return _error(OfflineModelError(500, "The offline model failed; see the server log."))
        if request.method == "GET" and path.endswith("/models"):
            model = {"id": OFFLINE_MODEL, "object": "model", "created": 0, "owned_by": "evalhub"}
            return httpx.Response(200, json={"object": "list", "data": [model]})
        return _error(OfflineModelError(404, f"Unknown request URL: {request.method} {path}.", code="unknown_url"))


def _error(error: OfflineModelError) -> httpx.Response:
    body: dict[str, Any] = error.body()
    return httpx.Response(error.status, json=body)
