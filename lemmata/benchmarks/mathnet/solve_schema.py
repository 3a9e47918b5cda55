"""The upstream MathNet row, the release's problem record, and the pure functions over them.

Upstream columns are declared once (:class:`UpstreamRow`); a snapshot whose files carry other columns fails
with one problem per missing or unknown column, so a schema change upstream is a one-place fix. The release
keeps what solving and scoring need (problem, reference solutions, final answer, topic path, language,
problem type, image description, provenance) and stores figures in their own config.

Two derived facts live here because both the builder and the MathRAG track need them:

- the *domain* of a problem, the head of its first topic path mapped onto the paper's four domains;
- the *duplicate group*: problems whose statements are equal once markup, case and spacing are normalised
  (or which share an ``original_problem_markdown``) are one group; a retrieval pool never offers a problem
  from the query's own group.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from pydantic import ConfigDict, Field, field_validator

from lemmata.core.models import Strict
from lemmata.release.card_check import model_columns
from lemmata.benchmarks.mathnet.solve_meta import DOMAINS

#: the most images one problem may carry, and the largest image accepted (bytes): bounded reading
MAX_IMAGES = 32
MAX_IMAGE_BYTES = 8 * 1024 * 1024
_IMAGE_REF = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_SPACE = re.compile(r"\s+")
_DOMAIN_HEADS = {
    "algebra": "algebra", "number theory": "number_theory", "geometry": "geometry",
    "discrete mathematics": "discrete_math", "combinatorics": "discrete_math", "discrete math": "discrete_math",
}


class UpstreamImage(Strict):
    model_config = ConfigDict(populate_by_name=True)

    data: Optional[bytes] = Field(default=None, alias="bytes")
    path: Optional[str] = None


_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"


class _Shared(Strict):
    """The columns both published schemas carry, with the same types."""

    problem_markdown: str = Field(min_length=1, max_length=200_000)
    solutions_markdown: list[str] = Field(default_factory=list, max_length=64)
    images: list[UpstreamImage] = Field(default_factory=list, max_length=MAX_IMAGES)
    country: str | None = None
    competition: str | None = None
    topics_flat: list[str] = Field(default_factory=list, max_length=64)
    language: str | None = None
    problem_type: str | None = None
    final_answer: str | None = None

    @field_validator("solutions_markdown", "topics_flat", mode="before")
    @classmethod
    def _none_is_empty(cls, v: Any) -> Any:
        return [] if v is None else v


class UpstreamRow(_Shared):
    """One row of schema A (23 columns, a 64-hex ``unique_id``), the form every checked row takes in the builder.

    Evidence: the GitHub preview README of MathNet and an older Hub viewer snapshot (``shared/design/UPSTREAM.md``).
    """

    unique_id: str = Field(min_length=1, max_length=200, pattern=_ID)
    year: int | None = None
    section: str | None = None
    problem_number: str | None = None
    answers_markdown: list[str] | None = None
    topics: Any = None
    source_booklet: str | None = None
    booklet_source: str | None = None
    has_images: bool
    num_images: int = Field(ge=0)
    natural_language_description: str | None = None
    main_ideas: list[str] | None = None
    metadata_confidence: float | None = None
    original_problem_markdown: str | None = None


class UpstreamRowB(_Shared):
    """One row of schema B (10 columns, a short ``id`` such as ``007c``): the newer Hub viewer snapshot and the
    loaders that read ``ShadenA/MathNet`` by ``id`` (one of them at the pinned revision, 27,817 rows). It has no
    image count: the builder counts the ``images`` column."""

    id: str = Field(min_length=1, max_length=200, pattern=_ID)

    def as_row(self) -> UpstreamRow:
        fields = self.model_dump(exclude={"id", "images"})
        return UpstreamRow(unique_id=self.id, images=self.images, has_images=bool(self.images),
                           num_images=len(self.images), **fields)


#: the published schemas by the name MANIFEST.json records: name -> the model of one row
SCHEMAS: dict[str, type[_Shared]] = {"A-23col-unique_id": UpstreamRow, "B-10col-id": UpstreamRowB}


def columns(model: type[Strict]) -> tuple[str, ...]:
    """The upstream column names of a row model (aliases where a field has one).

    >>> len(columns(UpstreamRow)), columns(UpstreamRowB)[:2], len(columns(UpstreamRowB))
    (23, ('problem_markdown', 'solutions_markdown'), 10)
    """
    return model_columns(model, optional=False)[0]


UPSTREAM_COLUMNS = columns(UpstreamRow)


def schema_of(names: set[str]) -> tuple[str | None, list[tuple[str, str]]]:
    """``(schema name, [])`` when ``names`` are exactly one published schema's columns; else ``(None, diffs)``
    with ``(column, "missing"|"unknown")`` against the nearest schema.

    >>> schema_of(set(columns(UpstreamRowB)))
    ('B-10col-id', [])
    >>> schema_of(set(columns(UpstreamRowB)) - {"final_answer"} | {"answer"})
    (None, [('answer', 'unknown'), ('final_answer', 'missing')])
    """
    for name, model in SCHEMAS.items():
        if set(columns(model)) == names:
            return name, []
    nearest = min(SCHEMAS, key=lambda k: (len(set(columns(SCHEMAS[k])) ^ names), k))
    want = set(columns(SCHEMAS[nearest]))
    return None, sorted([(c, "missing") for c in want - names] + [(c, "unknown") for c in names - want])


def domain_of(topic_paths: Sequence[str]) -> str:
    """The paper's domain of a problem: the head of its first topic path, else ``other``.

    >>> domain_of(["Number Theory > Divisibility", "Algebra > Inequalities"])
    'number_theory'
    >>> domain_of(["Discrete Mathematics > Combinatorics"]), domain_of([]), domain_of(["Calculus > Limits"])
    ('discrete_math', 'other', 'other')
    """
    for path in topic_paths:
        head = path.split(">", 1)[0].strip().lower()
        if head:
            return _DOMAIN_HEADS.get(head, "other")
    return "other"


assert set(_DOMAIN_HEADS.values()) == set(DOMAINS)


def normalise(text: str) -> str:
    """A statement's comparison form: NFKC, figures removed, case folded, spacing collapsed.

    >>> normalise("Find  all n.\\n![](attached_image_1.png)") == normalise("find all N.")
    True
    """
    text = _IMAGE_REF.sub(" ", unicodedata.normalize("NFKC", text))
    return _SPACE.sub(" ", text).strip().casefold()


def text_key(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


class _UnionFind:
    def __init__(self, items: Iterable[str]) -> None:
        self.parent = {i: i for i in items}

    def find(self, x: str) -> str:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            lo, hi = sorted((ra, rb))
            self.parent[hi] = lo


def duplicate_groups(statements: Mapping[str, Sequence[str]],
                     links: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """``{problem id: group id}``: problems sharing a normalised statement (any of theirs) or linked are one group.

    ``statements`` maps an id to its texts (statement, original statement); ``links`` are extra equivalences
    (an equivalence set's members). The group id is the smallest member id, so it is stable and says nothing
    about the problem beyond its own id.

    >>> duplicate_groups({"b": ["Find x."], "a": ["find  X."], "c": ["Other."]})
    {'b': 'a', 'a': 'a', 'c': 'c'}
    >>> duplicate_groups({"a": ["P"], "b": ["Q"]}, links=[("b", "a")])["b"]
    'a'
    """
    uf = _UnionFind(statements)
    first: dict[str, str] = {}
    for pid, texts in statements.items():
        for text in texts:
            if not text or not normalise(text):
                continue
            key = text_key(text)
            if key in first:
                uf.union(first[key], pid)
            else:
                first[key] = pid
    for a, b in links:
        if a in uf.parent and b in uf.parent:
            uf.union(a, b)
    return {pid: uf.find(pid) for pid in statements}


def stratified_subset(strata: Mapping[str, tuple[str, ...]], size: int, seed: int) -> list[str]:
    """Ids of a stratified sample of ``size`` problems (all when fewer), by largest-remainder allocation.

    Each stratum gets its proportional share (at least one while the budget allows, largest strata first);
    within a stratum, problems are taken in the order of ``sha256(seed:id)``, so the sample depends only on
    the ids, the strata and the seed. Returned sorted by id.

    >>> s = {f"p{i}": (("a",) if i < 8 else ("b",)) for i in range(10)}
    >>> stratified_subset(s, 5, 1) == stratified_subset(s, 5, 1), len(stratified_subset(s, 5, 1))
    (True, 5)
    >>> sum(1 for p in stratified_subset(s, 5, 1) if s[p] == ("b",))
    1
    """
    ids = sorted(strata)
    if size >= len(ids):
        return ids
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pid in ids:
        groups[strata[pid]].append(pid)

    def order(pid: str) -> str:
        return hashlib.sha256(f"{seed}:{pid}".encode("utf-8")).hexdigest()

    n = len(ids)
    quotas = {k: size * len(v) / n for k, v in groups.items()}
    alloc = {k: int(q) for k, q in quotas.items()}
    left = size - sum(alloc.values())
    # remainders first, ties by stratum size then name: deterministic
    for k in sorted(groups, key=lambda k: (-(quotas[k] - alloc[k]), -len(groups[k]), k)):
        if left <= 0:
            break
        if alloc[k] < len(groups[k]):
            alloc[k] += 1
            left -= 1
    chosen: list[str] = []
    for k, members in groups.items():
        chosen += sorted(members, key=order)[: alloc[k]]
    return sorted(chosen)
