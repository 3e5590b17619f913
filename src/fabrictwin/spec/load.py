"""The only YAML reader of fabrictwin: YAML text -> validated, frozen spec, or a precise SpecError.

API (other packages call these for their own spec classes):

``load_model(source, Model, *, text=None, path_prefix="", context=None) -> Model``
    Read the file ``source`` (or, when ``text`` is given, parse ``text`` and use ``source`` only
    as the name in messages), validate it as ``Model`` (a :class:`fabrictwin.spec.base.Spec`)
    and return the frozen instance. Human units are converted by the field types of
    :mod:`fabrictwin.spec.quantity`; catalog ids are checked by :mod:`fabrictwin.spec.refs`.
``load_text(text, Model, *, name="<string>", context=None) -> Model``
    The same for a string.
``load_mapping(source, *, text=None, path_prefix="") -> YamlDocument``
    For custom schemas: the raw mapping (``doc.data``) with a line lookup
    (``doc.line_of(("fabric", "compute"))``), ``doc.error(path, rule)`` to build a located
    :class:`SpecError`, and ``doc.validate(Model, at=path)`` to validate one part with the same
    error reporting.

Every failure is a :class:`fabrictwin.errors.SpecError` whose message reads
``FILE:LINE YAML.PATH: RULE``, e.g.
``cluster.yaml:12 fabric.compute.fabric: 'ib-ndrr' is not a known fabric; did you mean 'ib-ndr'?``.
Unknown keys are errors with a did-you-mean; duplicate keys are errors (PyYAML would silently
keep the last one); when several rules are broken, the first is the headline and the others
follow, one per line. ``path_prefix`` is prepended to every YAML path (for a document embedded in
a larger one). ``context`` is passed to pydantic (``{"catalog": resolver}`` overrides the
registered catalog, see :mod:`fabrictwin.spec.refs`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from fabrictwin.errors import SpecError
from fabrictwin.spec.diagnose import Problem, describe

M = TypeVar("M", bound=BaseModel)
YamlPath = tuple[str | int, ...]
"""A location inside a document: mapping keys and sequence indices, outermost first."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core-schema booleans and floats.

    YAML 1.1 reads ``on``, ``off``, ``yes``, ``no``, ``y``, ``n`` as booleans, so a key ``on:``
    or a value ``country: NO`` silently became ``True``/``False`` (found by a property test);
    here only ``true``/``false`` are (boolean fields still accept the words: pydantic parses
    them). YAML 1.1 floats need a dot and a signed exponent, so ``1.5e9`` stayed a string; the
    YAML 1.2 form is accepted here.
    """


_BOOL_TAG = "tag:yaml.org,2002:bool"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_RE = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_BOOL_TAG, _FLOAT_TAG)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL_TAG, _BOOL_RE, list("tTfF"))
_Loader.add_implicit_resolver(_FLOAT_TAG, _FLOAT_RE, list("-+0123456789."))


def format_path(path: YamlPath, prefix: str = "") -> str:
    """``("fabric", "planes", 2, "nic")`` -> ``fabric.planes[2].nic`` (after ``prefix``)."""
    text = prefix
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


@dataclass(frozen=True)
class YamlDocument:
    """A parsed YAML document with the line of every key and item (1-based)."""

    data: Any
    """The plain Python value (dicts, lists, scalars) as PyYAML's safe loader builds it."""
    file: str
    """The name used in messages (a path, or ``<string>``)."""
    lines: Mapping[tuple[str, ...], int]
    """Line of each location; keys are the location with every part as ``str``."""
    path_prefix: str = ""
    """Prepended to every YAML path in messages."""

    def line_of(self, path: YamlPath) -> int | None:
        """Line of ``path``, or of its nearest enclosing location that has one."""
        key = tuple(str(part) for part in path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), None)

    def error(self, path: YamlPath, rule: str) -> SpecError:
        """A :class:`SpecError` located at ``path`` (to raise from custom schema checks)."""
        return SpecError(
            rule, path=format_path(path, self.path_prefix), file=self.file, line=self.line_of(path)
        )

    def get(self, path: YamlPath) -> Any:
        """The raw value at ``path``.

        Raises:
            KeyError: nothing sits at ``path``.
        """
        value = self.data
        for part in path:
            value = value[part]
        return value

    def validate(self, model: type[M], *, at: YamlPath = (), context: dict[str, Any] | None = None) -> M:
        """Validate the part at ``at`` as ``model``.

        Raises:
            SpecError: the part breaks a rule of ``model`` (every broken rule is listed).
        """
        raw = self.get(at)
        try:
            return model.model_validate(raw, context=context)
        except ValidationError as exc:
            raise self._translate(exc, model, at) from None

    def _translate(self, exc: ValidationError, model: type[BaseModel], at: YamlPath) -> SpecError:
        problems = [describe(err, model, self.get(at)) for err in exc.errors(include_url=False)]
        first = problems[0]
        others = "".join("\n  " + self._render(at, p) for p in problems[1:])
        return SpecError(first.rule + others, **self._where(at, first))

    def _where(self, at: YamlPath, problem: Problem) -> dict[str, Any]:
        full = at + problem.path
        line = self.line_of(full if problem.present else full[:-1])
        return {"path": format_path(full, self.path_prefix), "file": self.file, "line": line}

    def _render(self, at: YamlPath, problem: Problem) -> str:
        where = self._where(at, problem)
        return str(SpecError(problem.rule, **where))


