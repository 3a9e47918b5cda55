"""Re²Math's scholarly search: the frozen offline artifact, query caches, SerpAPI, citations, source identity.

Modules (import them directly; nothing heavy is imported here): ``citations`` (bibliography strings),
``matcher`` (is a candidate the cited source? the citing paper?), ``works`` (citations clustered into works, shared
by every offline artifact), ``querycache`` (candidate models, the query-cache format, replay), ``layout`` and
``openings`` (the name, files, ``ARTIFACT.json`` head, opening log and look-ups every offline artifact shares),
``artifact`` (the frozen offline artifact 1.x, superseded), ``world`` (the 2.x offline worlds over the distractor corpus: what they share, split by
job, and one sub-package per version, ``v2_0``, ``v2_1`` and ``v2_2``), ``worlds`` (every version declared once: the current
one, what superseded each and why), ``world_artifact`` (the world behind the scorer's protocol),
``backends`` (``open_backend`` opens any retrieval artifact for replay), ``serpapi`` (Google Scholar through SerpAPI,
recorded into a query cache). Both offline artifacts rank with the one BM25 engine, :mod:`lemmata.retrievers.bm25`.
"""
