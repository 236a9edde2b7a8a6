"""The form that registers an MCP server: the fields of one transport, and secrets that only go one way.

Secrets (the bearer token, secret headers, secret environment variables) are typed in, sealed into the database
and never sent back to the browser. A stored one shows as "•••• set" with a field to replace it and a box to
remove it; leaving the field empty keeps it. When the form comes back with errors, secret values the user just
typed are dropped too (names stay), so a page never carries a credential.
"""

from __future__ import annotations

from typing import Any

from django import forms

from evalhub import outbound, vault
from evalhub.egress import EgressPolicy, origin, url_refusal
from evalhub.mcp_client.config import ALWAYS_SECRET_HEADERS
from evalhub.mcp_client.warm_pool import DEFAULT_RECYCLE_AFTER
from evalhub.servers import http_settings
from evalhub.servers.form_parts import (
    MASK,
    Fieldset,
    SecretLinesField,
    SecretRow,
    add_secret_rows,
    parse_lines,
    secret_input,
    textarea,
    url_shape_problem,
)
from evalhub.servers.models import McpServer
from evalhub.servers.stdio_fields import WARM_REUSE_HELP, StdioFieldsCleaning
from evalhub.vault import SecretUnavailable

STORED_ENCRYPTED_NOTE = (
    "Stored encrypted and never shown again. Staff may give ${ENV_VAR} instead, for a variable an operator allowed "
    "in EVALHUB_SECRET_ENV_ALLOWLIST: EvalHub then reads it from its web app's and worker's environment."
)


