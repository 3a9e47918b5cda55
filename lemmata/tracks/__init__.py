"""Tracks: the handler interface every benchmark's submissions go through, the one ranking track for every
BEIR-style benchmark, reported-row helpers and baseline-run helpers. No benchmark knowledge lives here; the one
scoring path that drives a handler is :mod:`lemmata.scoring`, above the registry."""
