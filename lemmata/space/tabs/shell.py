"""The page-wide components every tab reads or writes: banner, URL string, change token, timer, tabs."""

from dataclasses import dataclass
from typing import Any


@dataclass
class Shell:
    banner: Any
    change_token: Any  # the store/start-up token the page last rendered
    rest_token: Any  # the token the timer's second step (plots, downloads, other tabs' panels) last rendered
    show_all: Any  # every row of each group instead of the first ROW_LIMIT
    watch: Any  # content hashes of this page's uploads still being scored (fast polling)
    url_qs: Any  # the composed query string, copied into the address bar by ``sync_kwargs``
    timer: Any
    tabs: Any = None
