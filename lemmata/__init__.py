"""Lemmata: versioned releases, exact metrics and a leaderboard for mathematical tool retrieval and formalization."""

__version__ = "0.1.0"
