"""An exercise's local context: the definitions its Tao file declares before the exercise.

TaoBench's explanation of the Tao − Mathlib gap is the definitional framework, so its analyses read results by how
much bespoke context an exercise depends on. The release keeps each exercise's Tao file whole (the upstream
``TaoBench`` field, ``Evaluation/TaoBench_TaoBenchMathlib.jsonl`` of ``ataylor24/TaoAnalysisBench``) and records
no count, so the count is read off that file: every declaration before the exercise that is not itself a proved
statement (``def``, ``abbrev``, ``instance``, ``class``, ``structure``, ``inductive``, …; the ``theorem`` and
``lemma`` commands given with ``sorry`` are tools, not definitions). The Mathlib twin of an exercise has none of its
own; its results are read in the bucket of its Tao twin, so both formulations are compared on the same exercises.

The buckets are Lemmata's: the paper's transcription records no bucket edges. ``0``, ``1–4``, ``5–9`` and ``10+``
split ``taobench-150`` near its quartiles (35, 42, 42 and 31 of the 150 exercises).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from lemmata.benchmarks.taobench.lean.statements import Exercise

#: declaration keywords that state something to prove rather than define something
PROVED = frozenset({"theorem", "lemma", "example"})

#: (label, smallest count) of each bucket, in order
BUCKETS: tuple[tuple[str, int], ...] = (("0", 0), ("1–4", 1), ("5–9", 5), ("10+", 10))


def local_definitions(exercise: "Exercise") -> int:
    """How many definitions the exercise's file declares before it (its local context).

    >>> from lemmata.benchmarks.taobench.lean.statements import locate
    >>> src = ("inductive N where\\n  | z : N\\n\\ndef two : N := N.z\\n\\ninstance : Inhabited N := ⟨N.z⟩\\n\\n"
    ...        "theorem given : True := sorry\\n\\ntheorem target : two = two := by\\n  sorry\\n")
    >>> local_definitions(locate(src, "target"))
    3
    """
    return sum(1 for c in exercise.prefix if c.decl is not None and c.decl.keyword not in PROVED)


def bucket(count: int) -> str:
    """The bucket label of a local-definition count.

    >>> [bucket(n) for n in (0, 1, 4, 5, 9, 10, 50)]
    ['0', '1–4', '1–4', '5–9', '5–9', '10+', '10+']
    """
    return next(label for label, low in reversed(BUCKETS) if count >= low)
