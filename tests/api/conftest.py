from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.test import Client

from evalhub.api_keys.models import ApiKey

ALL = ["evaluate:read", "evaluate:write", "evaluate:admin", "evaluate:export"]
KeyClient = Callable[..., Client]


@pytest.fixture(autouse=True)
def fresh_rate_limits(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts with a full allowance: its rate-limit counters live under a key prefix of its own.

    Not `cache.clear()`: on the Redis tier the cache shares its database with the Celery broker, and clearing it
    (FLUSHDB) drops the queues' bindings and messages of every other test process — their runs never reach a worker.
    """
    monkeypatch.setattr(caches["default"], "key_prefix", f"test-{uuid.uuid4().hex}")


def key_client(user: User, scopes: list[str], **issue: object) -> Client:
    _, raw = ApiKey.issue(user=user, name="test", scopes=scopes, **issue)  # type: ignore[arg-type]
    return Client(headers={"Authorization": f"Bearer {raw}"})


@pytest.fixture
def make_client() -> KeyClient:
    """`make_client(user, "evaluate:read", …)`: a test client sending a fresh key of `user` with those scopes."""

    def make(user: User, *scopes: str, **issue: object) -> Client:
        return key_client(user, list(scopes), **issue)

    return make


@pytest.fixture
def admin_api(alice: User) -> Client:
    """alice (staff) with a key holding every scope."""
    return key_client(alice, ALL)


@pytest.fixture
def reader_api(bob: User) -> Client:
    """bob with a read-only key."""
    return key_client(bob, ["evaluate:read"])


@pytest.fixture
def writer_api(bob: User) -> Client:
    """bob (not staff) with read, write and export."""
    return key_client(bob, ["evaluate:read", "evaluate:write", "evaluate:export"])
