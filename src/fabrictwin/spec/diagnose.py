"""Turn one pydantic error into a located, human rule (used by :mod:`fabrictwin.spec.load`).

Pydantic locations may carry union-member tags and ``[key]`` markers that are not in the YAML;
:func:`describe` walks the raw data to keep only the parts a user wrote, finds the bad value, and
words the rule with a did-you-mean for unknown keys and literal choices.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from fabrictwin.spec.refs import suggest

_MISSING = object()
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")
_PREFIXES = ("Value error, ", "Assertion failed, ")
_SELF_DESCRIBED = {"quantity", "catalog_id", "value_error", "assertion_error"}
"""Error types whose message is written by our validators and already names the bad value."""


@dataclass(frozen=True)
class Problem:
    """One broken rule, located relative to the validated part of the document."""

    path: tuple[str | int, ...]
    """Keys and indices from the validated part down to the bad value."""
    rule: str
    """The rule in words, with the bad value."""
    present: bool
    """The location exists in the document (False for a missing key)."""


def describe(err: ErrorDetails, model: type[BaseModel], raw: Any) -> Problem:
    """Word ``err`` (from validating ``raw`` as ``model``) as a :class:`Problem`."""
    path, value, is_key = _locate(raw, err["loc"])
    kind = err["type"]
    if kind == "missing":
        return Problem(path, "required key is missing", present=False)
    if kind == "extra_forbidden":
        key = str(path[-1]) if path else "?"
        allowed = _fields_at(model, path[:-1])
        hint = f"; {suggest(key, allowed)}" if allowed else ""
        return Problem(path, f"unknown key {key!r}{hint}", present=True)
    if kind in ("literal_error", "enum"):
        return Problem(path, _choice_rule(err, value, is_key), present=True)
    return Problem(path, _generic_rule(err, value), present=True)


def _locate(raw: Any, loc: tuple[int | str, ...]) -> tuple[tuple[str | int, ...], Any, bool]:
    """Keep the parts of ``loc`` present in ``raw``; return (path, value there, loc is a dict key)."""
    is_key = bool(loc) and loc[-1] == "[key]"
    parts = loc[:-1] if is_key else loc
    path: list[str | int] = []
    value: Any = raw
    for i, part in enumerate(parts):
        child = _child(value, part)
        if child is not _MISSING:
            path.append(part)
            value = child
        elif i == len(parts) - 1:
            path.append(part)  # a missing key: keep its name
            value = _MISSING
        # else: a union tag or validator name that is not part of the document
    if is_key and path:
        value = path[-1]
    return tuple(path), value, is_key


def _child(value: Any, part: int | str) -> Any:
    if isinstance(value, Mapping) and part in value:
        return value[part]
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return value[part]
    return _MISSING


def _choice_rule(err: ErrorDetails, value: Any, is_key: bool) -> str:
    expected_text = str((err.get("ctx") or {}).get("expected", ""))
    choices = _QUOTED.findall(expected_text)
    what = "key" if is_key else "value"
    rule = f"{_show(value)} is not an allowed {what}; expected {expected_text}"
    close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6)
    return rule + (f"; did you mean {close[0]!r}?" if close else "")


def _generic_rule(err: ErrorDetails, value: Any) -> str:
    msg = err["msg"]
    for prefix in _PREFIXES:
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    if err["type"] not in _SELF_DESCRIBED and msg[1:2].islower():
        msg = msg[:1].lower() + msg[1:]  # pydantic's "Input should ..." reads on after "path:"
    if err["type"] in _SELF_DESCRIBED or value is _MISSING:
        return msg
    # pydantic never echoes the input; say what was written
    if isinstance(value, Mapping):
        shown = "a mapping"
    elif isinstance(value, list):
        shown = "a list"
    else:
        shown = _show(value)
    return f"{msg} ({shown})" if " got " in msg else f"{msg}, got {shown}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields_at(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """Field names of the model found at ``path`` under ``model`` (empty when not a model)."""
    annotation: Any = model
    for part in path:
        annotation = _descend(annotation, part)
        if annotation is None:
            return []
    for candidate in _members(annotation):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return list(candidate.model_fields)
    return []


def _members(annotation: Any) -> list[Any]:
    """Strip ``Annotated`` and split unions into their members."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _members(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [m for arg in typing.get_args(annotation) for m in _members(arg)]
    return [annotation]


def _descend(annotation: Any, part: str | int) -> Any:
    """The annotation one step down (field of a model, item of a list, value of a dict)."""
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            field = member.model_fields.get(str(part))
            if field is not None:
                return field.annotation
            continue
        origin = typing.get_origin(member)
        args = typing.get_args(member)
        if origin in (list, tuple, set, frozenset) and args and isinstance(part, int):
            return args[0]
        if origin in (dict, Mapping) and len(args) == 2:
            return args[1]
    return None
