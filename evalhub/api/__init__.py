"""The REST API at /api/v1: the NinjaAPI, the single error handler, and the routers of each area.

Callers authenticate with `Authorization: Bearer <API key>` (scripts, CI) or their browser session (the UI's own
calls, with the CSRF token); see evalhub.api_keys.auth. Every error, ours or django-ninja's, leaves as one envelope:
`{"error": {"code": "...", "message": "...", "details": {...}}}` (see evalhub.api.common.ErrorCode).
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.http.response import HttpResponseBase
from django.urls import URLPattern, URLResolver, path, re_path
from django.utils.cache import patch_vary_headers
from django.utils.datastructures import MultiValueDict
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled
from ninja.errors import ValidationError as NinjaValidationError
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation
from ninja.parser import Parser

from evalhub.api.common import COMPONENT_MARKER, READ, ApiError, ErrorCode
from evalhub.api_keys.auth import auth_for
from evalhub.mcp_client.errors import McpConnectionError
from evalhub.ratelimit import WINDOW_SECONDS, CallerRateThrottle, with_rate_limit_headers
from evalhub.server_evals.services import SideEffectsUnacknowledged
from evalhub.storable import refusal, storable
from evalhub.vault import SecretUnavailable
from runs.quota import QuotaExceeded

logger = logging.getLogger(__name__)

API_DESCRIPTION = """
Everything the dashboard does, for scripts and CI. Authenticate with `Authorization: Bearer <API key>`
(Settings → API keys, or `manage.py createapikey`). Scopes: `evaluate:read` (GET), `evaluate:write` (create,
start, cancel), `evaluate:admin` (stdio servers; staff only), `evaluate:export` (reports).

Who may change what: a key acts as its owner. Everyone reads, inspects, runs and duplicates everything; a server,
scenario or scorer is updated or deleted only by its creator or staff (stdio servers: staff only; records without a
recorded creator: staff only); a run is cancelled by who started it, whoever may change its scenario, or staff;
an experiment is cancelled by who started it or staff.
Anyone else gets 403 INSUFFICIENT_PERMISSIONS with a message saying who may.

