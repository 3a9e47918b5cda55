"""Strict, bounded parsing of one JSONL line of an upload: the JSON every benchmark can trust.

Python's :func:`json.loads` accepts things no submission may contain and fails
in ways that are not input errors: ``NaN``/``Infinity`` (and ``1e999``, which
reads as infinity), integers with thousands of digits (a plain ``ValueError``
from the int-string limit), ``"\\ud800"`` escapes that decode to lone
surrogates (strings that cannot be written back as UTF-8), and nesting deep
enough to raise ``RecursionError``; and it keeps the *last* of two equal keys in an
object, so a header with two ``"model"`` keys would show a reader one value and
score another. :func:`parse_line` refuses all of them and
turns every failure into one :class:`LineProblem` (reason, column, field), so a
hostile line costs bounded time and memory and never a traceback.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 32
MAX_INT_DIGITS = 64
MAX_NUMBER_CHARS = 400

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
#: every byte but the four brackets: deleting them in C leaves the brackets (no per-match regex work)
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")
_DELTA = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


@dataclass(frozen=True)
class LineProblem:
    """Why one line is not acceptable JSON; ``column`` is 1-based when known."""

    reason: str
    column: int | None = None
    field: str | None = None


class _Refused:
    """Stands in for a refused value while parsing, so the walk afterwards can name its field."""

    __slots__ = ("reason", "key")

    def __init__(self, reason: str, key: str | None = None) -> None:
        self.reason = reason
        #: for a duplicate key: the key, appended to the object's path when the field is named
        self.key = key


def brackets_of(text: str) -> str:
    """The brackets of ``text`` outside strings, in order (their count bounds the containers a parse builds).

    >>> brackets_of('{"a": [1, "]"], "b": {}}')
    '{[]{}}'
    """
    return _structure_of(text)[0]


def _structure_of(text: str) -> tuple[str, bool]:
    """``(brackets outside strings, whether a colon stands outside strings)``."""
    bare = _STRING.sub("", text)
    brackets = bare.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET_BYTES).decode("ascii")
    return brackets, ":" in bare


def _depth_of(brackets: str, limit: int) -> int:
    """The deepest nesting the brackets reach (a running count, in C: bounded time for any line).

    Exact whenever it could exceed ``limit``; fewer brackets than ``limit`` cannot, and cost nothing.

    >>> _depth_of("{[[]]{}}", 3), _depth_of("[" * 60_000, 32)
    (3, 60000)
    """
    if len(brackets) <= limit:
        return 0
    import numpy as np

    steps = np.frombuffer(brackets.encode("ascii").translate(_DELTA), dtype=np.int8)
    return int(np.cumsum(steps, dtype=np.int64).max())


def _hooks(refused: list[_Refused], keyed: bool = True) -> dict[str, Any]:
    """``json.loads`` hooks that record each refused number instead of building it."""

    def refuse(reason: str) -> _Refused:
        marker = _Refused(reason)
        refused.append(marker)
        return marker

    def constant(name: str) -> Any:
        return refuse(f"{name} is not allowed: every number must be finite")

    def real(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            return refuse(f"a number has {len(text):,} characters; the limit is {MAX_NUMBER_CHARS}")
        value = float(text)
        if not math.isfinite(value):
            return refuse(f"number {text[:40]} is out of range (it would read as infinity)")
        return value

    def integer(text: str) -> Any:
        digits = len(text.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            return refuse(f"an integer has {digits:,} digits; the limit is {MAX_INT_DIGITS}")
        return int(text)

    def pairs(items: list[tuple[str, Any]]) -> Any:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                marker = _Refused(f"duplicate key {_printable(key)!r}: every key may appear once per object", key)
                refused.append(marker)
                return marker
            seen.add(key)
        return obj  # unreachable: a shorter dict means a repeated key

    hooks: dict[str, Any] = {"parse_constant": constant, "parse_float": real, "parse_int": integer}
    if keyed:  # a line without a colon outside strings has no key to repeat: its objects are built in C
        hooks["object_pairs_hook"] = pairs
    return hooks


_LOCAL = threading.local()


def _refused_list() -> list[_Refused]:
    """This thread's list the decoders' hooks record refusals in, emptied for one parse."""
    if not hasattr(_LOCAL, "refused"):
        _LOCAL.refused = []
        _LOCAL.decoders = {k: json.JSONDecoder(**_hooks(_LOCAL.refused, k)) for k in (False, True)}
    _LOCAL.refused.clear()
    return _LOCAL.refused


def _decoder(keyed: bool) -> json.JSONDecoder:
    """This thread's decoder (building one per line cost as much as parsing a short line)."""
    return _LOCAL.decoders[keyed]


def _printable(key: str) -> str:
    return key[:80].encode("utf-8", "backslashreplace").decode("utf-8")


