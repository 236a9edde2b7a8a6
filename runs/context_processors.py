from __future__ import annotations

from django.http import HttpRequest

from runs.quota import QuotaStatus, quota_status


def quota(request: HttpRequest) -> dict[str, QuotaStatus]:
    """The header's run-quota meter, on every logged-in page."""
    if not request.user.is_authenticated:
        return {}
    return {"quota": quota_status()}
