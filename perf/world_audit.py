"""Can what a system sees single out gold? A classifier audit and trivial rules under the paper's budget.

    python perf/world_audit.py [--world DIR] [--release DIR] [--distractors DIR] [--version 2.1.0]
                               [--sample 15000] [--boot 2000] [--json OUT]

Runs on a built offline world (any 2.x; without ``--world`` the releases
and the world are built into a temporary folder, about a minute). Gold = the
cited-source records of the release's 860 instances; distractors = a fixed
random sample of the other records (``--sample``, seed 0).

1. **Classifiers.** Every field a search hit shows (the id included; rank and
   score depend on the query and are left out) is turned into *form*
   features by its type — a string: length, words, upper-case share, letters
   after the first that are capitals, non-ASCII, LaTeX characters, digits,
   punctuation, empty; a list of strings: count, lengths, non-ASCII,
   spaces, hyphens, apostrophes; a number: its value and presence; an id also:
   the number its digits spell. Logistic regression (standardised, balanced)
   and gradient boosting (scikit-learn ``HistGradientBoostingClassifier``) are
   cross-validated with 5 stratified folds; the out-of-fold ROC AUC is
   reported for every field alone, for all hit fields, and for a hit plus
   what an opening shows (every field of the opened record, the same way).
   The field that separates most is named. A third model reads the spelling
   itself: character n-grams (2–5 inside word boundaries, tf-idf; scikit-learn
   ``TfidfVectorizer(analyzer="char_wb")``) with a balanced logistic regression,
   on every hit field alone and on the text fields together (title + authors),
   cross-validated the same way — the model that finds citation-parse residue
   (leading initials, quote marks, venue and volume tails) that counts miss.
   The same models then run on two more populations, reported beside the
   random one: gold against the distinct non-gold records the search shows
   among the admissible top 20 of every instance's two queries (raw proof
   state, m = 5, and target theorem; the *hit AUC as shown*), and gold
   against every non-gold record without an arXiv id (the journal and book
   records: the cited works' own origin).
   Goal: hit AUC ≤ 0.60 for every model on every field.
2. **Trivial rules under the paper's budget** (one query — the rendered raw
   proof state, m = 5, with the instance's cutoff —, lists of 20, at most one
   opening) on Eval-200: the baseline opens and selects the first admissible
   hit (the citing paper's own record, recognised by its title, skipped);
   each rule chooses differently: the first hit with a rare form (a hit-form
   signature held by < 1% of the records), the first hit dated outside
   1991–2019 (only where hits show a year), the most gold-looking hit (the
   hit classifier, trained on gold records of the *other* 660 instances),
   and "open the first, keep it only if it looks like gold" (hit + opening
   classifier; else the most gold-looking other hit is selected unopened).
   SourceAcc and OfflineToolAcc with paired-bootstrap 95% intervals of each
   rule's gain over the baseline. No judge runs here, so OfflineToolAcc is
   its upper bound: every selected source that was opened and yields a
   statement (the abstract sentence closest to the proof state, as the
   baseline agent extracts it) counts as sufficient. Goal: no rule gains —
   every gain's interval reaches 0 or below (the script also counts the
   intervals that contain 0; one entirely below 0 is a rule that loses).
   **Within a query's top 20.** Over all 860 instances in 5 folds (seed 0),
   a form-only model (the character n-gram model on title + authors, and
   gradient boosting on the form features) learns gold from the other folds'
   cited records and orders each held-out query's admissible hits: how often it
   puts gold first, among the instances whose gold is in the list, against
   chance (1 / list length) and against the search's own first hit, with a
   paired-bootstrap interval of the gain over chance.
3. **Twins.** Pairs of records of one work among all the world's records, by
   world 2.2's same-work rule (``duplicate_pairs``): the same arXiv id, an id
   and its zero-padded form, the same folded title with agreeing authors.
4. **Trivial queries.** Offline CiteRecall@20 of the citing paper's title
   alone, of the raw proof state alone, of the same with the target's cite key
   masked (``render_instance(..., mask_target_cite=True)``) and of the target's
   cite key alone, with each instance's cutoff.

Every number printed comes from this run; ``--json`` writes them too.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # gradient boosting's threads spin on a busy shared machine

K = 20
FOLDS = 5
RARE = 0.01
_LATEX = re.compile(r"[\\^_{}$]")
_PUNCT = re.compile(r"[-:;,.()'\"!?/]")


# --------------------------------------------------------------------------- features


def _str_features(s: str | None) -> list[float]:
    s = s or ""
    letters = [c for c in s if c.isalpha()]
    words = s.split()
    return [len(s), len(words), sum(c.isupper() for c in letters) / max(1, len(letters)),
            sum(w[1:] != w[1:].lower() for w in words), sum(not c.isascii() for c in s), len(_LATEX.findall(s)),
            sum(c.isdigit() for c in s), len(_PUNCT.findall(s)), float(not s), float(s[:1].isupper()),
            float(s[-1:].isdigit()), float("- " in s or " -" in s)]


def _list_features(items: list | None) -> list[float]:
    items = [str(x) for x in (items or [])]
    lens = [len(x) for x in items] or [0]
    return [len(items), sum(lens) / len(lens), max(lens), sum(not x.isascii() for x in items),
            sum(" " in x for x in items), sum("-" in x for x in items), sum("'" in x for x in items),
            sum(x[1:] != x[1:].lower() for x in items), float(not items)]


def _num_features(v) -> list[float]:
    return [float(v) if v is not None else -1.0, float(v is None)]


def _id_features(rid: str) -> list[float]:
    digits = re.sub(r"\D", "", rid)
    return [float(int(digits)) if digits else -1.0, len(rid), len(digits)]


#: every field's feature vector has this width (padded), its last entry saying the field is absent (None)
WIDTH = 17


def field_features(name: str, value) -> list[float]:
    """Form features of one shown field, by its type (the id also by the number it spells); fixed width."""
    if value is None:
        f, absent = [-1.0], 1.0
    elif name == "id":
        f, absent = _id_features(value) + _str_features(value), 0.0
    elif isinstance(value, list):
        f, absent = _list_features(value), 0.0
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        f, absent = _num_features(value), 0.0
    else:
        f, absent = _str_features(str(value)), 0.0
    return (f + [0.0] * WIDTH)[: WIDTH - 1] + [absent]


def record_features(shown: dict, skip=("rank", "score", "artifact_id")) -> dict[str, list[float]]:
    """Field name -> its features, for every field of a hit or opened record (query-dependent fields left out)."""
    return {name: field_features(name, value) for name, value in shown.items() if name not in skip}


def vector(feats: dict[str, list[float]], names: list[str]) -> list[float]:
    """One row: the named fields' features in order (a field the record lacks counts as absent)."""
    row: list[float] = []
    for name in names:
        row += feats.get(name) or field_features(name, None)
    return row


