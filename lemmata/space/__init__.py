"""The leaderboard space: submit, validate, score, rank and audit in one Gradio app.

Everything the app shows is computed here from the store and the track
handlers; ``space/app.py`` and ``lemmata serve`` only construct and launch it.
Gradio and pandas are imported inside the functions that need them.
"""
