"""The server form's stdio fields (command, arguments, working directory, environment, warm reuse): their checks.

They apply to stdio servers only; a Streamable HTTP or SSE server keeps them empty whatever was sent.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from django import forms

from evalhub import vault
from evalhub.mcp_client.warm_pool import DEFAULT_RECYCLE_AFTER
from evalhub.servers.form_parts import looks_secret_env, parse_lines

WARM_REUSE_HELP = (
    "Off (the default), every run starts its own server process. On, runs are lent an already-started process, "
    "one run at a time, so they skip the server's start-up. Only for stateless servers: whatever a run leaves in "
    "the process (memory, caches, counters, a login) is there for the next run it serves, and can change that "
    "run's result. It changes no verdict rule: runs are judged on what they record, as always. After any error (a "
    "failed or erroring tool call, a protocol error, a time limit) or a cancelled run, the process is closed and "
    "the next run starts a fresh one."
)


class StdioFieldsCleaning:
    """Mixed into ServerForm: cleaned_data and user_is_staff are the form's."""

    cleaned_data: dict[str, Any]
    user_is_staff: bool

    def _transport(self) -> str:
        return str(self.cleaned_data.get("transport") or "")

    def clean_command(self) -> str:
        command: str = self.cleaned_data["command"].strip()
        if self._transport() != "stdio":
            return ""
        if not command:
            raise forms.ValidationError("Enter the program to start, e.g. npx, uvx or /usr/local/bin/my-server.")
        if any(ch.isspace() for ch in command) and not os.path.exists(command) and shutil.which(command) is None:
            program, *rest = command.split()
            raise forms.ValidationError(
                f"Put only the program here (“{program}”) and each argument on its own line under Arguments "
                f"({', '.join(rest[:3])}{'…' if len(rest) > 3 else ''}): EvalHub never runs a shell command line."
            )
        return command

    def clean_warm_reuse(self) -> bool:
        # Only a started process can be kept warm; an HTTP server is reached afresh by every run.
        return bool(self.cleaned_data.get("warm_reuse")) and self._transport() == "stdio"

    def clean_warm_recycle_after(self) -> int:
        value = self.cleaned_data.get("warm_recycle_after")
        return DEFAULT_RECYCLE_AFTER if value is None else int(value)

    def clean_args_text(self) -> list[str]:
        if self._transport() != "stdio":
            return []
        return [line.strip() for line in self.cleaned_data["args_text"].splitlines() if line.strip()]

    def clean_cwd(self) -> str:
        cwd: str = self.cleaned_data["cwd"].strip()
        if self._transport() != "stdio":
            return ""
        if cwd and not os.path.isabs(cwd):
            raise forms.ValidationError("Give an absolute path, starting with /, or leave it empty.")
        return cwd

    def clean_env_text(self) -> dict[str, str]:
        if self._transport() != "stdio":
            return {}
        env, problems = parse_lines(self.cleaned_data["env_text"], separator="=", kind="env", secret=False)
        for name, value in env.items():
            if vault.env_reference(value):
                problems.append(f"{name}: ${{…}} references work in Secret environment variables only; move it.")
            elif looks_secret_env(name):
                problems.append(f"{name} looks like a credential: move it to Secret environment variables.")
        if problems:
            raise forms.ValidationError(problems)
        return env

    def clean_secret_env_text(self) -> dict[str, str]:
        if self._transport() != "stdio":
            return {}
        env, problems = parse_lines(self.cleaned_data["secret_env_text"], separator="=", kind="env", secret=True)
        problems += vault.reference_problems(env, is_staff=self.user_is_staff)
        if problems:
            raise forms.ValidationError(problems)
        return env
