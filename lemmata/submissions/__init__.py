"""Submission files: the shared JSONL envelope and per-benchmark formats."""