def matrix(rows: list[dict[str, list[float]]], fields: list[str] | None = None):
    import numpy as np

    names = list(dict.fromkeys(n for r in rows for n in r if fields is None or n in fields))
    return np.asarray([vector(r, names) for r in rows], dtype=np.float64), names


def models():
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "logistic regression": lambda: make_pipeline(StandardScaler(), LogisticRegression(
            max_iter=2000, class_weight="balanced")),
        "gradient boosting": lambda: HistGradientBoostingClassifier(max_iter=200, random_state=0),
    }


def cv_auc(X, y, make) -> float:
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=0)
    p = cross_val_predict(make(), X, y, cv=folds, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, p))


def shown_text(value) -> str:
    """A shown field as the characters a reader sees: a list (authors) joined by "; ", an absent field empty."""
    if value is None:
        return ""
    return "; ".join(map(str, value)) if isinstance(value, list) else str(value)


def field_texts(shown: dict, fields: list[str]) -> str:
    """The named shown fields as one text, " | " between them (a model of their combination)."""
    return " | ".join(shown_text(shown.get(f)) for f in fields)


def char_model():
    """Character n-grams (2-5, inside word boundaries, tf-idf) with a balanced logistic regression: a model of
    a field's spelling (initials, quote marks, ". " fragments, venue and volume tails), not of hand-picked counts."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True,
                                         lowercase=False, dtype=np.float32),
                         LogisticRegression(max_iter=2000, class_weight="balanced", solver="liblinear"))


def gold_ngrams(texts, y, top: int = 15) -> list[str]:
    """The n-grams the character model, fitted on all of ``texts``, weighs most towards gold: what still tells."""
    import numpy as np

    model = char_model().fit(texts, y)
    vocab = model[0].get_feature_names_out()
    return [str(vocab[i]) for i in np.argsort(-model[-1].coef_[0])[:top]]


def paired_bootstrap(base, other, boot: int, seed: int = 0):
    """Mean of ``other - base`` with its 95% percentile interval over resampled instances."""
    import numpy as np

    a, b = np.asarray(base, float), np.asarray(other, float)
    idx = np.random.default_rng(seed).integers(0, len(a), size=(boot, len(a)))
    d = b[idx].mean(1) - a[idx].mean(1)
    return float((b - a).mean()), (float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5)))


# --------------------------------------------------------------------------- world access


def shown_hit(world, pos: int) -> dict:
    """What a hit shows for the record at ``pos`` (as :meth:`search` would render it), without searching."""
    return world.shown(pos, 0.0).model_dump()  # the answer a ranking of one gives


def shown_opening(world, pos: int) -> dict:
    """What opening the record at ``pos`` shows, without logging an opening."""
    return world._opened(pos).model_dump()


def form_signature(feats: dict[str, list[float]]) -> tuple:
    """A coarse hit-form signature (lengths bucketed, flags kept) for the rare-form rule."""
    sig = []
    for name, f in sorted(feats.items()):
        if name == "id":
            continue
        sig.append((name, tuple(min(int(v // 20), 6) if i == 0 else round(v, 1) if i == 2 else min(int(v), 5)
                                for i, v in enumerate(f[:12])) + (f[-1],)))
    return tuple(sig)


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", metavar="DIR", help="a built offline world folder (any 2.x)")
    parser.add_argument("--release", metavar="DIR", help="a built Re2Math release folder")
    parser.add_argument("--distractors", metavar="DIR", help="a built math-arxiv-meta release folder")
    parser.add_argument("--version", default=None, help="world version to build without --world (default: current)")
    parser.add_argument("--sample", type=int, default=15000, help="random distractors in the classifier sample")
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--json", metavar="OUT", help="also write every figure as JSON")
    args = parser.parse_args()

    import numpy as np

    from lemmata.benchmarks.re2math.agent.lexical import clip, extract_sentence
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release

    t0 = time.perf_counter()
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="lemmata-world-audit-") as tmp:
        release = Path(args.release) if args.release else None
        if release is None:
            from lemmata.benchmarks.re2math.builder import Re2MathBuilder

            release = Re2MathBuilder().build(Path(tmp) / "releases", quiet=True)
        world = _open_or_build(args, release, Path(tmp))
        rows = open_release(release).rows("full", "full")
        eval_rows = open_release(release).rows("eval200", "test")
        eval_ids = {r["instance_id"] for r in eval_rows}
        attributions = {a.instance_id: a for a in world.attributions()}
        gold = {a.record_id for a in attributions.values()}
        gold_eval = {attributions[i].record_id for i in eval_ids}
        n = len(world)
        pos_of = {rid: i for i, rid in enumerate(world._ids)}
        rng = np.random.default_rng(0)
        candidates = np.asarray([i for i in rng.permutation(n)[: args.sample + len(gold) + 10]
                                 if world._ids[i] not in gold])[: args.sample]
        gold_pos = sorted(pos_of[g] for g in gold)
        sample = gold_pos + sorted(candidates.tolist())
        y = np.asarray([1] * len(gold_pos) + [0] * len(candidates))
        shown = [shown_hit(world, p) for p in sample]
        hits = [record_features(h) for h in shown]
        opens = [record_features(shown_opening(world, p), skip=("artifact_id",)) for p in sample]
        both = [{**h, **{f"opened {k}": v for k, v in o.items()}} for h, o in zip(hits, opens)]
        print(f"{world.artifact_id}: {n:,} records; {len(gold)} gold (cited-source records of {len(rows)} "
              f"instances) against {len(candidates):,} random distractors (seed 0); {FOLDS}-fold ROC AUC")
        out.update(artifact_id=world.artifact_id, records=n, gold=len(gold), distractors=len(candidates))
        ms = models()
        hit_fields = list(hits[0])
        out["hit_fields"] = hit_fields
        table = hit_aucs(shown, hits, y, extra={"hit + opening": both})
        both_auc = table.pop("hit + opening")
        per_field, hit_auc, char_auc = table["per_field"], table["hit_auc"], table["char_ngram_auc"]
        cues = gold_ngrams(np.asarray([field_texts(h, ["title"]) for h in shown], dtype=object), y)
        print(f"character n-grams of the title weighing most towards gold (all data): {', '.join(map(repr, cues))}")
        out.update(per_field=per_field, hit_auc=hit_auc, hit_plus_opening_auc=both_auc,
                   most_separating_field=table["most_separating_field"], char_ngram_auc=char_auc,
                   title_gold_ngrams=cues, highest_hit_auc=table["highest"])

        # ------------------------------------------------------------ other distractor populations
        populations = {
            "as shown": (listed_distractors(world, rows, attributions, gold, pos_of),
                         (f"distinct non-gold records the search shows among the admissible top {K} of the "
                          f"{len(rows)} instances' queries (raw proof state m=5, and target theorem; each instance's "
                          "cutoff): the hit AUC as shown")),
            "non-arXiv records": (non_arxiv_distractors(world, gold, pos_of),
                                  ("non-gold records without an arXiv id (all the journal and book records): "
                                   "distractors of the cited works' own origin")),
        }
        verdicts = [("random records", table["highest"])]
        for name, (positions, what) in populations.items():
            shown_p = [shown_hit(world, p) for p in gold_pos + positions]
            y_p = np.asarray([1] * len(gold_pos) + [0] * len(positions))
            print(f"\nthe same {len(gold_pos)} gold records against {len(positions):,} {what}")
            got = hit_aucs(shown_p, [record_features(h) for h in shown_p], y_p)
            cues_p = gold_ngrams(np.asarray([field_texts(h, ["title"]) for h in shown_p], dtype=object), y_p)
            print(f"character n-grams of the title weighing most towards gold here (all data): "
                  f"{', '.join(map(repr, cues_p))}")
            out[name.replace(" ", "_").replace("-", "_")] = {**got, "distractors": len(positions),
                                                              "title_gold_ngrams": cues_p}
            verdicts.append((name, got["highest"]))
        print("goal hit AUC <= 0.60 for every model (logistic regression, gradient boosting, character n-grams on "
              "every field): " + "; ".join(f"against {name} {'MET' if v <= 0.60 else 'NOT MET'} (highest {v:.3f})"
                                           for name, v in verdicts))
        out["hit_goal_met"] = {name: v <= 0.60 for name, v in verdicts}

        # ------------------------------------------------------------ trivial rules under the paper budget
        train_gold = sorted(pos_of[g] for g in gold - gold_eval)
        train = train_gold + sorted(candidates.tolist())
        ty = np.asarray([1] * len(train_gold) + [0] * len(candidates))
        tr_hits = [record_features(shown_hit(world, p)) for p in train]
        tr_both = [{**record_features(shown_hit(world, p)),
                    **{f"opened {k}": v for k, v in record_features(shown_opening(world, p),
                                                                     skip=("artifact_id",)).items()}}
                   for p in train]
        Xth, hnames = matrix(tr_hits)
        Xtb, bnames = matrix(tr_both)
        gb_hit = ms["gradient boosting"]().fit(Xth, ty)
        gb_both = ms["gradient boosting"]().fit(Xtb, ty)
        threshold = float(np.median(gb_both.predict_proba(Xtb[ty == 1])[:, 1]))

        sig_count: dict[tuple, int] = {}
        for p in rng.permutation(n)[:50_000].tolist():
            s = form_signature(record_features(shown_hit(world, p)))
            sig_count[s] = sig_count.get(s, 0) + 1
        sig_total = sum(sig_count.values())
        shows_year = "year" in hit_fields

        queries = [(clip(render_instance(r, "raw", 5), 2000), attributions[r["instance_id"]].year_cutoff, K)
                   for r in eval_rows]
        results = world.search_batch(queries)
        rules = ["baseline: open the first hit", "first hit with a rare form", "first hit dated outside 1991-2019",
                 "most gold-looking hit", "open the first, keep it only if it looks like gold"]
        src = {r: [] for r in rules}
        tool = {r: [] for r in rules}
        for row, res in zip(eval_rows, results):
            target = attributions[row["instance_id"]].record_id
            proof = render_instance(row, "raw", 5)
            adm = admissible_hits(res, row)
            if not adm:
                for r in rules:
                    src[r].append(0)
                    tool[r].append(0)
                continue
            hf = [record_features(h.model_dump()) for h in adm]
            p_hit = gb_hit.predict_proba(np.asarray([vector(f, hnames) for f in hf]))[:, 1]
            rare = [h for h, f in zip(adm, hf) if sig_count.get(form_signature(f), 0) / sig_total < RARE]
            dated = [h for h in adm if shows_year and h.year is not None and not 1991 <= h.year <= 2019]
            first = adm[0]
            opened_first = shown_opening(world, pos_of[first.id])
            f_both = {**hf[0], **{f"opened {k}": v for k, v in record_features(opened_first,
                                                                              skip=("artifact_id",)).items()}}
            keep = gb_both.predict_proba(np.asarray([vector(f_both, bnames)]))[:, 1][0] >= threshold
            others = sorted(range(1, len(adm)), key=lambda j: (-p_hit[j], j))
            choice = {
                rules[0]: (first, True),
                rules[1]: ((rare[0] if rare else first), True),
                rules[2]: ((dated[0] if dated else first), True),
                rules[3]: (adm[int(np.argmax(p_hit))], True),
                rules[4]: ((first, True) if keep or not others else (adm[others[0]], False)),
            }
            for r, (hit, opened) in choice.items():
                right = hit.id == target
                statement = None
                if opened:
                    text = opened_first["text"] if hit.id == first.id else shown_opening(world, pos_of[hit.id])["text"]
                    statement = extract_sentence(text, proof)
                src[r].append(int(right))
                tool[r].append(int(right and statement is not None))
        print(f"\ntrivial rules under the paper's budget on Eval-200 ({len(eval_rows)} instances; one query = the "
              f"raw proof state, m=5; lists of {K}; one opening); paired bootstrap, {args.boot} resamples")
        print(f"{'rule':<54}{'SourceAcc':>10}{'gain [95% CI]':>26}{'OfflineToolAcc<=':>18}{'gain [95% CI]':>26}")
        out["rules"] = {}
        no_gain, contain = True, []
        for r in rules:
            if r == rules[2] and not shows_year:
                print(f"{r:<54}{'(hits show no year: the rule is the baseline)':>50}")
                continue
            ds, cs = paired_bootstrap(src[rules[0]], src[r], args.boot)
            dt, ct = paired_bootstrap(tool[rules[0]], tool[r], args.boot)
            if r != rules[0]:
                no_gain &= cs[0] <= 0 and ct[0] <= 0
                contain.append(cs[0] <= 0 <= cs[1] and ct[0] <= 0 <= ct[1])
            print(f"{r:<54}{sum(src[r]):>6}/{len(src[r])}{ds:>+10.3f} [{cs[0]:+.3f}, {cs[1]:+.3f}]"
                  f"{sum(tool[r]):>14}/{len(tool[r])}{dt:>+10.3f} [{ct[0]:+.3f}, {ct[1]:+.3f}]")
            out["rules"][r] = {"source_acc": sum(src[r]), "offline_tool_acc_upper": sum(tool[r]), "n": len(src[r]),
                               "source_gain": ds, "source_gain_ci": cs, "tool_gain": dt, "tool_gain_ci": ct}
        print(f"goal no rule gains (every gain interval reaches 0 or below): {'MET' if no_gain else 'NOT MET'}; "
              f"intervals containing 0: {sum(contain)} of {len(contain)} (an interval below 0 is a rule that loses: "
              "it leaves the first hit for a form signal that is not there)")
        out["rules_goal_met"] = no_gain
        out["rules_intervals_containing_0"] = [sum(contain), len(contain)]

        # ------------------------------------------------------------ within a query's top 20: form against chance
        firsts, chance = within_top(world, rows, attributions, sample, shown, hits, y)
        print(f"\nwithin a query's top {K} (one query = the raw proof state, m=5; all {len(rows)} instances, "
              f"{FOLDS} folds of instances; {len(chance)} have their gold among the admissible hits): how often a "
              f"form-only model trained on the other folds' gold ranks gold first, against chance (1 / list length; "
              f"mean {np.mean(chance) if chance else 0:.3f}); paired bootstrap of the difference")
        out["within_top"] = {"instances": len(chance), "chance": float(np.sum(chance))}
        for name, got in firsts.items():
            d, ci = paired_bootstrap(chance, got, args.boot) if got else (0.0, (0.0, 0.0))
            print(f"  {name:<28} gold first {sum(got)}/{len(got)} = {np.mean(got) if got else 0:.3f}; "
                  f"against chance {d:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]")
            out["within_top"][name] = {"gold_first": sum(got), "gain_over_chance": d, "ci": ci}

        # ------------------------------------------------------------ twins: pairs of records of one work
        twins = twin_count(world)
        print(f"\npairs of records of one work (the 2.2 same-work rule, on all {n:,} records): same arXiv id "
              f"{twins['same_id']:,}; an id and its zero-padded twin {twins['padded_id']:,}; same folded title with "
              f"agreeing authors {twins['same_title_and_author']:,}")
        out["twins"] = twins

        # ------------------------------------------------------------ trivial queries: Offline CiteRecall@20
        print(f"\nOffline CiteRecall@{K} on Eval-200 with each instance's cutoff (95% percentile bootstrap):")
        out["cite_recall"] = {}
        for name, make in (("citing-paper title only", lambda r: r["paper"]["title"]),
                           ("proof state only (raw, m=5)", lambda r: clip(render_instance(r, "raw", 5), 2000)),
                           ("the same, target cite key masked", lambda r: clip(render_instance(
                               r, "raw", 5, mask_target_cite=True), 2000)),
                           ("target cite key only", lambda r: (r.get("z") or {}).get("citation_key") or "")):
            res = world.search_batch([(make(r), attributions[r["instance_id"]].year_cutoff, K) for r in eval_rows])
            found = [attributions[r["instance_id"]].record_id in {h.id for h in x.hits}
                     for r, x in zip(eval_rows, res)]
            m, ci = paired_bootstrap([0] * len(found), found, args.boot)
            print(f"  {name:<34} {sum(found)}/{len(found)} = {m:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]")
            out["cite_recall"][name] = {"found": sum(found), "n": len(found), "ci": ci}
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"\n({out['seconds']} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


def hit_aucs(shown: list[dict], hits: list[dict], y, extra: dict | None = None) -> dict:
    """Print and return the out-of-fold ROC AUC of every model on every hit field, on all of them, and (``extra``:
    name -> feature rows) on other views; the character n-gram model on every field and on the text fields
    together; the highest hit AUC of all (``extra`` not counted) and the field that separates most."""
    import numpy as np

    ms = models()
    y = np.asarray(y)
    print(f"{'what the classifier sees':<34}" + "".join(f"{m:>22}" for m in ms))
    per_field: dict[str, dict[str, float]] = {}
    for field in hits[0]:
        X, _ = matrix(hits, [field])
        per_field[field] = {m: cv_auc(X, y, make) for m, make in ms.items()}
        print(f"{'hit field ' + field:<34}" + "".join(f"{per_field[field][m]:>22.3f}" for m in ms))
    out: dict = {"per_field": per_field}
    for name, rows in {"every hit field": hits, **(extra or {})}.items():
        X, _ = matrix(rows)
        out[name] = {m: cv_auc(X, y, make) for m, make in ms.items()}
        print(f"{name:<34}" + "".join(f"{out[name][m]:>22.3f}" for m in ms))
    out["hit_auc"] = out.pop("every hit field")
    top = max(per_field, key=lambda f: max(per_field[f].values()))
    print(f"most separating hit field: {top} (AUC {max(per_field[top].values()):.3f})")
    text_fields = [f for f in hits[0] if f != "id"]
    char_sets = {f: [f] for f in hits[0]} | {" + ".join(text_fields): text_fields}
    print(f"character n-grams (2-5, tf-idf) + logistic regression, {FOLDS}-fold ROC AUC:")
    char_auc: dict[str, float] = {}
    for name, fields in char_sets.items():
        char_auc[name] = cv_auc(np.asarray([field_texts(h, fields) for h in shown], dtype=object), y, char_model)
        print(f"{'hit ' + name:<34}{char_auc[name]:>22.3f}")
    highest = max([*out["hit_auc"].values(), *char_auc.values(), *(a for f in per_field.values() for a in f.values())])
    return {**out, "char_ngram_auc": char_auc, "most_separating_field": top, "highest": highest}


def admissible_hits(result, row) -> list:
    """A result list's hits without the citing paper's own record (recognised by its title): what may be cited."""
    from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, is_citing_paper

    return [h for h in result.hits if not is_citing_paper(SourceRef(title=h.title), row).matched]


def listed_distractors(world, rows, attributions, gold: set[str], pos_of: dict[str, int]) -> list[int]:
    """Positions of the distinct records, cited by no instance, that the search shows among the admissible top
    hits of every instance's two queries (the raw proof state, m = 5, and the target theorem; each instance's
    year cutoff): the distractors a system actually sees, not a random draw from the haystack."""
    from lemmata.benchmarks.re2math.agent.lexical import clip
    from lemmata.benchmarks.re2math.render import render_instance

    queries = []
    for r in rows:
        cutoff = attributions[r["instance_id"]].year_cutoff
        queries += [(clip(render_instance(r, "raw", 5), 2000), cutoff, K),
                    (clip(r["x"]["global_context"]["target_theorem"], 2000), cutoff, K)]
    results = world.search_batch(queries)
    seen = {h.id for i, res in enumerate(results) for h in admissible_hits(res, rows[i // 2]) if h.id not in gold}
    return sorted(pos_of[rid] for rid in seen)


def non_arxiv_distractors(world, gold: set[str], pos_of: dict[str, int]) -> list[int]:
    """Positions of every record cited by no instance whose stored arXiv id is empty: the world's journal and book
    records (math_bib), the origin most cited works share — distractors matched to gold by origin, not drawn from a
    haystack that is mostly recent arXiv preprints."""
    import pyarrow.parquet as pq

    from lemmata.benchmarks.re2math.scholar.world.info import RECORDS_FILE

    table = pq.read_table(Path(world.root) / RECORDS_FILE, columns=["id", "arxiv_id"]).to_pydict()
    return sorted(pos_of[rid] for rid, aid in zip(table["id"], table["arxiv_id"]) if not aid and rid not in gold)


def within_top(world, rows, attributions, sample, shown, hits, y):
    """Per instance whose gold is among its query's admissible top hits: does a form-only model put gold first?

    Instances fall into 5 folds (seed 0); for each fold the character n-gram model (title and authors) and
    gradient boosting (form features) learn gold from the records cited by the *other* folds' instances (the
    held-out fold's gold left out) against the random distractors, then order the held-out queries' hits.
    Returns 0/1 lists per model (and for the search's own first hit) and each instance's chance, 1 / list length.
    """
    import numpy as np

    from lemmata.benchmarks.re2math.agent.lexical import clip
    from lemmata.benchmarks.re2math.render import render_instance

    results = world.search_batch([(clip(render_instance(r, "raw", 5), 2000),
                                   attributions[r["instance_id"]].year_cutoff, K) for r in rows])
    fold = np.random.default_rng(0).permutation(len(rows)) % FOLDS
    text_fields = [f for f in shown[0] if f not in ("id", "rank", "score")]
    firsts: dict[str, list[int]] = {"character n-grams": [], "gradient boosting": [], "the search's own order": []}
    chance: list[float] = []
    for k in range(FOLDS):
        held = [i for i in range(len(rows)) if fold[i] == k]
        held_gold = {attributions[rows[i]["instance_id"]].record_id for i in held}
        keep = [j for j in range(len(sample)) if not (y[j] and world._ids[sample[j]] in held_gold)]
        X, names = matrix([hits[j] for j in keep])
        gb = models()["gradient boosting"]().fit(X, y[keep])
        ch = char_model().fit(np.asarray([field_texts(shown[j], text_fields) for j in keep], dtype=object), y[keep])
        for i in held:
            row, res = rows[i], results[i]
            target = attributions[row["instance_id"]].record_id
            adm = [h.model_dump() for h in admissible_hits(res, row)]
            ids = [h["id"] for h in adm]
            if target not in ids:
                continue
            p_gb = gb.predict_proba(np.asarray([vector(record_features(h), names) for h in adm]))[:, 1]
            p_ch = ch.predict_proba(np.asarray([field_texts(h, text_fields) for h in adm], dtype=object))[:, 1]
            firsts["character n-grams"].append(int(ids[int(np.argmax(p_ch))] == target))
            firsts["gradient boosting"].append(int(ids[int(np.argmax(p_gb))] == target))
            firsts["the search's own order"].append(int(ids[0] == target))
            chance.append(1 / len(ids))
    return firsts, chance


def twin_count(world) -> dict[str, int]:
    """Same-id, padded-id and same-title-and-authors pairs among the world's records, by world 2.2's rule
    (:func:`duplicate_pairs`), on the shown title and authors and the stored arXiv id — any 2.x world."""
    import pyarrow.parquet as pq

    from lemmata.benchmarks.re2math.scholar.world.info import RECORDS_FILE
    from lemmata.benchmarks.re2math.scholar.world.v2_2 import duplicate_pairs

    return duplicate_pairs(pq.read_table(Path(world.root) / RECORDS_FILE,
                                         columns=["title", "authors", "arxiv_id"]).to_pylist())


def _open_or_build(args, release: Path, tmp: Path):
    from lemmata.benchmarks.re2math.scholar import worlds

    if args.world:
        return worlds.open_any_world(args.world)
    distractors = Path(args.distractors) if args.distractors else None
    if distractors is None:
        from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder

        distractors = MathArxivMetaBuilder().build(tmp / "releases", quiet=True)
    version = args.version or worlds.CURRENT
    return worlds.open_any_world(worlds.build_world_version(version, release, distractors, tmp / "artifacts"))


if __name__ == "__main__":
    sys.exit(main())
