"""Generic retrievers for the offline baselines: BM25 (bm25s), static embeddings, reciprocal-rank fusion."""
