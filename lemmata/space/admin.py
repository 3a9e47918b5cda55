"""Moderation: who may hide, unhide or rescore an entry, and doing it with an audit trail.

Locally an admin proves themselves with ``LEMMATA_ADMIN_TOKEN`` (compared in
constant time); on a hosted Space only a Hugging Face login listed in
``SpaceConfig.admin_users`` (the Space owner, plus ``LEMMATA_ADMINS``) is
accepted and tokens are ignored, so a leaked token cannot moderate a public
board. Every action is logged in the store's events and hide/unhide is also
written as an immutable moderation record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from lemmata.core.errors import LemmataError
from lemmata.space.config import SpaceConfig
from lemmata.space.safety import clean_text, tokens_equal
from lemmata.store import Store

Action = Literal["hide", "unhide", "rescore"]
_ID = re.compile(r"^[0-9a-f]{64}$")


class NotAuthorized(LemmataError):
    """The caller is not an admin of this space."""


def authorize(config: SpaceConfig, *, token: str | None = None, username: str | None = None) -> str:
    """The actor name to log, or NotAuthorized saying what would be accepted."""
    if config.hosted:
        if username and username in config.admin_users:
            return f"hub:{username}"
        if not config.admin_users:
            raise NotAuthorized("this Space has no owner configured (SPACE_AUTHOR_NAME), so moderation is disabled")
        raise NotAuthorized("log in with the Hugging Face account that owns this Space to moderate")
    if config.admin_token is None:
        raise NotAuthorized("moderation is disabled: start the space with LEMMATA_ADMIN_TOKEN set")
    if tokens_equal(token, config.admin_token.get_secret_value()):
        return "admin-token"
    raise NotAuthorized("the admin token is not correct")


def moderate(store: Store, config: SpaceConfig, action: Action, entry: str, reason: str = "", *,
             token: str | None = None, username: str | None = None,
             wake: Callable[[], None] | None = None) -> str:
    """Run one admin action on a result id (or, for rescore, a result id or submission hash); returns a sentence."""
    actor = authorize(config, token=token, username=username)
    entry = (entry or "").strip().lower()
    if not _ID.match(entry):
        raise LemmataError("give the full 64-character entry id (shown in the audit view)")
    note = clean_text(reason, max_len=500, field="reason") or None
    if action in ("hide", "unhide"):
        store.set_hidden(entry, action == "hide", actor=actor, reason=note)
        return f"Entry {entry[:12]} is now {'hidden from' if action == 'hide' else 'shown on'} the leaderboard."
    if action == "rescore":
        result = store.get_result(entry)
        sha = result.submission_sha256 if result is not None else entry
        if result is not None and result.kind == "reported":
            raise LemmataError("reported rows come from a paper and are not scored here; nothing to rescore")
        store.requeue(sha, actor=actor, reason=note or "rescore requested")
        if wake is not None:
            wake()
        return f"Submission {sha[:12]} is queued for scoring again; a changed result becomes a new version."
    raise LemmataError(f"unknown action {action!r}")
