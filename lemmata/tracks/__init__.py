"""Tracks: the handler interface every benchmark's submissions go through, the one ranking track for every
BEIR-style benchmark, reported-row helpers, baseline-run helpers, and the runner that scores a stored submission
(:mod:`lemmata.tracks.runner`). No benchmark knowledge lives here."""
