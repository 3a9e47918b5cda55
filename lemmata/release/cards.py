"""Rendered copies of every release's metadata files, kept in the repository for review."""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from pathlib import Path

from lemmata.builders import BUILDERS, builder_classes
from lemmata.release.card import CARD
from lemmata.release.citation import CITATION_FILE
from lemmata.release.croissant import CROISSANT
from lemmata.release.manifest import MANIFEST

CARD_FILES = (CARD, CROISSANT, CITATION_FILE, MANIFEST)
#: families whose raw sources are pinned files (Hub-only families are rendered where the Hub is reachable)
FILE_SOURCED = ("re2math", "taobench")


def _families(families):
    return list(families) if families else [f for f in FILE_SOURCED if f in BUILDERS]


def _build_all(families, source_root, work: Path) -> list[Path]:
    out = []
    for family in _families(families):
        src = Path(source_root) / family if source_root else None
        for cls in builder_classes(family):
            out.append(cls(source_dir=src).build(work, quiet=True))
    return out


def render_cards(directory, families=None, source_root=None) -> list[Path]:
    written = []
    with tempfile.TemporaryDirectory() as work:
        for release in _build_all(families, source_root, Path(work)):
            dest = Path(directory) / release.name
            dest.mkdir(parents=True, exist_ok=True)
            for name in CARD_FILES:
                shutil.copyfile(release / name, dest / name)
            written.append(dest)
    return written


def check_cards(directory, families=None, source_root=None) -> list[str]:
    stale = []
    with tempfile.TemporaryDirectory() as work:
        for release in _build_all(families, source_root, Path(work)):
            dest = Path(directory) / release.name
            for name in CARD_FILES:
                if not (dest / name).is_file() or not filecmp.cmp(release / name, dest / name, shallow=False):
                    stale.append(f"{dest / name} is out of date; run `lemmata cards`")
    return stale
