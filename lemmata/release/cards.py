"""Rendered copies of every release's metadata files, kept in the repository for review."""

from __future__ import annotations

import filecmp
from collections.abc import Iterable, Iterator
import shutil
import tempfile
from pathlib import Path

from lemmata.release.card import CARD
from lemmata.release.citation import CITATION_FILE
from lemmata.release.croissant import CROISSANT
from lemmata.release.manifest import MANIFEST

CARD_FILES = (CARD, CROISSANT, CITATION_FILE, MANIFEST)


def file_sourced(builders: Iterable[type]) -> list[type]:
    """Builders of releases made from pinned raw files (Hub-only releases are rendered where the Hub is reachable)."""
    return [cls for cls in builders if cls.meta.sources and not cls.meta.hub]


def _fresh(builders: Iterable[type], source_root, directory) -> Iterator[tuple[Path, Path]]:
    """``(fresh build, its folder under directory)`` per release; all are built, into a temporary folder, first."""
    with tempfile.TemporaryDirectory() as work:
        built = []
        for cls in builders:
            src = Path(source_root) / cls.meta.family if source_root else None
            built.append(cls(source_dir=src).build(Path(work), quiet=True))
        for release in built:
            yield release, Path(directory) / release.name


def render_cards(directory, builders: Iterable[type], source_root=None) -> list[Path]:
    """Build each release into a temporary folder and copy its card files into ``directory/<release id>/``."""
    written = []
    for release, dest in _fresh(builders, source_root, directory):
        dest.mkdir(parents=True, exist_ok=True)
        for name in CARD_FILES:
            shutil.copyfile(release / name, dest / name)
        written.append(dest)
    return written


def check_cards(directory, builders: Iterable[type], source_root=None) -> list[str]:
    """Card files under ``directory`` that are missing or differ from a fresh build."""
    return [f"{dest / name} is out of date; run `lemmata cards`"
            for release, dest in _fresh(builders, source_root, directory) for name in CARD_FILES
            if not (dest / name).is_file() or not filecmp.cmp(release / name, dest / name, shallow=False)]
