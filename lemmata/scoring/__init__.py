"""Scoring: per-benchmark track handlers behind one interface (see :mod:`lemmata.scoring.base`)."""
