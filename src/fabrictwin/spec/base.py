"""The base of every spec: frozen, validated, no unknown keys."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Spec(BaseModel):
    """A frozen description. Unknown keys are errors (a typo must never become a default)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_default=True, use_attribute_docstrings=True
    )
    # use_attribute_docstrings: the docstring under each field becomes its description, so the
    # JSON schema and the docs carry unit and meaning (a test checks that every field has one).


class Source(Spec):
    """Where a number comes from: a URL or a document and table."""

    ref: str
    """URL, or document name plus section/table."""
    note: str = ""
    """What was read there, or how the number was derived."""
