"""Reading the built MathNet-Solve release: problems by id, a subset's ids, figures, exclusion groups."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE


def solve_release(release_id: str | None = None):
    from lemmata.catalog import load_release

    return load_release(MATHNET_SOLVE, release_id)


@lru_cache(maxsize=4)
def _problems(root: str) -> dict[str, dict[str, Any]]:
    from lemmata.catalog import table_path
    from lemmata.release.load import open_release
    from lemmata.release.parquet import read_rows

    release = open_release(root, verify=False)
    rows = read_rows(table_path(release, "problems", "full"))
    return {r["unique_id"]: r for r in rows}


def problems(release) -> dict[str, dict[str, Any]]:
    """Every problem of the release by id (read once per release folder)."""
    return _problems(str(release.root))


def subset_ids(release, subset: str) -> list[str]:
    from lemmata.catalog import read_columns

    return read_columns(release, "problems", subset, ["unique_id"])["unique_id"]


def images(release, ids: set[str] | None = None) -> dict[str, list[bytes]]:
    """Figure bytes by problem id, in order."""
    from lemmata.catalog import table_path
    from lemmata.release.parquet import read_rows

    rows = read_rows(table_path(release, "images", "images"))
    out: dict[str, list[tuple[int, bytes]]] = {}
    for r in rows:
        if ids is None or r["unique_id"] in ids:
            out.setdefault(r["unique_id"], []).append((r["index"], r["image"]["bytes"]))
    return {k: [b for _, b in sorted(v)] for k, v in out.items()}


@lru_cache(maxsize=4)
def _groups(root: str, retrieve_root: str) -> dict[str, str]:
    from lemmata.benchmarks.mathnet.rag import exclusion_groups, retrieve_equivalents
    from lemmata.release.load import open_release

    equivalents = retrieve_equivalents(open_release(retrieve_root, verify=False))
    return exclusion_groups(list(_problems(root).values()), equivalents)


def groups(release) -> dict[str, str]:
    """Exclusion groups: duplicates joined by MathNet-Retrieve's equivalence sets (that release is built when
    missing, so every scorer applies the same rule)."""
    from lemmata.catalog import load_release

    return _groups(str(release.root), str(load_release(MATHNET_RETRIEVE).root))
