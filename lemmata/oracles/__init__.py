"""Oracles: LLM judges and Lean verifiers behind small interfaces, with a content-addressed verdict cache."""