class ServerForm(StdioFieldsCleaning, http_settings.HttpSettingsCleaning, forms.ModelForm):
    args_text = forms.CharField(
        label="Arguments",
        required=False,
        widget=textarea("-y\n@modelcontextprotocol/server-everything", rows=4),
        help_text="One argument per line, passed to the command exactly as written: no shell, so no quotes, "
        "globs or $VARIABLES. Leading and trailing spaces and blank lines are dropped.",
    )
    env_text = forms.CharField(
        label="Environment variables",
        required=False,
        widget=textarea("LOG_LEVEL=debug"),
        help_text="NAME=value, one per line. The server gets only these plus a minimal environment (PATH, HOME, "
        "LANG…); EvalHub's own settings and keys are never passed on. Tokens and passwords go below.",
    )
    secret_env_text = SecretLinesField(
        separator="=",
        label="Secret environment variables",
        required=False,
        widget=textarea("GITHUB_TOKEN=ghp_…  or  GITHUB_TOKEN=${GITHUB_TOKEN}"),
        help_text=f"NAME=value, one per line. {STORED_ENCRYPTED_NOTE}",
    )
    # Not the model's URLField: its validator refuses hosts without a dot, like a Docker service name.
    url = forms.CharField(
        label="URL",
        required=False,
        max_length=2000,
        widget=forms.TextInput(
            attrs={"placeholder": "https://example.com/mcp", "class": "mono", "spellcheck": "false"}
        ),
        help_text="Streamable HTTP endpoints usually end in /mcp, SSE ones in /sse. Changing the scheme, host or "
        "port removes the stored bearer token and secret headers (they were meant for the old address) unless you "
        "type them again in the same save.",
    )
    headers_text = forms.CharField(
        label="Extra headers",
        required=False,
        widget=textarea("X-Tenant: acme"),
        help_text="Name: value, one per line, sent with every request. Credentials (Authorization, API keys, "
        "cookies) go under Secret headers or Bearer token.",
    )
    secret_headers_text = SecretLinesField(
        separator=":",
        label="Secret headers",
        required=False,
        widget=textarea("X-Api-Key: …  or  X-Api-Key: ${MY_API_KEY}"),
        help_text=f"Name: value, one per line. {STORED_ENCRYPTED_NOTE}",
    )
    bearer_token = forms.CharField(
        label="Bearer token",
        required=False,
        widget=secret_input(spellcheck="false"),
        help_text=f"Sent as “Authorization: Bearer <token>”. {STORED_ENCRYPTED_NOTE}",
    )
    clear_bearer_token = forms.BooleanField(label="Remove the bearer token", required=False)
    connect_timeout = forms.FloatField(
        label="Connect timeout (seconds)",
        min_value=1,
        max_value=600,
        initial=30,
        help_text="Seconds to start the server or open the connection and finish the MCP handshake; an "
        "inspection must also finish within it. Default 30.",
    )
    request_timeout = forms.FloatField(
        label="Request timeout (seconds)",
        min_value=1,
        max_value=3600,
        initial=60,
        help_text="Seconds one request, such as a tool call during a run, may take. Default 60.",
    )

    class Meta:
        model = McpServer
        fields = [
            "name",
            "description",
            "transport",
            "command",
            "cwd",
            "connect_timeout",
            "request_timeout",
            "protocol_mode",
            "warm_reuse",
            "warm_recycle_after",
            *http_settings.FIELDS,
        ]
        labels = {
            **http_settings.LABELS,
            "protocol_mode": "Protocol",
            "warm_reuse": "Reuse warm server processes (stateless servers only)",
            "warm_recycle_after": "Recycle a process after (runs)",
        }
        widgets = {
            **http_settings.WIDGETS,
            "description": forms.Textarea(attrs={"rows": 2}),
            "transport": forms.RadioSelect,
            "command": forms.TextInput(attrs={"placeholder": "npx", "class": "mono", "spellcheck": "false"}),
            "cwd": forms.TextInput(attrs={"placeholder": "/srv/my-mcp-server", "class": "mono"}),
        }
        help_texts = {
            **http_settings.HELP_TEXTS,
            "name": "How scenarios and runs refer to this server.",
            "transport": "stdio: EvalHub starts the server as a local process (staff only: it runs a command on "
            "this machine). Streamable HTTP: the current transport for remote servers, usually at …/mcp. "
            "SSE: the older HTTP transport, usually at …/sse.",
            "command": "The program only, e.g. npx, uvx, python or an absolute path. It is started directly, "
            "never through a shell; its arguments go below.",
            "cwd": "An absolute path the command starts in. Empty: the directory EvalHub runs in.",
            "protocol_mode": "Automatic suits every server. Choose “Legacy handshake only” for old servers that "
            "hang instead of rejecting the newer protocol's first request.",
            "warm_reuse": WARM_REUSE_HELP,
            "warm_recycle_after": "A process serves at most this many runs, then a fresh one starts. Default "
            f"{DEFAULT_RECYCLE_AFTER}.",
        }
        error_messages = {"name": {"unique": "A server with this name already exists; choose another name."}}

    def __init__(self, *args: Any, is_staff: bool, user_is_staff: bool | None = None, **kwargs: Any) -> None:
        # is_staff: may save stdio servers (the API also wants a scope); user_is_staff: ${VAR} and private URLs.
        super().__init__(*args, **kwargs)
        server: McpServer = self.instance
        self.allows_stdio = is_staff
        self.user_is_staff = is_staff if user_is_staff is None else user_is_staff
        self.dropped_secrets: list[str] = []
        # Left empty (or not sent, by a client that predates it): the default.
        self.fields["warm_recycle_after"].required = False
        self.fields["max_redirects"].required = False
        transport = self.fields["transport"]
        assert isinstance(transport, forms.ChoiceField)
        transport.choices = [
            (value, label) for value, label in McpServer.Transport.choices if is_staff or value != "stdio"
        ]
        if not is_staff:
            transport.help_text = (
                "Streamable HTTP: the current transport for remote servers, usually at …/mcp. SSE: the older "
                "HTTP transport, usually at …/sse. (Only staff can add stdio servers, which run a command here.)"
            )
        try:
            self.stored: dict[str, Any] = server.secrets()
            self.secrets_lost = False
        except SecretUnavailable:
            # SECRET_KEY changed: the old secrets cannot be read; saving replaces them.
            self.stored = {"bearer_token": "", "env": {}, "headers": {}}
            self.secrets_lost = True
        self._rows = add_secret_rows(self.fields, self.stored)
        if self.stored["bearer_token"]:
            self.fields["bearer_token"].widget.attrs["placeholder"] = f"{MASK} set — type to replace"
            self.fields["bearer_token"].label = "New bearer token"
            self.fields["bearer_token"].widget.attrs["aria-label"] = "New bearer token"
            self.fields["clear_bearer_token"].widget.attrs["aria-label"] = "Remove the bearer token"
        else:
            del self.fields["clear_bearer_token"]
        if self._rows["env"]:
            self.fields["secret_env_text"].label = "Add secret environment variables"
        if self._rows["headers"]:
            self.fields["secret_headers_text"].label = "Add secret headers"
        if server.pk:
            self.initial["url"] = server.url
            for name in ("connect_timeout", "request_timeout"):
                self.initial[name] = f"{getattr(server, name):g}"  # "30", not "30.0"
            self.initial["args_text"] = "\n".join(server.args)
            self.initial["env_text"] = "\n".join(f"{k}={v}" for k, v in server.env.items())
            self.initial["headers_text"] = "\n".join(f"{k}: {v}" for k, v in server.headers.items())

    # Layout ------------------------------------------------------------------------------------------------

    def fieldsets(self) -> list[Fieldset]:
        def bound(*names: str) -> list[forms.BoundField]:
            return [self[name] for name in names if name in self.fields]

        def rows(kind: str) -> list[SecretRow]:
            return [SecretRow(name, self[value], self[clear]) for name, value, clear in self._rows[kind]]

        bearer = (
            [SecretRow("Bearer token", self["bearer_token"], self["clear_bearer_token"])]
            if "clear_bearer_token" in self.fields
            else []
        )
        stdio = Fieldset(
            "Command (stdio)",
            "stdio",
            bound("command", "args_text", "cwd", "env_text", "secret_env_text"),
            rows("env"),
        )
        return [
            Fieldset("Server", "", bound("name", "description", "transport")),
            *([stdio] if self.allows_stdio else []),
            Fieldset(
                "Address (Streamable HTTP or SSE)",
                "http sse",
                bound("url", "headers_text", "secret_headers_text", *([] if bearer else ["bearer_token"])),
                rows("headers") + bearer,
            ),
            Fieldset("Connection", "", bound("connect_timeout", "request_timeout", "protocol_mode")),
            Fieldset("HTTP transport (Streamable HTTP or SSE)", "http sse", bound(*http_settings.FIELDS)),
            *(
                [Fieldset("Warm reuse (stdio)", "stdio", bound("warm_reuse", "warm_recycle_after"))]
                if self.allows_stdio
                else []
            ),
        ]

    def secrets_were_typed(self) -> bool:
        """The form failed with secret values typed in: they are not sent back, so the page asks for them again."""
        if not (self.is_bound and self.errors):
            return False
        secret_fields = ["bearer_token", "secret_env_text", "secret_headers_text"]
        secret_fields += [value for kind in self._rows.values() for _, value, _ in kind]
        return any(str(self.data.get(name, "")).strip() for name in secret_fields)

    # Cleaning ----------------------------------------------------------------------------------------------

    def clean_url(self) -> str:
        url: str = self.cleaned_data["url"].strip()
        if self._transport() not in ("http", "sse"):
            return ""
        if not url:
            raise forms.ValidationError("Enter the server's URL, e.g. https://example.com/mcp.")
        if (problem := url_shape_problem(url)) is not None:
            raise forms.ValidationError(problem)
        if (refusal := url_refusal(url, self._egress(url))) is not None:
            raise forms.ValidationError(refusal)
        return url

    def _egress(self, url: str) -> EgressPolicy:
        """As its creator may (McpServer.to_config), and as the user saving it may when they move it."""
        server: McpServer = self.instance
        owner_is_staff = server.owner_is_staff if server.pk else self.user_is_staff
        if server.pk and origin(url) != origin(server.url):
            owner_is_staff = owner_is_staff and self.user_is_staff
        return outbound.egress_policy(owner_is_staff=owner_is_staff)

    def clean_headers_text(self) -> dict[str, str]:
        if self._transport() not in ("http", "sse"):
            return {}
        headers, problems = parse_lines(self.cleaned_data["headers_text"], separator=":", kind="header", secret=False)
        for name, value in headers.items():
            if vault.env_reference(value):
                problems.append(f"{name}: ${{…}} references work in Secret headers only; move it there.")
            elif name.lower() in ALWAYS_SECRET_HEADERS:
                problems.append(f"{name} carries a credential: move it to Secret headers (or use Bearer token).")
        if problems:
            raise forms.ValidationError(problems)
        return headers

    def clean_secret_headers_text(self) -> dict[str, str]:
        if self._transport() not in ("http", "sse"):
            return {}
        text = self.cleaned_data["secret_headers_text"]
        headers, problems = parse_lines(text, separator=":", kind="header", secret=True)
        problems += vault.reference_problems(headers, is_staff=self.user_is_staff)
        if problems:
            raise forms.ValidationError(problems)
        return headers

    def clean_bearer_token(self) -> str:
        token: str = self.cleaned_data["bearer_token"].strip()
        if token.lower().startswith("bearer "):
            token = token[7:].strip()  # pasted with its scheme; EvalHub adds "Bearer " itself
        if token.startswith("${") and vault.env_reference(token) is None:
            raise forms.ValidationError("An environment variable reference looks like ${MY_TOKEN}.")
        if any(ch.isspace() for ch in token):
            raise forms.ValidationError("A token has no spaces or line breaks; paste it again.")
        if problems := vault.reference_problems({"Bearer token": token}, is_staff=self.user_is_staff):
            raise forms.ValidationError(problems)
        return token

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        transport = self._transport()
        # Stored secrets were given for one address: a new scheme, host or port must not receive them.
        url = self.cleaned_data.get("url")
        self.moved = bool(self.instance.pk) and url is not None and origin(url) != origin(self.instance.url)
        self.secret_values: dict[str, Any] = {"bearer_token": "", "env": {}, "headers": {}}
        if transport == "stdio":
            secret = self._merged("env", self.cleaned_data.get("secret_env_text") or {})
            both = sorted(set(secret) & set(self.cleaned_data.get("env_text") or {}))
            if both:
                self.add_error("env_text", f"{', '.join(both)} is also a secret variable; keep one of the two.")
            self.secret_values["env"] = secret
        elif transport in ("http", "sse"):
            secret = self._merged("headers", self.cleaned_data.get("secret_headers_text") or {})
            plain = {name.lower() for name in self.cleaned_data.get("headers_text") or {}}
            both = sorted(name for name in secret if name.lower() in plain)
            if both:
                self.add_error("headers_text", f"{', '.join(both)} is also a secret header; keep one of the two.")
            token = self.cleaned_data.get("bearer_token") or ""
            if not token and not self.cleaned_data.get("clear_bearer_token") and self.stored["bearer_token"]:
                token = "" if self.moved else self.stored["bearer_token"]
                self.dropped_secrets += ["Bearer token"] if self.moved else []
            if token and "authorization" in {name.lower() for name in secret}:
                self.add_error(
                    "secret_headers_text", "Give either a bearer token or an Authorization header, not both."
                )
            self.secret_values = {"bearer_token": token, "env": {}, "headers": secret}
        return cleaned

    def _merged(self, kind: str, added: dict[str, str]) -> dict[str, str]:
        """Stored secrets of one kind, with the rows' replacements and removals applied, plus the added ones."""
        merged: dict[str, str] = {}
        for name, value_key, clear_key in self._rows[kind]:
            if self.cleaned_data.get(clear_key):
                continue
            new = (self.cleaned_data.get(value_key) or "").strip()
            if new.startswith("${") and vault.env_reference(new) is None:
                self.add_error(value_key, f"{name}: an environment variable reference looks like ${{MY_TOKEN}}.")
            for problem in vault.reference_problems({name: new}, is_staff=self.user_is_staff):
                self.add_error(value_key, problem)
            if not new and self.moved:
                self.dropped_secrets.append(f"{'env' if kind == 'env' else 'header'} {name}")
                continue
            merged[name] = new or self.stored[kind][name]
        added_keys = {name.lower() if kind == "headers" else name: name for name in added}
        merged = {n: v for n, v in merged.items() if (n.lower() if kind == "headers" else n) not in added_keys}
        return merged | added

    def save(self, commit: bool = True) -> McpServer:
        server: McpServer = super().save(commit=False)
        data = self.cleaned_data
        server.args = data["args_text"]
        server.env = data["env_text"]
        server.url = data["url"]
        server.headers = data["headers_text"]
        server.set_secrets(**self.secret_values)
        if commit:
            server.save()
        return server
