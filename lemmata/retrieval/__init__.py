"""Retrieval for Re²Math: frozen scholarly artifacts, query caches, search backends and source identity.

Modules (import them directly; nothing heavy is imported here):

- :mod:`lemmata.retrieval.citations` — parse bibliography strings (title, authors, year, DOI, arXiv id).
- :mod:`lemmata.retrieval.matcher` — is this candidate the same source as that citation? is it the citing paper?
- :mod:`lemmata.retrieval.querycache` — the candidate / search-result models every backend returns and the
  JSONL query-cache format they record into; replay of a recorded cache.
- :mod:`lemmata.retrieval.artifact` — the frozen offline scholarly artifact (bm25s index over the release's
  cited sources and citing papers), its build, search, materialisation and default instance;
  ``open_backend(path_or_id)`` opens any retrieval artifact (scholarly or a frozen query cache) for replay.
- :mod:`lemmata.retrieval.scholar_world` — ``re2math-scholar-offline-2.0.0``: the same search over the
  math-arxiv-meta distractor corpus plus the release's sources and citing papers, one uniform record shape,
  opening without statements, and the scorer's identity view.
- :mod:`lemmata.retrieval.batch` — batch query files for ``lemmata artifact search --batch``.
- :mod:`lemmata.retrieval.serpapi` — the Google Scholar backend through SerpAPI, recording into a query cache.
"""
