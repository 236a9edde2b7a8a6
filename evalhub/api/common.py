"""What every router of the API shares: the error type, the envelope, scopes, pagination.

Handlers raise `ApiError` (or let a service's own domain error through); `evalhub.api` turns both into the one
documented envelope `{"error": {"code", "message", "details"}}`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Generic, TypeVar

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Model, QuerySet
from django.forms import BaseForm
from django.http import HttpRequest
from ninja import Field, Schema
from pydantic import BeforeValidator

from evalhub.api_keys.models import ApiKey
from evalhub.ids import MAX_ID


class ErrorCode(StrEnum):
    VALIDATION_ERROR = "VALIDATION_ERROR"
    AUTHENTICATION_REQUIRED = "AUTHENTICATION_REQUIRED"
    INSUFFICIENT_PERMISSIONS = "INSUFFICIENT_PERMISSIONS"
    RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    CONFLICT = "CONFLICT"
    SERVER_UNREACHABLE = "SERVER_UNREACHABLE"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    RATE_LIMIT_EXCEEDED = "RATE_LIMIT_EXCEEDED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


STATUS = {
    ErrorCode.VALIDATION_ERROR: 400,
    ErrorCode.AUTHENTICATION_REQUIRED: 401,
    ErrorCode.INSUFFICIENT_PERMISSIONS: 403,
    ErrorCode.RESOURCE_NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.CONFLICT: 409,
    ErrorCode.SERVER_UNREACHABLE: 422,
    ErrorCode.QUOTA_EXCEEDED: 429,
    ErrorCode.RATE_LIMIT_EXCEEDED: 429,
    ErrorCode.INTERNAL_ERROR: 500,
}


class ApiError(Exception):
    """The one exception API handlers raise for anything the client should hear about."""

    def __init__(self, code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    @property
    def status(self) -> int:
        return STATUS[self.code]


def not_found(what: str, ident: object) -> ApiError:
    return ApiError(ErrorCode.RESOURCE_NOT_FOUND, f"{what} {ident} does not exist.", {"resource": what, "id": ident})


def invalid(message: str, **details: Any) -> ApiError:
    return ApiError(ErrorCode.VALIDATION_ERROR, message, details)


# What every resource's get/update/delete shares. Who may do what stays at each route, where a reader looks.

M = TypeVar("M", bound=Model)


def get_or_404(queryset: QuerySet[M], what: str, ident: int) -> M:
    """The record with this id, or the envelope's 404 naming what was looked for."""
    found = queryset.filter(pk=ident).first()
    if found is None:
        raise not_found(what, ident)
    return found


def form_errors(form: BaseForm, api_names: dict[str, str]) -> ApiError:
    """A UI form's errors as a 400 whose fields are the API's names (`api_names` maps form field → API field)."""
    errors = {api_names.get(name, name): [str(m) for m in messages] for name, messages in form.errors.items()}
    first_field, first_messages = next(iter(errors.items()))
    first = first_messages[0]
    # Messages that already point inside the field (`expectations[2].args.latitude: …`) keep their own pointer.
    pointed = first.startswith((f"{first_field}[", f"{first_field}:"))
    return invalid(first if pointed else f"{first_field}: {first}", fields=errors)


def patched(current: dict[str, Any], changes: dict[str, Any], *, nullable: tuple[str, ...] = ()) -> dict[str, Any]:
    """PATCH semantics: the stored values with the fields the client sent; null means "unchanged" except for the
    `nullable` fields, where it clears the value."""
    return current | {name: value for name, value in changes.items() if value is not None or name in nullable}


class ErrorBody(Schema):
    code: str = Field(examples=["VALIDATION_ERROR"])
    message: str
    details: dict[str, Any]


class ErrorOut(Schema):
    error: ErrorBody


# Every operation can answer these; each operation adds the ones only it produces (404, 409, 422).
COMMON_ERRORS = (400, 401, 403, 429)


def responses(ok: dict[int, Any], *errors: int) -> dict[int, Any]:
    """An operation's documented responses: its success schema plus the error envelope for each error status."""
    return {**ok, **dict.fromkeys(sorted({*COMMON_ERRORS, *errors}), ErrorOut)}


# A schema property holding this key refers to the OpenAPI component it names (see EvalHubAPI.get_openapi_schema).
COMPONENT_MARKER = "x-evalhub-component"


# Scopes ------------------------------------------------------------------------------------------------------

READ = ApiKey.Scope.READ.value
WRITE = ApiKey.Scope.WRITE.value
ADMIN = ApiKey.Scope.ADMIN.value
EXPORT = ApiKey.Scope.EXPORT.value
ALL_SCOPES = frozenset({READ, WRITE, ADMIN, EXPORT})


@dataclass(frozen=True)
class Principal:
    """Who is calling: a logged-in browser session or an API key, with the scopes that apply."""

    user: AbstractBaseUser
    scopes: frozenset[str]
    key: ApiKey | None = None
    via: str = field(default="session")

    @property
    def rate_limit_ident(self) -> str:
        return f"key:{self.key.pk}" if self.key is not None else f"user:{self.user.pk}"


def principal(request: HttpRequest) -> Principal:
    """The authenticated caller; every operation that reaches a handler has one (auth ran first)."""
    found = getattr(request, "auth", None)
    assert isinstance(found, Principal)
    return found


def acting_user(request: HttpRequest) -> AbstractBaseUser | AnonymousUser:
    return principal(request).user


def require_admin(request: HttpRequest, action: str) -> None:
    """stdio servers run commands on this machine: they need a staff user *and* the evaluate:admin scope."""
    caller = principal(request)
    if ADMIN not in caller.scopes or not getattr(caller.user, "is_staff", False):
        raise ApiError(
            ErrorCode.INSUFFICIENT_PERMISSIONS,
            f"{action} needs a staff account and the {ADMIN} scope.",
            {"required_scope": ADMIN, "requires_staff": True},
        )


def require_object_body(request: HttpRequest, example: str) -> None:
    """Raise 400 unless the body is a JSON object or empty: ninja reads a falsy JSON body (false, 0, "") as no
    fields at all, and `true` as the defaults; either is a client's mistake all the same."""
    try:
        body_ok = isinstance(json.loads(request.body or b"null"), dict | None)
    except ValueError:
        body_ok = False
    if not body_ok:
        raise invalid(f"The body must be a JSON object such as {example}, or empty.", field="body")


def _not_a_boolean(value: Any) -> Any:
    # pydantic reads JSON true/false as 1/0 for an int; `"server_id": true` must not pick record 1.
    if isinstance(value, bool):
        raise ValueError(f"an id is a number, not {str(value).lower()}")
    return value


# Ids of records: positive 64-bit integers. Larger ones would overflow the database's integer, not just miss.
Id = Annotated[int, BeforeValidator(_not_a_boolean), Field(ge=1, le=MAX_ID)]


# Pagination --------------------------------------------------------------------------------------------------

T = TypeVar("T")
MAX_LIMIT = 200


class PageParams(Schema):
    limit: int = Field(50, ge=1, le=MAX_LIMIT, description=f"Items per page (1 to {MAX_LIMIT}).")
    offset: int = Field(0, ge=0, le=1_000_000_000, description="Items to skip.")


class Page(Schema, Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int


def paginate(queryset: QuerySet[Any], params: PageParams, *, out: Callable[[Any], Any]) -> dict[str, Any]:
    """One page of `queryset`, each item turned into its API shape by `out`, with the total for the pager."""
    total = queryset.count()
    items = [out(item) for item in queryset[params.offset : params.offset + params.limit]]
    return {"items": items, "total": total, "limit": params.limit, "offset": params.offset}
