"""What a resource or prompt scenario asks: a URI, a URI template with arguments, or a prompt with arguments.

Django-free and pure: the scenario form, the API and suite files validate with it; runs/primitives.py acts on it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")


def expand_template(template: str, arguments: dict[str, Any]) -> str:
    """An RFC 6570 level-1 template (`travel://airports/{code}`) with each value percent-encoded.

    Raises ValueError naming a placeholder without a value: the form and the API check it before a run.
    """
    missing = [name for name in _PLACEHOLDER.findall(template) if name not in arguments]
    if missing:
        raise ValueError(f"the template {template!r} needs a value for {', '.join(missing)}")
    return _PLACEHOLDER.sub(lambda m: quote(str(arguments[m.group(1)]), safe=""), template)


def primitive_request(level: str, target: str, arguments: Any) -> dict[str, Any]:
    """What a resource or prompt scenario asks, from a form's or the API's target and arguments.

    A resource target with `{name}` placeholders is a template and needs a value for each; a prompt's arguments
    are strings (prompts/get takes only strings). Raises ValueError saying what is wrong and how to fix it.
    """
    target = target.strip()
    if not target:
        raise ValueError(
            f"a {level} scenario needs a target: "
            + ("a URI or URI template." if level == "resource" else "the prompt's name.")
        )
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ValueError('arguments must be a JSON object, like {"code": "CDG"}.')
    if level == "prompt":
        bad = [key for key, value in arguments.items() if not isinstance(value, str)]
        if bad:
            raise ValueError(f"prompt arguments are strings; {bad[0]!r} is not (quote it).")
        return {"name": target, "arguments": arguments}
    if _PLACEHOLDER.search(target):
        expand_template(target, arguments)
        return {"template": target, "arguments": arguments}
    if arguments:
        raise ValueError("arguments fill a URI template's {placeholders}; this URI has none.")
    return {"uri": target}


def resource_uri(request: dict[str, Any]) -> str:
    """The URI a resource scenario reads: `uri`, or `template` expanded with `arguments`."""
    if request.get("template"):
        return expand_template(str(request["template"]), dict(request.get("arguments") or {}))
    return str(request["uri"])
