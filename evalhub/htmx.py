"""The request type of views that answer htmx: django-htmx's middleware adds `request.htmx`."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
