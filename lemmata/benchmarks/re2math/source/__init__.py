"""Re²Math source retrieval: proof states against every record of the offline world (BEIR layout).

``retrieval`` (the track derived from the release and the world: corpus, queries, qrels, BEIR export), ``track``
(the submission handler that validates and scores a run).
"""
