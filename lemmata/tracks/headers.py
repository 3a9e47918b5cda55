"""Reading a submission header so that a wrong header field does not hide the records' problems.

A header that misses its ``model`` still names a release, split and track, and
those are all a handler needs to check every record against the release. So
the header is validated once; its problems are reported; and when the fields
that *select* what records are checked against (``release``, ``split``,
``track``) are themselves valid and name a served release, the handler gets
them as a *context* and checks the records too. The context is only ever used
to find problems: a file with any problem is never accepted, so nothing is
scored against a partly valid header.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from lemmata.core.errors import InputError, Problem
from lemmata.formats.envelope import Envelope, skipped, validation_problems

#: header fields that select the release, split and track records are checked against
SELECTING: tuple[str, ...] = ("release", "split", "track")


@dataclass(frozen=True)
class HeaderCheck:
    """The validated header (None when it has a problem) and the context records can be checked against."""

    header: Any | None
    context: Any | None


def selecting_fields(model: type[BaseModel], selecting: tuple[str, ...] = SELECTING) -> tuple[str, ...]:
    """The selecting fields ``model`` declares, in order.

    >>> from pydantic import BaseModel
    >>> class H(BaseModel):
    ...     release: str
    ...     track: str
    ...     model: str
    >>> selecting_fields(H)
    ('release', 'track')
    """
    return tuple(f for f in selecting if f in model.model_fields)


def partial_context(model: type[BaseModel], raw: dict[str, Any], exc: ValidationError,
                    selecting: tuple[str, ...] = SELECTING) -> BaseModel | None:
    """The header's selecting fields when every one of them passed validation, else None.

    Pydantic checks every field even when another fails, so a field without an
    error was validated; an error without a location (a model-level check) means
    nothing can be trusted.

    >>> from pydantic import BaseModel
    >>> class H(BaseModel):
    ...     release: str
    ...     model: str
    >>> raw = {"release": "r-1.0.0"}
    >>> try:
    ...     H.model_validate(raw)
    ... except ValidationError as exc:
    ...     partial_context(H, raw, exc).release
    'r-1.0.0'
    >>> raw = {"release": 3, "model": "m"}
    >>> try:
    ...     H.model_validate(raw)
    ... except ValidationError as exc:
    ...     partial_context(H, raw, exc) is None
    True
    """
    fields = selecting_fields(model, selecting)
    bad = set()
    for err in exc.errors():
        if not err["loc"]:
            return None
        bad.add(err["loc"][0])
    if not fields or bad & set(fields):
        return None
    values: dict[str, Any] = {}
    for f in fields:
        if f in raw:
            values[f] = raw[f]
        elif model.model_fields[f].is_required():
            return None
    return model.model_construct(**values)


def check_header(envelope: Envelope, model: type[BaseModel], problems: list[Problem], *,
                 served_release: Callable[[Any], str] | None = None,
                 selecting: tuple[str, ...] = SELECTING) -> HeaderCheck:
    """Validate the header, appending every problem; return it and the context records can be checked against.

    ``served_release(header)`` is the release id this space serves for the
    header (it may raise InputError for a release it does not know); a header
    naming another release gets a problem and no context.
    """
    name, line = envelope.filename, envelope.header_line
    try:
        header: BaseModel | None = model.model_validate(envelope.header)
        context = header
    except ValidationError as exc:
        problems.extend(validation_problems(exc, name, line, "header"))
        header, context = None, partial_context(model, envelope.header, exc, selecting)
    if context is not None and served_release is not None:
        release = getattr(context, "release", None)
        try:
            served = served_release(context)
        except InputError as exc:
            problems.extend(Problem(name, p.reason, line, "header.release") for p in exc.problems)
            return HeaderCheck(None, None)
        if release != served:
            problems.append(Problem(name, f"release {release!r} is not served; use {served!r}", line,
                                    "header.release"))
            return HeaderCheck(None, None)
    return HeaderCheck(header, context)


def records_skipped(filename: str, model: type[BaseModel], what: str = "the records' ids") -> Problem:
    """The ``checks`` problem for records that could not be checked against a release."""
    fields = ", ".join(f"header.{f}" for f in selecting_fields(model))
    return skipped(filename, what, f"they are checked against the release the header names, and {fields} must be "
                                   "valid and name a served release first (see the header problems)")
