"""Assertions every API test module uses."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse


def assert_error(response: HttpResponse, status: int, code: str) -> dict[str, Any]:
    """The response is the documented error envelope with this status and code; returns the error body."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]  # type: ignore[no-any-return]
