"""Registration of every benchmark's track handler (imported lazily by :mod:`lemmata.scoring.base`).

One line per benchmark: ``register_handler(<header benchmark value>, "<module>:<Class>")``.
"""

from lemmata.scoring.base import register_handler  # noqa: F401
