"""Load a policy YAML with every error located by file, line and YAML path."""

from __future__ import annotations

from pathlib import Path

from fabrictwin.spec.load import load_mapping
from fabrictwin.spec.policy import PolicySpec, reference_problems


def load_policy(source: str | Path, *, text: str | None = None) -> PolicySpec:
    """Read and validate a tenant policy (``text`` replaces reading ``source`` when given).

    Raises:
        SpecError: malformed YAML, unknown key, bad value or unit (from :mod:`fabrictwin.spec.load`),
            or a broken cross reference (unknown VPC, server, group, peer; duplicate name, VNI
            or VF; VM address outside its VPC), each at the line of the offending value. Several
            reference problems are listed one per line after the first.
    """
    doc = load_mapping(source, text=text)
    policy = doc.validate(PolicySpec, context={"defer_references": True})
    problems = reference_problems(policy)
    if problems:
        first = doc.error(*problems[0])
        if len(problems) == 1:
            raise first
        rest = "".join(f"\n  {doc.error(path, rule)}" for path, rule in problems[1:])
        raise type(first)(first.rule + rest, path=first.path, file=first.file, line=first.line)
    return policy
