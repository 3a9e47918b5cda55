"""The long run of the submission fuzz test: 500 mutations of every shipped example (120 of the large ones).

The suite runs a seeded sample of the same generator (``tests/formats/test_fuzz_submissions.py``: every
mutation class on every base, a few dozen each); this script runs the full count with any seed and reports
the outcomes per class and the time. Run from the repository root::

    python perf/fuzz_speed.py                 # seed 20261122, 500 / 120 per base
    python perf/fuzz_speed.py --seed 7 --per-base 200 --per-large-base 50
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--per-base", type=int, default=500)
    parser.add_argument("--per-large-base", type=int, default=120)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("fuzz", ROOT / "tests/formats/test_fuzz_submissions.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)  # type: ignore[union-attr]
    from lemmata.space.config import SpaceConfig
    from lemmata.store import Store

    with tempfile.TemporaryDirectory(prefix="lemmata-fuzz-") as home:
        cfg = SpaceConfig.from_env({"LEMMATA_HOME": home})
        start = time.perf_counter()
        seen = fuzz.run_mutations((Store(cfg.store_root), cfg), args.per_base, args.per_large_base, args.seed)
        seconds = time.perf_counter() - start
    for key in sorted(seen):
        print(f"{key:32} {seen[key]:6}")
    print(f"{sum(seen.values())} mutations, none accepted, every one named its line; {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
