"""The tools a client's request declares (OpenAI's and Ollama's `tools`, OpenAI's
`tool_choice`), read as the specs the turn offers its model and hands calls of back, and
whether its first request must call one.

Both APIs declare a tool the same way: `{"type": "function", "function": {name,
description, parameters}}`, the parameters a JSON Schema of an object. What a model could
not be offered is refused here, in words that name the parameter, within bounds (a
request's tools are sent with every step of its turn): OpenAI's 128 tools at most, its
name rule, and a size.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.serve.errors import ClientError
from routing.wires.base import ToolChoice, ToolSpec

MAX_TOOLS = 128  # OpenAI's own limit on a request's tools
MAX_TOOLS_BYTES = 512 * 1024  # every tool's JSON together
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # OpenAI's rule for a function's name

FUNCTIONS_REFUSED = (
    "'functions' (and 'function_call') are OpenAI's deprecated way to offer tools, which "
    "this server does not take: send them as 'tools' "
    '([{"type": "function", "function": {...}}]), and answers come back as tool_calls.'
)


def _invalid(message: str, param: str) -> ClientError:
    return ClientError(400, message, param=param, code="invalid_value")


def tool_specs(raw: Any, param: str = "tools") -> tuple[ToolSpec, ...]:
    """The declared tools as specs; `ClientError` (400) for any the model could not take."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ClientError(
            400, f"Invalid type for '{param}': expected an array.", param=param, code="invalid_type"
        )
    if len(raw) > MAX_TOOLS:
        raise _invalid(
            f"Invalid '{param}': {len(raw)} tools; this server takes at most {MAX_TOOLS}.", param
        )
    if len(json.dumps(raw, separators=(",", ":"))) > MAX_TOOLS_BYTES:
        raise _invalid(
            f"Invalid '{param}': the tools are larger than {MAX_TOOLS_BYTES // 1024} KB "
            "altogether: describe them more briefly, or offer fewer.",
            param,
        )
    specs: list[ToolSpec] = []
    for index, tool in enumerate(raw):
        spec = _spec(tool, f"{param}[{index}]")
        if any(s.name == spec.name for s in specs):
            raise _invalid(
                f"Invalid '{param}': two tools are named {spec.name!r}; each name once.", param
            )
        specs.append(spec)
    return tuple(specs)


def _spec(tool: Any, where: str) -> ToolSpec:
    if not isinstance(tool, dict) or tool.get("type", "function") != "function":
        raise _invalid(
            f"Invalid '{where}': this server takes tools of type 'function' "
            '({"type": "function", "function": {"name": ..., "parameters": {...}}}).',
            f"{where}.type",
        )
    function = tool.get("function")
    if not isinstance(function, dict):
        raise ClientError(
            400,
            f"Missing required parameter: '{where}.function'.",
            param=f"{where}.function",
            code="missing_required_parameter",
        )
    name = function.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise _invalid(
            f"Invalid '{where}.function.name': {name!r}. A tool's name is 1 to 64 letters, "
            "digits, underscores and dashes.",
            f"{where}.function.name",
        )
    description = function.get("description") or ""
    if not isinstance(description, str):
        raise _invalid(f"Invalid '{where}.function.description': expected a string.", where)
    parameters = function.get("parameters")
    if parameters is None:
        return ToolSpec(name, description)
    if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
        raise _invalid(
            f"Invalid schema for function {name!r}: the parameters must be a JSON Schema of "
            'an object ({"type": "object", "properties": {...}}).',
            f"{where}.function.parameters",
        )
    return ToolSpec(name, description, parameters)


def chosen_tools(
    specs: tuple[ToolSpec, ...], choice: Any
) -> tuple[tuple[ToolSpec, ...], ToolChoice | None]:
    """The tools offered under OpenAI's `tool_choice`, and the choice the turn's first
    request carries: "auto" (or none said) offers them all and leaves the call to the
    model; "none" offers none; "required" makes it call one; a function named, that one
    (which must be among `tools`). What can't be made sure of for the answering model
    (Ollama's API has no tool choice) the turn says in a notice."""
    if choice is None or choice == "auto":
        return specs, None
    if choice == "none":
        return (), None
    if choice == "required":
        if not specs:
            raise _invalid(
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
                "are specified.",
                "tool_choice",
            )
        return specs, ToolChoice("required")
    if isinstance(choice, dict):
        name = _named(choice)
        if all(spec.name != name for spec in specs):
            raise _invalid(
                f"Invalid value for 'tool_choice': the function {name!r} is not one of "
                "'tools': name a function the request offers.",
                "tool_choice.function.name",
            )
        return specs, ToolChoice.named(name)
    raise _invalid(
        f"Invalid value for 'tool_choice': {choice!r}. Supported values are: 'none', 'auto', "
        "'required', or a named function.",
        "tool_choice",
    )


def _named(choice: dict[str, Any]) -> str:
    """The function a `tool_choice` object names ({"type": "function", "function":
    {"name": N}}); OpenAI's other kinds (allowed_tools, custom) are refused."""
    if choice.get("type") != "function":
        raise ClientError(
            400,
            f"Invalid value for 'tool_choice.type': {choice.get('type')!r}. This server takes "
            "'none', 'auto', 'required', or a function named "
            '({"type": "function", "function": {"name": ...}}).',
            param="tool_choice.type",
            code="unsupported_value",
        )
    function = choice.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        raise ClientError(
            400,
            "Missing required parameter: 'tool_choice.function.name'.",
            param="tool_choice.function.name",
            code="missing_required_parameter",
        )
    return name
