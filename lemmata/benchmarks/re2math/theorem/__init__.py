"""Re²Math theorem retrieval: proof states against every reference statement of the release (BEIR layout).

``retrieval`` (the track derived from the release: corpus, queries, qrels, card section), ``track`` (the
submission handler that validates and scores a run).
"""