def _first(obj: Any, bad) -> tuple[bool, str | None]:
    """``(found, dotted path)`` of the first value (or key) for which ``bad`` holds; iterative, so depth costs no stack."""
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        path, value = stack.pop()
        if bad(value):
            return True, path or None
        if isinstance(value, dict):
            for key, item in value.items():
                sub = f"{path}.{key}" if path else str(key)
                if bad(key):
                    return True, (path + "." if path else "") + key.encode("utf-8", "backslashreplace").decode("ascii")
                stack.append((sub, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]" if path else f"[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return False, None


def _first_refused(obj: Any) -> tuple[_Refused | None, str | None]:
    """The first refused marker (document order) and its dotted path; iterative, so depth costs no stack."""
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Refused):
            return value, path or None
        if isinstance(value, dict):
            stack.extend((f"{path}.{key}" if path else str(key), item) for key, item in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]" if path else f"[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return None, None


def surrogate_field(obj: Any) -> str | None:
    """Field path of the first string (key or value) holding a lone surrogate, or None.

    >>> surrogate_field({"a": [{"b": "ok"}, {"c": "x\\ud800"}]})
    'a[1].c'
    >>> surrogate_field({"ok": ["fine", 1, None]}) is None
    True
    """
    return _first(obj, lambda v: isinstance(v, str) and not _encodable(v))[1]


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_line(text: str, *, max_depth: int = MAX_DEPTH,
               max_containers: int | None = None) -> tuple[Any, LineProblem | None, int]:
    """``(value, None, containers)`` for acceptable JSON, else ``(None, problem, containers)``; never raises.

    ``containers`` is how many arrays and objects the line holds (counted before
    parsing); a line holding more than ``max_containers`` is refused unparsed,
    which bounds the memory a file of tiny objects (``[{},{},…]``) can take.

    >>> parse_line('{"a": [1]}')
    ({'a': [1]}, None, 2)
    >>> parse_line('[{}, {}, {}]', max_containers=3)[1].reason
    'line holds 4 arrays and objects; 3 more are allowed in this file'

    >>> parse_line('{"r": [{"score": NaN}]}')[1]
    LineProblem(reason='NaN is not allowed: every number must be finite', column=None, field='r[0].score')
    >>> parse_line('{"format": "x", "model": "a", "model": "b"}')[1]
    LineProblem(reason="duplicate key 'model': every key may appear once per object", column=None, field='model')
    >>> parse_line('{"r": [{"fqn": "a", "fqn": "b"}]}')[1].field
    'r[0].fqn'
    >>> parse_line('{"a": 1e999}')[1].reason
    'number 1e999 is out of range (it would read as infinity)'
    >>> parse_line('{"a": "\\\\udc80"}')[1]
    LineProblem(reason='string holds a lone surrogate (\\\\ud800-\\\\udfff escape); use a valid Unicode character', column=None, field='a')
    >>> parse_line('{"a": "x}')[1].reason
    'malformed JSON: Unterminated string starting'
    >>> parse_line('{"a": 1,}')[1]
    LineProblem(reason='malformed JSON: Expecting property name enclosed in double quotes', column=9, field=None)
    """
    brackets, keyed = _structure_of(text)
    containers = brackets.count("[") + brackets.count("{")
    if max_containers is not None and containers > max_containers:
        return None, LineProblem(f"line holds {containers:,} arrays and objects; {max(max_containers, 0):,} more "
                                 "are allowed in this file"), containers
    depth = _depth_of(brackets, max_depth)
    if depth > max_depth:
        return None, LineProblem(f"JSON nested deeper than {max_depth} levels"), containers
    refused = _refused_list()
    try:
        value = _decoder(keyed).decode(text)
    except json.JSONDecodeError as exc:
        # "Unterminated string starting at" already ends with "at": the column follows it once, not "at at"
        return None, LineProblem(f"malformed JSON: {exc.msg.removesuffix(' at')}", exc.colno), containers
    except (ValueError, RecursionError) as exc:  # brackets too deep to pair up, or any other refusal by the parser
        reason = "JSON nested too deeply" if isinstance(exc, RecursionError) else f"unreadable JSON ({exc})"
        return None, LineProblem(reason[:300]), containers
    if refused:
        found, field = _first_refused(value)
        first = found if found is not None else refused[0]
        if first.key is not None:
            field = f"{field}.{_printable(first.key)}" if field else _printable(first.key)
        return None, LineProblem(first.reason, field=field), containers
    if _SURROGATE_ESCAPE.search(text):
        field = surrogate_field(value)
        if field is not None or (isinstance(value, str) and not _encodable(value)):
            return None, LineProblem("string holds a lone surrogate (\\ud800-\\udfff escape); use a valid Unicode "
                                     "character", field=field), containers
    return value, None, containers
