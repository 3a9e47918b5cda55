"""The Re²Math live protocol end to end, on local servers that speak the real protocols.

SerpAPI (:class:`test_retrieval_serpapi.SerpApiStub`-style JSON), arXiv (the
materialiser's :class:`test_materialisers_arxiv.ArxivStub`, plus a fixture
paper whose theorem is an instance's cited result) and a chat-completions
server (:class:`test_judge.ChatServer`) serve the agent and the judge; the
run is frozen, scored, put on a board, and rescored with zero network calls.
"""

from __future__ import annotations

import io
import json
import tarfile
import threading

import pytest

from lemmata.benchmarks.re2math.agent.live import excerpts
from lemmata.benchmarks.re2math.agent.live_agent import run_live_agent
from lemmata.benchmarks.re2math.scholar.serpapi import SerpApiScholar
from lemmata.benchmarks.re2math.scoring import Re2MathHandler
from lemmata.core.errors import InputError
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.envelope import parse_envelope
from lemmata.oracles.chat import ChatClient, ChatJudge
from lemmata.tracks.base import OracleConfig
from test_judge import ChatServer, rule_answer
from test_materialisers_arxiv import ArxivStub
from test_retrieval_serpapi import KEY, SerpApiStub

IID = "1809.07795_gap_3"          # its cited source is arXiv:1006.5960
CITED = "1006.5960"
QUERY = "nonlinear instability of black strings Gregory Laflamme"


@pytest.fixture(scope="module")
def rows(re2math_release):
    from lemmata.release.load import open_release

    return list(open_release(re2math_release).rows("eval200", "test"))


def paper_tarball(theorem: str) -> bytes:
    tex = ("\\documentclass{article}\\newtheorem{theorem}{Theorem}\\title{Black strings}\\begin{document}\\maketitle\n"
           "\\section{Introduction}\nWe study black strings and their stability.\n\n"
           + "".join(f"Filler paragraph {i} about unrelated matters of geometry.\n\n" for i in range(40))
           + f"\\begin{{theorem}}\\label{{thm:main}}\n{theorem}\n\\end{{theorem}}\n\\end{{document}}\n").encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("main.tex")
        info.size = len(tex)
        tar.addfile(info, io.BytesIO(tex))
    return buf.getvalue()


def serve(server):
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server


@pytest.fixture
def servers(rows, monkeypatch):
    row = next(r for r in rows if r["instance_id"] == IID)
    theorem = row["y"]["reference_tool_latex"]
    arxiv = serve(ArxivStub())
    arxiv.eprints[f"{CITED}v1"] = paper_tarball(theorem)
    arxiv.latest[CITED] = 1
    page = {"search_metadata": {"id": "s1", "status": "Success"}, "organic_results": [
        {"position": 0, "result_id": "BlackStr1", "title": "End point of black string instabilities",
         "link": f"https://arxiv.org/abs/{CITED}", "snippet": "black strings ...",
         "publication_info": {"summary": "L Lehner, F Pretorius - Physical review letters, 2010 - APS"}}]}
    empty = {"search_metadata": {"id": "s0", "status": "Success"},
             "error": "Google Scholar hasn't returned any results for this query."}
    serp = SerpApiStub()
    from test_retrieval_serpapi import _Handler

    class Handler(_Handler):
        def do_GET(self):  # noqa: N802
            from urllib.parse import parse_qs, urlsplit

            params = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            with self.server.lock:
                self.server.requests.append(params)
            if params.get("api_key") != KEY:
                return self._send(401, {"error": "Invalid API key."})
            return self._send(200, page if params.get("q") == QUERY else empty)

    serp.RequestHandlerClass = Handler
    serve(serp)

    def answer(request: dict) -> str:
        user = request["messages"][-1]["content"]
        if "## E3:" in user:
            mine = row["x"]["global_context"]["target_theorem"].strip() in user
            return json.dumps({"query": QUERY if mine else "qwxz nothing", "anchor": "apply the cited result"})
        if "## E4:" in user and "SEARCH RESULTS" in user:
            return json.dumps({"source": "gs-BlackStr1"})
        if "## E4:" in user:  # extraction: copy the theorem if the excerpts show it
            return json.dumps({"statement": theorem if theorem in user else None})
        if "Rubric suff_noanchor." in user:
            assert "INTENDED NEXT STEP" not in user and row["x"]["anchor_hint"].strip() not in user
            return rule_answer({"messages": [{"content": user.replace("suff_noanchor.", "suff.")}]})
        return rule_answer(request)

    with ChatServer(answer) as chat:
        yield {"arxiv": arxiv, "serp": serp, "chat": chat, "row": row, "theorem": theorem}
    for s in (arxiv, serp):
        s.shutdown()
        s.server_close()


def arxiv_env(stub) -> dict[str, str]:
    return {"LEMMATA_ARXIV_BASE_URL": stub.base, "LEMMATA_ARXIV_API_URL": stub.base + "/api/query",
            "LEMMATA_MATERIALISER_MIN_INTERVAL_S": "0", "LEMMATA_MATERIALISER_BACKOFF_S": "0",
            "LEMMATA_MATERIALISER_MAX_RETRIES": "1", "LEMMATA_MATERIALISER_TIMEOUT_S": "5"}


def score(handler, path, *, judge=None, judge_dir=None):
    data = path.read_bytes()
    validated = handler.validate(parse_envelope(data, path.name), sha256_bytes(data))
    return handler.score(validated, received_at="2026-12-01",
                         oracles=OracleConfig(judge=judge, extra={"judge_artifact": str(judge_dir)}))


