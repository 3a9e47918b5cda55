"""Build the MathNet-Retrieve release(s) (thin entry point; the builder lives in :mod:`lemmata.benchmarks.mathnet.builder`).

    python dataset_builders/mathnet.py [--out DIR] [--source-dir DIR]

is the same as ``lemmata build mathnet``. Without ``--source-dir`` the pinned Hugging Face revision is downloaded.
"""

from __future__ import annotations

import sys

from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder  # noqa: F401  (the classes users subclass or call)
from lemmata.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "mathnet", *sys.argv[1:]]))
