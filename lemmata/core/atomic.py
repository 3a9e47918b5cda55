"""Atomic replacement of a whole folder: readers see the old complete folder or the new complete one.

Releases, retrieval artifacts and query caches are written into a temporary
folder beside their target and put in place here, so a failed build leaves
nothing behind and an existing folder is replaced only by a complete one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["replace_dir"]


def replace_dir(new: Path, target: Path) -> None:
    """Put ``new`` at ``target``; an existing ``target`` is swapped out only after ``new`` is complete."""
    if not target.exists():
        os.replace(new, target)
        return
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    os.replace(target, old)
    try:
        os.replace(new, target)
    except BaseException:
        os.replace(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)
