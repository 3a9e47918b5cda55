"""The strict pydantic bases every record, header and file model builds on.

Files people write by hand (submissions, metadata, reported tables) and files
the library writes (results, manifests, artifacts) are read through models that
refuse what they do not name: a misspelt field is an error, not a silently
ignored extra. :class:`Strict` refuses unknown fields; :class:`Frozen` is also
immutable (a parsed record is a value, hashable and safe to share between
threads); :class:`Exact` also refuses coercion (``"1"`` is not an integer, ``1``
is not a string), for uploads whose types are part of their format. A base adds
no field, title or description to a model's JSON schema: a model's schema is
the same whichever of these it builds on.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Exact", "Frozen", "Strict"]


class Strict(BaseModel):
    """Unknown fields are refused.

    >>> from pydantic import ValidationError
    >>> class Point(Strict):
    ...     x: int
    >>> Point(x="1").x
    1
    >>> try:
    ...     Point(x=1, y=2)
    ... except ValidationError as exc:
    ...     print(exc.errors()[0]["type"], exc.errors()[0]["loc"])
    extra_forbidden ('y',)
    """

    model_config = ConfigDict(extra="forbid")


class Frozen(Strict):
    """Unknown fields are refused and an instance cannot be changed (so it hashes).

    >>> from pydantic import ValidationError
    >>> class Point(Frozen):
    ...     x: int
    >>> p = Point(x=1)
    >>> hash(p) == hash(Point(x=1))
    True
    >>> try:
    ...     p.x = 2
    ... except ValidationError as exc:
    ...     print(exc.errors()[0]["type"])
    frozen_instance
    >>> try:
    ...     Point(x=1, y=2)
    ... except ValidationError as exc:
    ...     print(exc.errors()[0]["type"])
    extra_forbidden
    """

    model_config = ConfigDict(frozen=True)


class Exact(Frozen):
    """Frozen, and no value is coerced to a field's type: a JSON string is not read as a number.

    >>> from pydantic import ValidationError
    >>> class Point(Exact):
    ...     x: int
    >>> try:
    ...     Point(x="1")
    ... except ValidationError as exc:
    ...     print(exc.errors()[0]["type"])
    int_type
    >>> sorted(k for k, v in Point.model_config.items() if v is True or v == "forbid")
    ['extra', 'frozen', 'strict']
    """

    model_config = ConfigDict(strict=True)
