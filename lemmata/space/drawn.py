"""The board view each open page was last drawn with, so that a refresh tick redraws that view.

A tick reads the page's controls when it fires, and answers later; a control change, a sort click or the page's
load event may draw another view in between. Drawn from its own controls, the tick would put the older view back
over the newer one (and, storing a current change token, keep it there). So every draw notes its view's query
under the page's session, and a tick draws the query its page was last drawn with.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class DrawnViews:
    """Session -> the board query last drawn on that page; the ``most`` most recently drawn sessions are kept.

    >>> d = DrawnViews(most=2)
    >>> d.note("a", "q1"); d.note("b", "q2"); d.note("a", "q3"); d.note("c", "q4")
    >>> d.latest("a"), d.latest("b"), d.latest("c"), d.latest(None)
    ('q3', None, 'q4', None)
    """

    def __init__(self, most: int = 4096) -> None:
        self._most = most
        self._lock = threading.Lock()
        self._queries: OrderedDict[str, Any] = OrderedDict()

    def note(self, session: str | None, query: Any) -> None:
        """``query`` is what the page of ``session`` now shows (no session: nothing to note)."""
        if not session:
            return
        with self._lock:
            self._queries[session] = query
            self._queries.move_to_end(session)
            while len(self._queries) > self._most:
                self._queries.popitem(last=False)

    def latest(self, session: str | None) -> Any | None:
        """The query last drawn on the page of ``session``, or None where none was (or it was forgotten)."""
        if not session:
            return None
        with self._lock:
            return self._queries.get(session)


def session_of(request: Any) -> str | None:
    """The session of a Gradio request (None for a call without one, such as a direct Python call)."""
    return getattr(request, "session_hash", None) or None
