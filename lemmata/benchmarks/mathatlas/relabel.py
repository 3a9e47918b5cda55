"""The authors' re-verification of every MA-Align pair: MA-Align's second label set, shipped with the package.

The MA-Align dataset on the Hub carries the labels the paper used (``label``). The authors later
re-checked all 200 pairs, one by one, and published the result in their repository
(``offendo/math-atlas``, ``benchmarks/labels/ma-align-relabel.tsv``): a tab-separated file with columns
``benchmark`` (``ma-align-defs`` or ``ma-align-stmts``), ``index``, ``uuid``, ``original_label``,
``relabel``, ``confidence`` (``low``/``med``/``high``) and ``reasoning``. Their re-verification counts a
harmless generalisation or the reuse of a matching Mathlib definition as aligned, and a statement
that is false as written as misaligned; it changes 34 labels, 25 of them among the definitions.

``ma-align-relabel.tsv`` beside this module is that file's first six columns (the reviewers'
free-text ``reasoning`` is left upstream), transcribed from the stored text of the file at commit
``d48a59a989caef092061862efc564d98750d1cdd``; its counts agree with the authors' description (200
rows, 100 per benchmark, 34 changes, 25 of them definitions; statements 25 aligned / 75 misaligned
originally). Byte identity with the upstream blob could not be checked offline, so the copy is
pinned by its own sha256: an edited copy is refused, never silently used. A file in the upstream
layout (``reasoning`` included) reads through :func:`read_relabel` too.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import Field, StrictStr

from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_bytes
from lemmata.core.models import Frozen

__all__ = ["RELABEL_FILE", "RELABEL_SHA256", "RELABEL_SOURCE", "RelabelRow", "packaged_relabel", "read_relabel"]

RELABEL_FILE = "ma-align-relabel.tsv"
RELABEL_SHA256 = "20b747e30febad18e5281784eea5abce59a822262d96809c43d66cc2f991702c"
#: where the labels come from, as the release card and results cite it
RELABEL_SOURCE = {"repo": "offendo/math-atlas", "path": "benchmarks/labels/ma-align-relabel.tsv",
                  "commit": "d48a59a989caef092061862efc564d98750d1cdd"}
#: the upstream ``benchmark`` value of each MA-Align half, and what Lemmata calls the pairs in it
KINDS = {"ma-align-defs": "definition", "ma-align-stmts": "statement"}
Label = Literal["aligned", "misaligned"]


class RelabelRow(Frozen):
    """One row of the relabel file (``reasoning`` is optional: the packaged copy leaves it upstream)."""

    benchmark: Literal["ma-align-defs", "ma-align-stmts"]
    index: int = Field(ge=0)
    uuid: StrictStr = Field(min_length=1)
    original_label: Label
    relabel: Label
    confidence: Literal["low", "med", "high"]
    reasoning: str | None = None

    @property
    def kind(self) -> str:
        return KINDS[self.benchmark]


def read_relabel(path: Path, *, label: str | None = None) -> dict[str, RelabelRow]:
    """``uuid -> row`` of a relabel file; every bad row and repeated uuid is reported at once."""
    from lemmata.benchmarks.mathatlas.records import unique_records

    return {row.uuid: row for _, _, row in unique_records([(label or str(path), path)], RelabelRow)}


def packaged_relabel() -> tuple[Path, dict[str, RelabelRow]]:
    """The packaged relabel file and its rows, once its sha256 is the pinned one."""
    ref = resources.files("lemmata.benchmarks.mathatlas") / RELABEL_FILE
    with resources.as_file(ref) as path:
        found = sha256_bytes(path.read_bytes())
        if found != RELABEL_SHA256:
            raise InputError.one(str(path), f"sha256 {found} is not the pinned {RELABEL_SHA256}: the packaged "
                                            "relabel file was changed")
        return path, read_relabel(path, label=f"lemmata/benchmarks/mathatlas/{RELABEL_FILE}")
