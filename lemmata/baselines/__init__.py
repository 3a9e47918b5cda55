"""Offline baselines: runners that rank, write a submission in the shared envelope, and score it like any upload.

- :mod:`lemmata.baselines.retrievers` — BM25, static embeddings and their reciprocal-rank fusion behind one call.
- :mod:`lemmata.baselines.runs` — rank a retrieval track's queries and write the run file (the submission).
- :mod:`lemmata.baselines.pipeline` — validate, score and store a submission file, exactly as an upload is.
- :mod:`lemmata.baselines.re2math_agent` — a non-LLM end-to-end Re²Math agent on the frozen scholarly artifact.
"""
