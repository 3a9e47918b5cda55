"""How many cores this process may use, for every default worker count (batch search, exact vector search).

``os.cpu_count()`` counts the machine's cores; a container or ``taskset`` may
allow fewer, and more workers than allowed cores only contend. The affinity
mask says what is allowed, where the platform has one.
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores this process may run on: its affinity mask where the platform has one, else the machine's count.

    >>> usable_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity masks
        return os.cpu_count() or 1
