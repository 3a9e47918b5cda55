"""Names to things: one lazy, typed registry class, and close-match suggestions for unknown names.

A :class:`Registry` maps names to ``"module:attribute"`` references that are
imported only when first asked for (as lm-evaluation-harness does), so listing
names never imports a benchmark's heavy modules. Entries are type-checked when
they load, a name can be registered once, and an unknown name fails with
suggestions, as a user typing ``lemmata build re2mth`` deserves.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from lemmata.core.errors import Error

T = TypeVar("T")


class UnknownNameError(Error, KeyError):
    """A name that is not registered; the message carries suggestions."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plain
        return str(self.args[0]) if self.args else "unknown name"


def suggest(kind: str, name: str, known: Iterable[str]) -> str:
    """A one-sentence 'unknown X' message with close matches.

    >>> suggest("benchmark", "re2mth", ["re2math", "taobench-150"])
    "unknown benchmark 're2mth'; did you mean 're2math'? (known: re2math, taobench-150)"
    """
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    msg = f"unknown {kind} {name!r}"
    if close:
        msg += "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return msg + f" (known: {', '.join(known)})"


def resolve(ref: str) -> object:
    """The object a ``"package.module:attribute"`` reference names (imported on demand).

    >>> resolve("lemmata.core.registry:suggest") is suggest
    True
    """
    module, _, attribute = ref.partition(":")
    if not attribute:
        raise ValueError(f"reference {ref!r} must read 'module:attribute'")
    return getattr(importlib.import_module(module), attribute)


class Registry(Generic[T], Mapping[str, T]):
    """Named entries of one type, each given as a value or a lazy ``"module:attribute"`` reference.

    >>> r = Registry("metric", int, {"one": 1, "suggest": "lemmata.core.registry:suggest"})
    >>> r["one"], sorted(r)
    (1, ['one', 'suggest'])
    >>> r["suggest"]
    Traceback (most recent call last):
    ...
    TypeError: metric 'suggest' is a function, not int
    >>> r["onee"]
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown metric 'onee'; did you mean 'one'? (known: one, suggest)
    """

    def __init__(self, kind: str, type_: type | tuple[type, ...], entries: Mapping[str, T | str] = ()) -> None:
        self.kind = kind
        self.type = type_
        self._entries: dict[str, T | str] = {}
        self._loaded: dict[str, T] = {}
        self._frozen = False
        for name, entry in dict(entries).items():
            self.register(name, entry)

    def register(self, name: str, entry: T | str) -> None:
        """Add one entry; a name registered twice is a programming error, not a silent override."""
        if self._frozen:
            raise RuntimeError(f"the {self.kind} registry is frozen")
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._entries[name] = entry

    def freeze(self) -> "Registry[T]":
        self._frozen = True
        return self

    def __getitem__(self, name: str) -> T:
        if name in self._loaded:
            return self._loaded[name]
        if name not in self._entries:
            raise UnknownNameError(suggest(self.kind, name, self._entries))
        entry = self._entries[name]
        value = resolve(entry) if isinstance(entry, str) and self.type is not str else entry
        if not isinstance(value, self.type) and not (isinstance(value, type) and _is_class_entry(value, self.type)):
            raise TypeError(f"{self.kind} {name!r} is a {type(value).__name__}, not {_name(self.type)}")
        self._loaded[name] = value  # type: ignore[assignment]
        return value  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries


def _is_class_entry(value: type, expected: type | tuple[type, ...]) -> bool:
    """A registry of ``type`` entries accepts classes (handlers, builders) by subclass."""
    return expected is type or (isinstance(expected, tuple) and type in expected)


def _name(t: type | tuple[type, ...]) -> str:
    return " or ".join(x.__name__ for x in t) if isinstance(t, tuple) else t.__name__
