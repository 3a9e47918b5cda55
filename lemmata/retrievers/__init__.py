"""Generic retrievers: one BM25 engine (bm25s, frozen tokenizers), static embeddings, reciprocal-rank fusion."""
