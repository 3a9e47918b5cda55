"""Build the MIRB release(s) (thin entry point; the builder lives in :mod:`lemmata.benchmarks.mirb.builder`).

    python dataset_builders/mirb.py [--out DIR] [--source-dir DIR]

is the same as ``lemmata build mirb``. Without ``--source-dir`` the pinned Hugging Face revision is downloaded.
"""

from __future__ import annotations

import sys

from lemmata.benchmarks.mirb.builder import MirbBuilder  # noqa: F401  (the classes users subclass or call)
from lemmata.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "mirb", *sys.argv[1:]]))
