"""Rendered copies of every release's metadata files, kept in the repository for review."""

from __future__ import annotations

import filecmp
from collections.abc import Iterable
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


def _build_all(builders: Iterable[type], source_root, work: Path) -> list[Path]:
    out = []
    for cls in builders:
        src = Path(source_root) / cls.meta.family if source_root else None
        out.append(cls(source_dir=src).build(work, quiet=True))
    return out


def render_cards(directory, builders: Iterable[type], source_root=None) -> list[Path]:
    """Build each release into a temporary folder and copy its card files into ``directory/<release id>/``."""
    written = []
    with tempfile.TemporaryDirectory() as work:
        for release in _build_all(builders, source_root, Path(work)):
            dest = Path(directory) / release.name
            dest.mkdir(parents=True, exist_ok=True)
            for name in CARD_FILES:
                shutil.copyfile(release / name, dest / name)
            written.append(dest)
    return written


def check_cards(directory, builders: Iterable[type], source_root=None) -> list[str]:
    """Card files under ``directory`` that are missing or differ from a fresh build."""
    stale = []
    with tempfile.TemporaryDirectory() as work:
        for release in _build_all(builders, source_root, Path(work)):
            dest = Path(directory) / release.name
            for name in CARD_FILES:
                if not (dest / name).is_file() or not filecmp.cmp(release / name, dest / name, shallow=False):
                    stale.append(f"{dest / name} is out of date; run `lemmata cards`")
    return stale
