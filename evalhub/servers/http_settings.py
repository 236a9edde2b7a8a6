"""The server form's HTTP transport settings (mcptest's `server.http` block): their labels, help and checks.

They apply to Streamable HTTP and SSE servers only; a stdio server keeps their defaults whatever was sent.
"""

from __future__ import annotations

import os
import ssl
from typing import Any

from django import forms

from evalhub.mcp_client.config import DEFAULT_MAX_REDIRECTS, MAX_HTTP_TIMEOUT

FIELDS = [
    "http_timeout",
    "max_redirects",
    "user_agent_override",
    "tls_insecure_skip_verify",
    "tls_ca_bundle_path",
    "tls_min_version",
]

INSECURE_WARNING = (
    "TLS certificate verification is off for this server: anyone between EvalHub and it can read and change the "
    "traffic, including its tokens and headers. Prefer a CA bundle path."
)

HELP_TEXTS = {
    "http_timeout": "Seconds an answer to one request may stay silent before the connection fails (the server "
    "is then at fault). Empty: no limit beyond the request timeout.",
    "max_redirects": f"How many redirects one request follows, only within the same scheme, host and port (a "
    f"redirect elsewhere is never followed: headers and tokens were given for this address). Default "
    f"{DEFAULT_MAX_REDIRECTS}; 0 follows none.",
    "user_agent_override": "Sent as the User-Agent header instead of the client's own. Empty: the default.",
    "tls_insecure_skip_verify": "Accept any certificate, e.g. a self-signed one on a test machine. Unsafe: "
    "prefer a CA bundle path.",
    "tls_ca_bundle_path": "Staff only. An absolute path, on the machine EvalHub runs on, of a PEM file of CA "
    "certificates to trust instead of the system's, e.g. /etc/ssl/internal-ca.pem.",
    "tls_min_version": "Refuse servers that only speak an older TLS version.",
}
LABELS = {
    "http_timeout": "HTTP timeout (seconds)",
    "max_redirects": "Max redirects",
    "user_agent_override": "User-Agent override",
    "tls_insecure_skip_verify": "Skip TLS certificate verification (unsafe)",
    "tls_ca_bundle_path": "CA bundle path",
    "tls_min_version": "Minimum TLS version",
}
WIDGETS = {
    "user_agent_override": forms.TextInput(attrs={"placeholder": "acme-probe/1.0", "spellcheck": "false"}),
    "tls_ca_bundle_path": forms.TextInput(attrs={"placeholder": "/etc/ssl/internal-ca.pem", "class": "mono"}),
}


def ca_bundle_problem(path: str) -> str | None:
    """Why `path` cannot serve as a CA bundle, or None when it loads."""
    if not os.path.isabs(path):
        return "Give an absolute path, starting with /."
    try:
        ssl.create_default_context(cafile=path)
    except FileNotFoundError:
        return f"There is no file at {path} on the machine EvalHub runs on."
    except (OSError, ValueError):  # ssl.SSLError is an OSError
        return f"{path} could not be read as PEM CA certificates; give a file of -----BEGIN CERTIFICATE----- blocks."
    return None


class HttpSettingsCleaning:
    """clean_<field> methods for ServerForm; `user_is_staff` and `instance` are the form's."""

    cleaned_data: dict[str, Any]
    user_is_staff: bool
    instance: Any

    def _is_http(self) -> bool:
        return self.cleaned_data.get("transport") in ("http", "sse")

    def clean_http_timeout(self) -> float | None:
        value = self.cleaned_data.get("http_timeout")
        if not self._is_http() or value is None:
            return None
        if not 0 < value <= MAX_HTTP_TIMEOUT:
            raise forms.ValidationError(
                f"Give the seconds an answer may stay silent, above 0 and at most {MAX_HTTP_TIMEOUT:g}, or leave it "
                "empty for no limit."
            )
        return float(value)

    def clean_max_redirects(self) -> int:
        value = self.cleaned_data.get("max_redirects")
        return DEFAULT_MAX_REDIRECTS if value is None or not self._is_http() else int(value)

    def clean_user_agent_override(self) -> str:
        value = str(self.cleaned_data.get("user_agent_override") or "").strip()
        if not self._is_http():
            return ""
        if any(not ch.isprintable() for ch in value):
            raise forms.ValidationError("A User-Agent is one line of printable characters; type it again.")
        return value

    def clean_tls_insecure_skip_verify(self) -> bool:
        return bool(self.cleaned_data.get("tls_insecure_skip_verify")) and self._is_http()

    def clean_tls_ca_bundle_path(self) -> str:
        path = str(self.cleaned_data.get("tls_ca_bundle_path") or "").strip()
        if not self._is_http() or not path:
            return ""
        # It names a file on EvalHub's own machine: only staff may choose one (keeping a stored one is fine).
        if not self.user_is_staff and path != self.instance.tls_ca_bundle_path:
            raise forms.ValidationError(
                "Only staff can point EvalHub at a file on its own machine; ask one to set the CA bundle path."
            )
        if (problem := ca_bundle_problem(path)) is not None:
            raise forms.ValidationError(problem)
        return path

    def clean_tls_min_version(self) -> str:
        return str(self.cleaned_data.get("tls_min_version") or "") if self._is_http() else ""