Errors always have the shape `{"error": {"code", "message", "details"}}`: VALIDATION_ERROR 400,
AUTHENTICATION_REQUIRED 401, INSUFFICIENT_PERMISSIONS 403, RESOURCE_NOT_FOUND 404, CONFLICT 409,
SERVER_UNREACHABLE 422, QUOTA_EXCEEDED 429, RATE_LIMIT_EXCEEDED 429. Every authenticated answer carries
`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix time).
"""

# The single error handler -------------------------------------------------------------------------------------


def _envelope(code: ErrorCode | str, message: str, details: dict[str, Any] | None, status: int) -> JsonResponse:
    return JsonResponse({"error": {"code": str(code), "message": message, "details": details or {}}}, status=status)


def _validation_details(errors: list[dict[str, Any]]) -> dict[str, Any]:
    # Only plain, JSON-safe parts: pydantic's `ctx` may hold exception objects and `input` what the client sent.
    return {
        "errors": [
            {
                "loc": [str(part) for part in error.get("loc", ())],
                "msg": str(error.get("msg", "")),
                "type": str(error.get("type", "")),
            }
            for error in errors
        ]
    }


def error_response(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Every exception that leaves an API operation, as the documented envelope with its status."""
    if isinstance(exc, HttpError) and isinstance(exc.__cause__, ApiError):
        # ninja answers anything the body parser raises with "Cannot parse request body"; ours says what is wrong.
        exc = exc.__cause__
    if isinstance(exc, ApiError):
        response = _envelope(exc.code, exc.message, exc.details, exc.status)
        if exc.code == ErrorCode.AUTHENTICATION_REQUIRED:
            response["WWW-Authenticate"] = 'Bearer realm="evalhub"'
        return response
    if isinstance(exc, NinjaValidationError):
        details = _validation_details(exc.errors)
        first = details["errors"][0] if details["errors"] else {"loc": [], "msg": "Invalid request."}
        where = ".".join(first["loc"])
        return _envelope(
            ErrorCode.VALIDATION_ERROR, f"{where}: {first['msg']}" if where else first["msg"], details, 400
        )
    if isinstance(exc, Throttled):
        wait = math.ceil(exc.wait or (WINDOW_SECONDS - int(time.time()) % WINDOW_SECONDS))
        response = _envelope(
            ErrorCode.RATE_LIMIT_EXCEEDED, f"Too many requests; try again in {wait} s.", {"retry_after": wait}, 429
        )
        response["Retry-After"] = str(wait)
        return response
    if isinstance(exc, AuthenticationError):
        response = _envelope(
            ErrorCode.AUTHENTICATION_REQUIRED,
            "Authentication required: send 'Authorization: Bearer <API key>' (Settings → API keys) or log in.",
            None,
            401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="evalhub"'
        return response
    if isinstance(exc, QuotaExceeded):
        status = exc.status
        details = {"used": status.used, "limit": status.limit, "resets_at": status.resets_at.isoformat()}
        return _envelope(ErrorCode.QUOTA_EXCEEDED, str(exc), details, 429)
    if isinstance(exc, SideEffectsUnacknowledged):
        return _envelope(ErrorCode.CONFLICT, str(exc), exc.details, 409)
    if isinstance(exc, McpConnectionError):
        details = {"kind": exc.kind.value, "stderr_tail": exc.stderr_tail}
        return _envelope(ErrorCode.SERVER_UNREACHABLE, exc.message, details, 422)
    if isinstance(exc, SecretUnavailable):
        return _envelope(ErrorCode.SERVER_UNREACHABLE, str(exc), {"kind": "secret_unavailable"}, 422)
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return _envelope(ErrorCode.RESOURCE_NOT_FOUND, "Not found.", None, 404)
    if isinstance(exc, ProtectedError):
        blocking = sorted({str(obj) for obj in list(exc.protected_objects)[:10]})
        return _envelope(
            ErrorCode.CONFLICT, "Other records still use this one; delete them first.", {"used_by": blocking}, 409
        )
    if isinstance(exc, PermissionDenied):
        return _envelope(ErrorCode.INSUFFICIENT_PERMISSIONS, str(exc) or "Not allowed.", None, 403)
    if isinstance(exc, SuspiciousOperation):  # e.g. more query parameters than DATA_UPLOAD_MAX_NUMBER_FIELDS
        return _envelope(ErrorCode.VALIDATION_ERROR, str(exc) or "Bad request.", None, 400)
    if isinstance(exc, DjangoValidationError):
        return _envelope(ErrorCode.VALIDATION_ERROR, " ".join(exc.messages), {"errors": exc.messages}, 400)
    if isinstance(exc, HttpError):
        code = {
            400: ErrorCode.VALIDATION_ERROR,
            403: ErrorCode.INSUFFICIENT_PERMISSIONS,
            404: ErrorCode.RESOURCE_NOT_FOUND,
        }
        return _envelope(code.get(exc.status_code, ErrorCode.VALIDATION_ERROR), exc.message, None, exc.status_code)
    logger.error("Unexpected error in %s %s", request.method, request.path, exc_info=exc)
    return _envelope(ErrorCode.INTERNAL_ERROR, "Something went wrong on our side; it has been logged.", None, 500)


def _reject_unstorable(value: Any, where: str) -> None:
    """PostgreSQL stores neither NUL in text nor NaN/Infinity in JSON: say so instead of failing with a 500."""
    _, problems = storable(value)
    if problems:
        path = where if problems[0].path == "(root)" else problems[0].path
        problem = problems[0]._replace(path=path)
        raise ApiError(ErrorCode.VALIDATION_ERROR, refusal(problem), {"field": path})


class StrictParser(Parser):
    """A parameter given twice is an error, not "the last one wins": `?status=done&status=error` filters nothing.
    Text with NUL characters is refused everywhere, in parameters and bodies, and so are NaN and Infinity in bodies
    (Python's json reads them; they are not JSON and PostgreSQL refuses them)."""

    def parse_body(self, request: HttpRequest) -> Any:
        body = super().parse_body(request)
        _reject_unstorable(body, "body")
        return body

    def parse_querydict(
        self, data: MultiValueDict[str, Any], list_fields: list[str], request: HttpRequest
    ) -> dict[str, Any]:
        repeated = sorted(key for key in data if key not in list_fields and len(data.getlist(key)) > 1)
        if repeated:
            raise ApiError(
                ErrorCode.VALIDATION_ERROR, f"{repeated[0]}: give this parameter once.", {"repeated": repeated}
            )
        for key in data:
            _reject_unstorable(key, "parameters")
            for value in data.getlist(key):
                _reject_unstorable(value, key)
        return super().parse_querydict(data, list_fields, request)


# operationIds are published: clients generate code from them. ninja derives them from a route's module, so the
# routes that moved into concept packages keep the ids they were first published with.
PUBLISHED_ROUTE_MODULES = {
    "evalhub.servers.api": "evalhub.api_routes.servers",
    "evalhub.scenarios.api": "evalhub.api_routes.scenarios",
    "evalhub.api.system": "evalhub.api_routes.system",
}


def _never_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's JSON Schema as a client should read it. Without pydantic's `null` branch: `str | None = None`
    means "may be left out", which `required: false` already says, and a query or path value is text, never JSON
    null (schema-driven tools took `?name=-42706`, a string on the wire, for a wrong type). And with `ge`/`le`,
    which ninja copies from pydantic inside such a branch, as JSON Schema's `minimum`/`maximum`."""
    branches = schema.get("anyOf", [])
    kept = [branch for branch in branches if branch != {"type": "null"}]
    if len(kept) != 1 or len(kept) == len(branches):
        return schema
    value = {**{key: item for key, item in schema.items() if key != "anyOf"}, **kept[0]}
    for pydantic_name, json_schema_name in (("ge", "minimum"), ("le", "maximum")):
        if pydantic_name in value:
            value[json_schema_name] = value.pop(pydantic_name)
    return value


class EvalHubAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation: Operation) -> str:
        func = operation.view_func
        module = PUBLISHED_ROUTE_MODULES.get(func.__module__, func.__module__)
        return f"{module}_{func.__name__}".replace(".", "_")

    def get_openapi_schema(self, **kwargs: Any) -> OpenAPISchema:
        from evalhub.scenarios.api import OPENAPI_COMPONENTS  # the routers import this module

        schema = super().get_openapi_schema(**kwargs)
        # Schemas pydantic does not generate: the expectations list, whose JSON Schema the engine exports.
        components = schema["components"]["schemas"]
        for component in components.values():
            for field in component.get("properties", {}).values():
                if name := field.pop(COMPONENT_MARKER, None):
                    field["allOf"] = [{"$ref": f"#/components/schemas/{name}"}]
        components.update(OPENAPI_COMPONENTS)
        for item in schema["paths"].values():
            for operation in item.values():
                for parameter in operation.get("parameters", []):
                    parameter["schema"] = _never_null(parameter["schema"])
        return schema

    def on_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse:  # type: ignore[override]
        response = error_response(request, exc)
        patch_vary_headers(response, ["Authorization", "Cookie"])
        return response


api = EvalHubAPI(
    title="EvalHub API",
    version="1",
    description=API_DESCRIPTION,
    urls_namespace="api",
    parser=StrictParser(),
    auth=auth_for(READ),
    throttle=[CallerRateThrottle()],
    docs_decorator=login_not_required,
)
api.add_decorator(with_rate_limit_headers, mode="view")


def _mount_routers() -> None:
    from evalhub.api.system import router as system_router
    from evalhub.checkups.api import router as checkups_router
    from evalhub.checkups.api import servers_router as checkup_servers_router
    from evalhub.scenarios.api import router as scenarios_router
    from evalhub.server_evals.api import servers_router as shipped_evals_router
    from evalhub.server_evals.api import tools_router
    from evalhub.servers.api import router as servers_router
    from evalhub.suites.api import router as suites_router
    from evalhub.suites.api import schemas_router
    from runs.api import router as runs_router
    from runs.cassettes.api import router as replays_router
    from runs.events.api import router as events_router
    from runs.experiments.api import router as experiments_router
    from runs.reviews.api import export_router as reviews_export_router
    from runs.reviews.api import router as reviews_router
    from runs.traces.api import router as traces_router
    from scorers.api import router as scorers_router

    api.add_router("/servers", servers_router, tags=["servers"])
    api.add_router("/servers", shipped_evals_router, tags=["shipped evals"])
    api.add_router("/tools", tools_router, tags=["shipped evals"])
    api.add_router("/servers", checkup_servers_router, tags=["check-ups"])
    api.add_router("/checkups", checkups_router, tags=["check-ups"])
    api.add_router("/scenarios", scenarios_router, tags=["scenarios"])
    api.add_router("/runs", runs_router, tags=["runs"])
    api.add_router("/runs", reviews_router, tags=["reviews"])
    api.add_router("/runs", replays_router, tags=["replays"])
    api.add_router("/runs", traces_router, tags=["runs"])
    api.add_router("/reviews", reviews_export_router, tags=["reviews"])
    api.add_router("/experiments", experiments_router, tags=["experiments"])
    api.add_router("", system_router, tags=["system"])
    api.add_router("", events_router, tags=["events"])
    api.add_router("/scorers", scorers_router, tags=["scorers"])
    api.add_router("/suites", suites_router, tags=["suites"])
    api.add_router("/schemas", schemas_router, tags=["suites"])


_mount_routers()

# URLs ----------------------------------------------------------------------------------------------------------


@csrf_exempt  # Like every API view: the API checks CSRF itself, for session callers only.
@login_not_required
def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any /api/v1/ address no operation answers: the envelope, not Django's HTML 404 or the login page."""
    return _envelope(ErrorCode.RESOURCE_NOT_FOUND, f"No API endpoint at {request.path}.", {"path": request.path}, 404)


def _enveloped(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """ninja answers a wrong method with a plain-text 405 before any operation runs: give it the envelope too."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            allowed = response["Allow"]
            response = _envelope(
                ErrorCode.METHOD_NOT_ALLOWED,
                f"{request.method} is not allowed here; use {allowed}.",
                {"allowed": allowed.split(", ")},
                405,
            )
            response["Allow"] = allowed
        return response

    # LoginRequiredMiddleware would send API callers to the login page: the API authenticates for itself.
    wrapper.login_required = False  # type: ignore[attr-defined]
    return wrapper


def _public(patterns: list[URLPattern | URLResolver]) -> None:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            _public(pattern.url_patterns)
        else:
            pattern.callback = _enveloped(pattern.callback)


def api_urlpatterns() -> list[URLPattern | URLResolver]:
    patterns, app_name, namespace = api.urls
    _public(patterns)
    return [path("api/v1/", (patterns, app_name, namespace)), re_path(r"^api/v1/(?P<rest>[\s\S]*)$", api_not_found)]
