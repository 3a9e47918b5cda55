"""Hugging Face Space entry point of the Lemmata leaderboard (``python space/app.py``; locally ``lemmata serve``).

All logic lives in :mod:`lemmata.space`; this file only launches it, so the
hosted Space and a local run are the same app. Configuration is read from the
environment (see ``space/README.md``).
"""

from lemmata.space.app import serve

if __name__ == "__main__":
    serve()
