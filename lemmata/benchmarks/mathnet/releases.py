"""Every MathNet release, in build order (the family's ``releases`` entry)."""

from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE

RELEASES = (MATHNET_RETRIEVE, MATHNET_SOLVE)