def test_excerpts_rank_matching_statements_not_the_first_characters():
    text = "% h\n\n" + "\n\n".join(f"Opening prose {i} about something else." for i in range(300)) + \
           "\n\n[Theorem 9.1]\nBlack strings are nonlinearly unstable.\n[/Theorem 9.1]"
    shown, starts = excerpts(text, "black strings are nonlinearly unstable", budget=500)
    assert "[Theorem 9.1]" in shown and len(shown) <= 500 and "Opening prose 0 " not in shown
    assert excerpts(text, "", budget=500) == ("", [])


def test_live_run_scores_boards_and_rescores_offline(servers, rows, re2math_release, tmp_path, monkeypatch):
    from lemmata.space.board import load_rows
    from lemmata.store import Store

    arts, out = tmp_path / "artifacts", tmp_path / "out"
    scholar = SerpApiScholar("re2math-serpapi-t1", api_key=KEY, base_url=servers["serp"].url, sleep=lambda s: None)
    paths = run_live_agent(out, arts, run_id="t1", chat=ChatClient(servers["chat"].config()), scholar=scholar,
                           materialiser_env=arxiv_env(servers["arxiv"]), rows=rows, model_name="judge-model")
    sub = [json.loads(line) for line in paths["submission"].read_text("utf-8").splitlines()]
    assert sub[0]["materialisation_artifact"] == "re2math-materialisations-t1"
    mine = next(r for r in sub[1:] if r["instance_id"] == IID)
    assert mine["selected_source"] == "gs-BlackStr1" and mine["statement"] == servers["theorem"]
    assert len(mine["queries"]) == 1 and all(len(r["queries"]) <= 1 for r in sub[1:])
    by_id = {r["instance_id"]: r["publication_year"] for r in rows}
    distinct = {(r["queries"][0]["text"], by_id[r["instance_id"]]) for r in sub[1:] if r["queries"]}
    assert len(servers["serp"].requests) == len(distinct)  # each (query, cutoff) sent once; repeats replay

    handler = Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=arts, build_missing=False)
    judge_dir = tmp_path / "judge"
    for k, v in arxiv_env(servers["arxiv"]).items():
        monkeypatch.setenv(k, v)
    first = score(handler, paths["submission"], judge=ChatJudge(servers["chat"].config()), judge_dir=judge_dir)
    item = next(i for i in first.items if i["instance_id"] == IID)
    assert item["ground"]["verdict"] == "yes" and item["suff"]["verdict"] == "yes" and item["tool_acc"] == "yes"
    assert item["source_match"] == "cited" and item["cite_rank"] == 1 and item["opened"] == f"arxiv:{CITED}"
    assert first.main.metric == "ToolAcc" and first.main.count == 1 and first.main.value == pytest.approx(1 / 200)
    assert first.metrics["OracleCoverage"]["count"] == 1 and first.metrics["OracleCoverage"]["total"] == 200
    assert first.frozen.retrieval_artifact == "re2math-serpapi-t1"
    assert first.frozen.scoring_artifact.endswith("ground.v2+suff_noanchor.v2")
    others = [i for i in first.items if i["instance_id"] != IID]
    assert all(i["tool_acc"] != "yes" for i in others)

    store = Store(tmp_path / "store")
    store.add_result(first)
    board = [r for r in load_rows(store) if r.benchmark == "re2math"]
    assert len(board) == 1 and board[0].metric == "ToolAcc"

    # rescore: no backend configured beyond the frozen tuple; zero network calls on every server
    for k in arxiv_env(servers["arxiv"]):
        monkeypatch.delenv(k)
    counts = (len(servers["serp"].requests), len(servers["arxiv"].requests), len(servers["chat"].requests))
    again = score(handler, paths["submission"], judge=None, judge_dir=judge_dir)
    assert (len(servers["serp"].requests), len(servers["arxiv"].requests), len(servers["chat"].requests)) == counts
    assert again.result_id == first.result_id or again.items == first.items


def test_unmaterialised_source_is_pending_never_success(servers, rows, re2math_release, tmp_path):
    arts, out = tmp_path / "artifacts", tmp_path / "out"
    scholar = SerpApiScholar("re2math-serpapi-t2", api_key=KEY, base_url=servers["serp"].url, sleep=lambda s: None)
    servers["arxiv"].eprints.pop(f"{CITED}v1")  # arXiv has no e-print: unavailable
    paths = run_live_agent(out, arts, run_id="t2", chat=ChatClient(servers["chat"].config()), scholar=scholar,
                           materialiser_env=arxiv_env(servers["arxiv"]), rows=rows)
    lines = paths["submission"].read_text("utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    mine = next(r for r in recs[1:] if r["instance_id"] == IID)
    assert mine["selected_source"] == "gs-BlackStr1" and mine["statement"] is None
    mine["statement"] = servers["theorem"]  # a statement claimed from a source nobody could materialise
    paths["submission"].write_text("\n".join(json.dumps(r) for r in recs) + "\n", "utf-8")
    handler = Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=arts, build_missing=False)
    result = score(handler, paths["submission"], judge=ChatJudge(servers["chat"].config()), judge_dir=tmp_path / "j")
    item = next(i for i in result.items if i["instance_id"] == IID)
    assert item["ground"]["verdict"] == "pending" and "not materialised" in item["ground"]["reason"]
    assert item["tool_acc"] == "pending" and result.main.value is None

    # a query the recording never saw is a problem of the submission, with line and field
    mine["queries"][0]["text"] = "a query never sent"
    paths["submission"].write_text("\n".join(json.dumps(r) for r in recs) + "\n", "utf-8")
    with pytest.raises(InputError, match="never recorded"):
        score(handler, paths["submission"])
