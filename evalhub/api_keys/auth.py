"""How API callers authenticate: an API key (`Authorization: Bearer ehk_…`) or a logged-in browser session.

Each operation names the scope it needs with `auth=auth_for(SCOPE)`; a missing or unusable credential is a 401,
a credential without the scope a 403 (both raised as ApiError, so they leave in the one error envelope).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja.security import APIKeyCookie, HttpBearer
from ninja.utils import check_csrf

from evalhub.api.common import ADMIN, ALL_SCOPES, EXPORT, READ, WRITE, ApiError, ErrorCode, Principal
from evalhub.api_keys.services import ApiKeyRejected, api_key_authenticate


def _check_scope(caller: Principal, scope: str) -> Principal:
    if scope not in caller.scopes:
        held = ", ".join(sorted(caller.scopes)) or "none"
        who = "This API key" if caller.key is not None else "Your account"
        raise ApiError(
            ErrorCode.INSUFFICIENT_PERMISSIONS,
            f"{who} lacks the {scope} scope needed here (it has: {held}).",
            {"required_scope": scope, "scopes": sorted(caller.scopes)},
        )
    return caller


class ApiKeyAuth(HttpBearer):
    """`Authorization: Bearer ehk_…`: an API key, looked up by its hash."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        super().__init__()

    def authenticate(self, request: HttpRequest, token: str) -> Principal:
        try:
            key = api_key_authenticate(token)
        except ApiKeyRejected as exc:
            raise ApiError(ErrorCode.AUTHENTICATION_REQUIRED, str(exc)) from None
        caller = Principal(user=key.user, scopes=frozenset(key.scopes) & ALL_SCOPES, key=key, via="api_key")
        # Set before the scope check so a 403 still counts against (and reports) the key's rate limit.
        request.auth = caller  # type: ignore[attr-defined]
        return _check_scope(caller, self.scope)


class SessionScopeAuth(APIKeyCookie):
    """The browser session of a logged-in user, with Django's CSRF check on unsafe methods."""

    param_name = settings.SESSION_COOKIE_NAME

    def __init__(self, scope: str) -> None:
        self.scope = scope
        super().__init__(csrf=True)

    def __call__(self, request: HttpRequest) -> Principal | None:
        user = request.user
        if not user.is_authenticated:
            return None  # Nothing to check CSRF for: the caller gets a plain 401, not a CSRF 403.
        if check_csrf(request):
            raise ApiError(
                ErrorCode.INSUFFICIENT_PERMISSIONS,
                "CSRF check failed: send the X-CSRFToken header with the page's token, or use an API key.",
            )
        return self.authenticate(request, None)

    def authenticate(self, request: HttpRequest, key: str | None) -> Principal:
        scopes = {READ, WRITE, EXPORT} | ({ADMIN} if getattr(request.user, "is_staff", False) else set())
        caller = Principal(user=request.user, scopes=frozenset(scopes), via="session")  # type: ignore[arg-type]
        request.auth = caller  # type: ignore[attr-defined]
        return _check_scope(caller, self.scope)

    def _get_key(self, request: HttpRequest) -> str | None:
        return None


def auth_for(scope: str) -> list[Any]:
    """The authentication of an operation that needs `scope`: an API key or a logged-in session."""
    return [ApiKeyAuth(scope), SessionScopeAuth(scope)]
