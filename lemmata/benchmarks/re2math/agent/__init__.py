"""Re²Math agents and the live protocol: how a system runs against the benchmark, offline or live.

``lexical`` (a non-LLM agent on the offline world — a baseline and a template), ``live_agent`` (the live reference
agent: the paper's prompts E3 and E4, shipped in ``prompts/``, with SerpAPI and arXiv), ``live`` (scoring a
submission against a live frozen tuple).
"""
