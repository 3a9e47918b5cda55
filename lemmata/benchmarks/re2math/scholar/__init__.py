"""Re²Math's scholarly search: the frozen offline artifact, query caches, SerpAPI, citations, source identity.

Modules (import them directly; nothing heavy is imported here): ``citations`` (bibliography strings),
``matcher`` (is a candidate the cited source? the citing paper?), ``querycache`` (candidate models, the
query-cache format, replay), ``artifact`` (the frozen offline artifact 1.x), ``world`` (the 2.x offline world over the
distractor corpus), ``backends`` (``open_backend`` opens any retrieval artifact for replay), ``serpapi`` (Google Scholar through SerpAPI, recorded into a query cache).
"""
