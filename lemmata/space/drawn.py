"""The board view each open page was last asked to draw, so that a refresh tick never draws an older one.

A tick reads the page's controls when it fires, and answers later; a control change, a sort click or the page's
load event may draw another view in between. Drawn from its own controls, the tick would put the older view back
over the newer one (and, storing a current change token, keep it there).

So every other draw *begins* by noting its query under the page's Gradio session, which advances the page's draw
number, and notes the resolved query when it is built. A tick takes the page's number and query when it starts,
draws that query, and answers nothing if the number has moved by the time its view is built: a draw that began
meanwhile answers after it and shows the newer view (answers of one page arrive in the order they are sent).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, NamedTuple


class Ticket(NamedTuple):
    """One draw of one page: the page's session and its draw number when the draw began."""

    session: str | None
    number: int


class DrawnViews:
    """Session -> (draw number, the board query of the latest draw); the ``most`` most recently drawn sessions.

    >>> d = DrawnViews(most=2)
    >>> t = d.begin("a", "q1"); d.current("a")
    (Ticket(session='a', number=1), 'q1')
    >>> d.note(t, "q1 resolved"); d.current("a")[1]
    'q1 resolved'
    >>> tick, _ = d.current("a"); later = d.begin("a", "q2")
    >>> d.still(tick), d.still(later)
    (False, True)
    >>> d.note(t, "stale"); d.current("a")[1]  # an older draw's late note changes nothing
    'q2'
    >>> _ = d.begin("b", "x"); _ = d.begin("c", "y"); d.current("a")  # forgotten: the least recently drawn
    (Ticket(session='a', number=0), None)
    """

    def __init__(self, most: int = 4096) -> None:
        self._most = most
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, tuple[int, Any]] = OrderedDict()

    def begin(self, session: str | None, query: Any) -> Ticket:
        """A draw of ``query`` begins on the page of ``session``: the page's number advances."""
        if not session:
            return Ticket(None, 0)
        with self._lock:
            number = self._pages.get(session, (0, None))[0] + 1
            self._pages[session] = (number, query)
            self._pages.move_to_end(session)
            while len(self._pages) > self._most:
                self._pages.popitem(last=False)
            return Ticket(session, number)

    def note(self, ticket: Ticket, query: Any) -> None:
        """The draw of ``ticket`` built ``query`` (its resolved form); kept only if no draw began since."""
        if ticket.session is None:
            return
        with self._lock:
            if self._pages.get(ticket.session, (0, None))[0] == ticket.number:
                self._pages[ticket.session] = (ticket.number, query)

    def current(self, session: str | None) -> tuple[Ticket, Any | None]:
        """The page's ticket as of now and the query of its latest draw (None: none was drawn, or forgotten)."""
        if not session:
            return Ticket(None, 0), None
        with self._lock:
            number, query = self._pages.get(session, (0, None))
            return Ticket(session, number), query

    def still(self, ticket: Ticket) -> bool:
        """Has no draw begun on the page since ``ticket`` was taken?"""
        if ticket.session is None:
            return True
        with self._lock:
            return self._pages.get(ticket.session, (0, None))[0] == ticket.number


def session_of(request: Any) -> str | None:
    """The session of a Gradio request (None for a call without one, such as a direct Python call)."""
    return getattr(request, "session_hash", None) or None
