"""JSON Schemas of the Hub-pinned tracks' submission lines, exported from the models that check them.

A submission is the shared envelope: a JSONL file whose line 1 is the header
and every further line a record. Each schema here describes *one line*
(``oneOf`` the header and the record), so a user can check a file line by line
with any JSON Schema validator before uploading; the handler still does the
checks a schema cannot express (ids that exist in the release, one record per
query or entity, finite scores, ``pending`` bookkeeping).

Headers and the MathAtlas / MA-Align records are the handlers' own pydantic
models. The retrieval handlers check rankings field by field in
:func:`lemmata.beir.check_ranking` (so every problem gets a precise path such as
``ranking[3].score``); :class:`RankingRecord` states the same contract as a
model, and the tests hold the two to agreeing on accepted and rejected lines.

Export the committed files with ``lemmata schemas``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from lemmata.beir import MAX_RANKING_DEPTH
from lemmata.benchmarks.mirb import TASK_NAMES
from lemmata.submissions.schema import dumps, line_schema

#: a BEIR id: a non-empty string (an integer is read as its decimal string, as older BEIR files write ids)
BeirId = Annotated[StrictStr, Field(min_length=1)] | StrictInt


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class RankedDoc(_Strict):
    """One retrieved document and the system's score for it."""

    doc_id: BeirId = Field(description="a corpus `_id` of the release; listed at most once per ranking")
    score: float = Field(description="finite number; higher is better. Only scores decide the order: ties "
                                     "break by doc_id ascending, the list order is not used")


class RankingRecord(_Strict):
    """One query's ranking (every line after the header)."""

    query_id: BeirId = Field(description="a query `_id` of the release; at most one record per query")
    ranking: list[RankedDoc] = Field(max_length=MAX_RANKING_DEPTH,
                                     description=f"retrieved documents, at most {MAX_RANKING_DEPTH}; an empty "
                                                 "list ranks nothing (the query scores 0)")


MirbTaskName = Literal[TASK_NAMES]  # type: ignore[valid-type]


class MirbRankingRecord(_Strict):
    """One query's ranking within one MIRB task (every line after the header)."""

    task: MirbTaskName = Field(description="the MIRB task (= release split) the query belongs to")
    query_id: BeirId = Field(description="a query `_id` of that task; at most one record per (task, query)")
    ranking: list[RankedDoc] = Field(max_length=MAX_RANKING_DEPTH,
                                     description=f"retrieved documents of that task's corpus, at most "
                                                 f"{MAX_RANKING_DEPTH}; never a document excluded for the query "
                                                 "(dynamic-corpus tasks)")


def _tracks() -> dict[str, tuple[str, str, type[BaseModel], type[BaseModel]]]:
    """benchmark -> (file name, title, header model, record model)."""
    from lemmata.hubtracks import mathatlas, mathnet, mirb

    return {
        "mathnet-retrieve": ("mathnet-retrieve-submission.schema.json", "MathNet-Retrieve submission",
                             mathnet.Header, RankingRecord),
        "mirb": ("mirb-submission.schema.json", "MIRB submission", mirb.Header, MirbRankingRecord),
        "mathatlas": ("mathatlas-submission.schema.json", "MathAtlas submission",
                      mathatlas.AtlasHeader, mathatlas.AtlasRecord),
        "ma-align": ("ma-align-submission.schema.json", "MA-Align submission",
                     mathatlas.AlignHeader, mathatlas.AlignRecord),
    }


#: the benchmarks (header ``benchmark`` values) with an exported schema
BENCHMARKS: tuple[str, ...] = ("mathnet-retrieve", "mirb", "mathatlas", "ma-align")
#: where each benchmark's user documentation lives
READMES = {"mathnet-retrieve": "submissions/mathnet/README.md", "mirb": "submissions/mirb/README.md",
           "mathatlas": "submissions/mathatlas/README.md", "ma-align": "submissions/mathatlas/README.md"}


def models(benchmark: str) -> tuple[type[BaseModel], type[BaseModel]]:
    """The (header, record) models of one benchmark's submission lines."""
    _, _, header, record = _tracks()[benchmark]
    return header, record


def schema_filename(benchmark: str) -> str:
    """``submissions/schema/<this>``.

    >>> schema_filename("ma-align")
    'ma-align-submission.schema.json'
    """
    return _tracks()[benchmark][0]


def json_schema(benchmark: str) -> dict[str, Any]:
    """JSON Schema (2020-12) of one line of a ``benchmark`` submission: the header or a record."""
    filename, title, header, record = _tracks()[benchmark]
    return line_schema(
        header, record, filename=filename, title=f"{title}, format lemmata-submission/1 (one JSONL line)",
        description=f"{title} files are UTF-8 JSONL: line 1 is the header ({header.__name__}), every further "
                    f"line a record ({record.__name__}). See {READMES[benchmark]}.",
    )


def schema_text(benchmark: str) -> str:
    """The committed file's exact text."""
    return dumps(json_schema(benchmark))
