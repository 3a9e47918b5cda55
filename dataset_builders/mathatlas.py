"""Build the MathAtlas and MA-Align release(s) (thin entry point; the builder lives in :mod:`lemmata.benchmarks.mathatlas.builder`).

    python dataset_builders/mathatlas.py [--out DIR] [--source-dir DIR]

is the same as ``lemmata build mathatlas``. Without ``--source-dir`` the pinned Hugging Face revision is downloaded.
"""

from __future__ import annotations

import sys

from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder  # noqa: F401  (the classes users subclass or call)
from lemmata.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "mathatlas", *sys.argv[1:]]))
