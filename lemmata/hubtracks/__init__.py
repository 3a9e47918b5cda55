"""Scoring of the Hub-pinned benchmarks (MathNet-Retrieve, MIRB, MathAtlas, MA-Align) and their reported rows.

Each module holds one benchmark's track handler (see :mod:`lemmata.scoring.base`);
:mod:`lemmata.hubtracks.retrieval` is shared by the two retrieval benchmarks and
:mod:`lemmata.hubtracks.reported` imports the papers' printed numbers.
"""
