"""The small part of JSON Schema the API's routes use, checked by hand: the same schema
that the OpenAPI document shows validates each request, so the two cannot disagree.

Supported: objects with `properties`, `required` and no other fields; strings (with
`enum`), integers (with `minimum`/`maximum`), booleans, arrays of those; `null` in a
`type` list. Anything else in a schema is a programming error, raised as such.
"""

from __future__ import annotations

from typing import Any


class RequestError(ValueError):
    """A request the API refuses, with its HTTP status and a message naming the field."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def check_body(schema: dict[str, Any], body: Any) -> dict[str, Any]:
    """The body with defaults filled in; RequestError (400) names what is wrong."""
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    properties: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(body) - set(properties))
    if unknown:
        raise RequestError(
            400, f"unknown field {unknown[0]!r}; known: {', '.join(properties) or 'none'}"
        )
    missing = [name for name in schema.get("required", ()) if name not in body]
    if missing:
        raise RequestError(400, f"missing field {missing[0]!r}")
    checked = {}
    for name, field in properties.items():
        if name in body:
            checked[name] = check_value(field, body[name], name)
        else:
            checked[name] = field.get("default")
    return checked


def check_query(parameters: list[dict[str, Any]], query: dict[str, list[str]]) -> dict[str, Any]:
    """Query parameters (text) converted to their schema's type, defaults filled in."""
    known = {p["name"]: p["schema"] for p in parameters}
    unknown = sorted(set(query) - set(known))
    if unknown:
        raise RequestError(
            400, f"unknown parameter {unknown[0]!r}; known: {', '.join(known) or 'none'}"
        )
    checked: dict[str, Any] = {}
    for name, field in known.items():
        values = query.get(name)
        if not values:
            checked[name] = field.get("default")
            continue
        if len(values) > 1:
            raise RequestError(400, f"parameter {name!r} is given more than once")
        value: Any = values[0]
        if _types(field) & {"boolean"}:
            value = _flag(name, value)
        elif _types(field) & {"integer"}:
            try:
                value = int(value)
            except ValueError:
                raise RequestError(400, f"parameter {name!r} must be a whole number") from None
        checked[name] = check_value(field, value, name)
    return checked


def _flag(name: str, value: str) -> bool:
    """A boolean query parameter: true/false (or 1/0, yes/no), any case."""
    word = value.strip().lower()
    if word in ("true", "1", "yes"):
        return True
    if word in ("false", "0", "no"):
        return False
    raise RequestError(400, f"parameter {name!r} must be true or false; got {value!r}")


def check_value(field: dict[str, Any], value: Any, name: str) -> Any:
    types = _types(field)
    if value is None:
        if "null" in types:
            return None
        raise RequestError(400, f"field {name!r} may not be null")
    if "array" in types and isinstance(value, list):
        return [check_value(field["items"], v, f"{name}[{n}]") for n, v in enumerate(value)]
    if "boolean" in types and isinstance(value, bool):
        return value
    if "integer" in types and isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in field and value < field["minimum"]:
            raise RequestError(400, f"field {name!r} must be at least {field['minimum']}")
        if "maximum" in field and value > field["maximum"]:
            raise RequestError(400, f"field {name!r} must be at most {field['maximum']}")
        return value
    if "string" in types and isinstance(value, str):
        if "enum" in field and value not in field["enum"]:
            raise RequestError(
                400, f"field {name!r} must be one of {', '.join(field['enum'])}; got {value!r}"
            )
        if "maxLength" in field and len(value) > field["maxLength"]:
            raise RequestError(400, f"field {name!r} is longer than {field['maxLength']}")
        return value
    wanted = " or ".join(sorted(types - {"null"}))
    raise RequestError(400, f"field {name!r} must be {wanted}; got {type(value).__name__}")


def _types(field: dict[str, Any]) -> set[str]:
    kind = field["type"]
    types = {kind} if isinstance(kind, str) else set(kind)
    unsupported = types - {"string", "integer", "boolean", "array", "null"}
    if unsupported:
        raise TypeError(f"schema type {sorted(unsupported)} is not supported here")
    return types
