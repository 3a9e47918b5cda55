"""The optional accelerator (numba): a module of compiled functions, or None where it is not installed.

The compiled passes (world BM25, exact dense search) live in modules that import numba at their top, defined at
module level so numba's on-disk cache serves every process. Their callers import them through
:func:`compiled_module` alone, once per process, and take their numpy path where it answers None.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType


@lru_cache(maxsize=None)
def compiled_module(name: str) -> ModuleType | None:
    """The module ``name`` (compiled on first use, cached on disk where the package folder is writable), or None
    where numba is not installed.

    >>> compiled_module("lemmata.core.no_such_accelerated_module") is None
    True
    """
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
