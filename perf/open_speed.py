"""Open time of a release (and, when built, the offline world): before and after every manifest field is bound.

"before" is how the scoring paths opened a release folder until now (``open_release(path)``: every file's
hash, no field compared with the registry); "after" is the one opening function every path uses now
(``catalog.open_release_folder``: the same hashing plus every MANIFEST.json field against the registry).
Each is timed cold (verification cache emptied) and warm (cache hit), best of ``--repeat``. Run from the
repository root with ``LEMMATA_HOME`` (or ``LEMMATA_RELEASES``) pointing at built releases::

    python perf/open_speed.py                                  # re2math-1.0.0 and taobench-150-1.1.0
    python perf/open_speed.py --world ~/.lemmata/artifacts/scholarly-world-2.0.0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _best(fn, repeat: int, cold: bool) -> float:
    from lemmata.release import load

    best = float("inf")
    for _ in range(repeat):
        if cold:
            load._OPENED.clear()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", default=["re2math-1.0.0", "taobench-150-1.1.0"])
    parser.add_argument("--world", type=Path, default=None, help="a built world folder to time as well")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, ".")
    from lemmata.catalog import open_release_folder
    from lemmata.core.paths import releases_dir
    from lemmata.release.load import open_release

    print(f"{'folder':28} {'before cold':>11} {'after cold':>10} {'before warm':>11} {'after warm':>10}  (ms)")
    for release_id in args.releases:
        folder = releases_dir() / release_id
        if not folder.is_dir():
            print(f"{release_id:28} not built in {folder.parent}")
            continue
        row = [_best(lambda: open_release(folder), args.repeat, True),
               _best(lambda: open_release_folder(folder), args.repeat, True),
               _best(lambda: open_release(folder), args.repeat, False),
               _best(lambda: open_release_folder(folder), args.repeat, False)]
        print(f"{release_id:28} " + " ".join(f"{1000 * v:>10.1f}" for v in row))
    if args.world is not None:
        from lemmata.benchmarks.re2math.scholar.world.v2_0 import open_world
        from lemmata.release.manifest import verify_manifest

        def before() -> None:  # what open_world did until now: the files' hashes, the id, the tokenizer
            verify_manifest(args.world)

        after = _best(lambda: open_world(args.world), args.repeat, True)
        print(f"{args.world.name:28} {1000 * _best(before, args.repeat, True):>11.1f} {1000 * after:>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