def load_mapping(source: str | Path, *, text: str | None = None, path_prefix: str = "") -> YamlDocument:
    """Parse a YAML file (or ``text``) whose top level is a mapping.

    Raises:
        SpecError: the file cannot be read, the YAML is malformed (with the line), a key is
            repeated, or the top level is not a mapping.
    """
    doc = parse(source, text=text, path_prefix=path_prefix)
    if not isinstance(doc.data, dict):
        kind = "empty" if doc.data is None else type(doc.data).__name__
        raise SpecError(
            f"the document must be a mapping of keys to values, got {kind}", file=doc.file, line=1
        )
    return doc


def load_model(
    source: str | Path,
    model: type[M],
    *,
    text: str | None = None,
    path_prefix: str = "",
    context: dict[str, Any] | None = None,
) -> M:
    """Read ``source`` (or parse ``text``) and validate it as ``model``.

    Raises:
        SpecError: unreadable file, malformed YAML, duplicate key, unknown key, wrong type,
            bad unit, unknown catalog id, out-of-range or missing value -- located by file, line
            and YAML path, with the bad value and the rule.
    """
    doc = load_mapping(source, text=text, path_prefix=path_prefix)
    return doc.validate(model, context=context)


def load_text(
    text: str, model: type[M], *, name: str = "<string>", context: dict[str, Any] | None = None
) -> M:
    """Parse YAML ``text`` and validate it as ``model`` (messages name the document ``name``).

    Raises:
        SpecError: as :func:`load_model`.
    """
    return load_model(name, model, text=text, context=context)


def parse(source: str | Path, *, text: str | None = None, path_prefix: str = "") -> YamlDocument:
    """Parse YAML of any shape, keeping the line of every key and item.

    Raises:
        SpecError: the file cannot be read, the YAML is malformed, or a key is repeated.
    """
    name = str(source)
    if text is None:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(f"cannot read the file: {exc.strerror or exc}", file=name) from None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        rule = f"malformed YAML: {exc.problem or exc.context}"
        raise SpecError(rule, file=name, line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {(): 1}
    if node is not None:
        _index(node, (), lines, name)
    return YamlDocument(data=data, file=name, lines=lines, path_prefix=path_prefix)


def _index(node: yaml.Node, path: YamlPath, lines: dict[tuple[str, ...], int], name: str) -> None:
    """Record the line of every key and item under ``node``; reject duplicate keys."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                where = format_path((*path, key))
                raise SpecError(f"key {key!r} appears twice", path=where, file=name, line=line)
            seen.add(key)
            lines[tuple(str(p) for p in (*path, key))] = line
            _index(value_node, (*path, key), lines, name)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[tuple(str(p) for p in (*path, i))] = item.start_mark.line + 1
            _index(item, (*path, i), lines, name)
