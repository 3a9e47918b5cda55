"""One module per tab of the leaderboard page; ``lemmata.space.app.build_app`` assembles them.

Each module lays out its tab (``layout``, called inside the page's ``gr.Tabs``)
and wires the events that stay inside it (``wire``); events that cross tabs
(first load, the timer, clicks on the board that open the audit viewer, tab
changes) are wired by ``build_app``. Handlers' annotations are evaluated
eagerly (no ``from __future__ import annotations``): Gradio injects
``gr.Request``, ``gr.EventData`` and ``gr.OAuthProfile`` by inspecting them.
"""
