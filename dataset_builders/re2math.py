"""Build the Re²Math release (thin entry point; the builder lives in :mod:`lemmata.benchmarks.re2math.builder`).

    python dataset_builders/re2math.py [--out DIR] [--source-dir DIR]

is the same as ``lemmata build re2math``.
"""

from __future__ import annotations

import sys

from lemmata.benchmarks.re2math.builder import Re2MathBuilder  # noqa: F401  (the class users subclass or call)
from lemmata.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "re2math", *sys.argv[1:]]))
