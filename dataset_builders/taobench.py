"""Build the TaoBench releases (thin entry point; the builders live in :mod:`lemmata.benchmarks.taobench.builder`).

    python dataset_builders/taobench.py [--out DIR] [--source-dir DIR]

is the same as ``lemmata build taobench``: it writes ``taobench-150-<version>``
(the paper's 150 pairs) and ``taobench-v1-<version>`` (upstream v1.0.0, 600 pairs).
"""

from __future__ import annotations

import sys

from lemmata.benchmarks.taobench.builder import TaoBench150Builder, TaoBenchV1Builder  # noqa: F401  (the builder classes)
from lemmata.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", "taobench", *sys.argv[1:]]))
