"""Leave-one-benchmark-out selection for BlockNet: train on every pool but one, score the one left out, beside the
peers on the same pages (issue 40, item 2).

    .venv/bin/python scripts/eval/lobo_blocknet.py cache            # blocks, inputs, labels of every pool (~10 min)
    .venv/bin/python scripts/eval/lobo_blocknet.py peers            # trafilatura, readability, resiliparse (~5 min)
    .venv/bin/python scripts/eval/lobo_blocknet.py run --name all --train-pools all [--extra resiliparse,stop]
    .venv/bin/python scripts/eval/lobo_blocknet.py compare A.json B.json [--scores default]   # two runs' --out
    .venv/bin/python scripts/eval/lobo_blocknet.py ensemble --name e DIR1 DIR2 ...   # mean of runs' --logits
    .venv/bin/python scripts/eval/lobo_blocknet.py ensemble --method consensus DIR --blend-logits BLEND_DIR

Pools: the six benchmarks of the shipped model and the two of 2025-26 (wcxb, trafilatura-eval). Every fold trains on
the `fit` and `validation` parts of the other pools (with `--train-pools six`, of the six old pools only) and scores
the left-out pool's `fit` and `validation` parts; no `test` part is trained on or scored here (they are the second
check, by `pagesieve evaluate --split test`). Scores: mean BoW F1 per page, and for trafilatura-eval (snippet gold
only) the snippet F1 of trafilatura's protocol summed over all its passages; paired bootstrap intervals (95%) of
BlockNet against the best peer on the same pages. Every page is scored twice: the network's text, and the shipped
default's, which hands a page to its second opinion (resiliparse's cached text) where the network is unsure of it or
its text is hidden from the blocks (models/blocknet/method.py); `compare --scores default` compares the latter. Both
read the logits as the method does, pulled toward their class paths' means by `path_pull` (blocknet's and blend's
0.5, consensus's 0; `--path-pull` sets another share); consensus's blend candidate by its `blend_path_pull` (0.5,
blend's own; `--blend-path-pull`).
The cache is a working folder (`--cache`, default ../lobo-cache), never committed: the script rebuilds it.

Training-only sources (`--add-pools`, cached like a pool with `cache --pools NAME`), added to every fold's training
and never scored: `listings`, the 21 listing pages of ../shared/data/listings, their records' display strings as
the gold (the records are a listing page's content; everything else on it is not).

Candidate inputs (`--extra`), computed in the cache for every block and appended to the 167 of the shipped model:
- `base`: not an addition but a cut: the 157 inputs of the models trained before the selector features
  (`features.BASE_INPUT_NAMES`: blend's, blend-lite's), so that their set-ups run on a cache of today's inputs;
- `resiliparse`: whether the block's text is part of resiliparse's main-content output (1/0), and the share of
  the page's block text that output holds;
- `peers`: the blend method's six inputs (each peer's vote: its output holds the block's text, its output's share);
  `vote-trafilatura`, `vote-readability`, `vote-resiliparse`: one peer's two of them;
- `stop`: the eight stop-word columns of Web2Text's features recomputed with the stop words of the page's
  language (models/page/stopwords.py: jusText's lists, else the page's own frequent short words), replacing
  the English ones;
- `npy-NAME`: columns computed outside the cache, one row per cached block in the cache's order, read from
  `<cache>/<pool>.NAME.npy` (a candidate input tried before it is built into the features);
- `drop-NAME`: not an addition but an ablation: the input NAME (`features.INPUT_NAMES`, `c19.context.hidden`) set
  to 0 on every block, for the network and the trees alike (the markup's rules read the cache's context, not it).
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import multiprocessing
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from pagesieve.data import data_root
from pagesieve.eval.metrics import bag_of_words_prf, snippet_counts, snippet_scores
from pagesieve.eval.significance import paired_bootstrap, paired_bootstrap_counts
from pagesieve.eval.training_sources import ADDED_SOURCES, added_sources, source_pages
from pagesieve.models.blocknet.peers import PEERS as BLEND_PEERS
from pagesieve.models.page.words import fold_space

log = logging.getLogger("lobo")

POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")
OLD_POOLS = POOLS[:6]
PARTS = ("fit", "validation", "test")
PEERS = BLEND_PEERS          # the peers scored beside BlockNet are the ones blend reads
EXTRAS = ("base", "resiliparse", "stop", "peers", *(f"vote-{peer}" for peer in PEERS))


# ---- cache ---------------------------------------------------------------------------------------------------------

def _cache_pool(args: tuple[Path, str, Path]) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    from pagesieve.models.blocknet import page_inputs
    from pagesieve.models.blocknet.peers import held_by
    from pagesieve.models.page import PageError, hidden_chars, page_markup, parse_page
    from pagesieve.models.page.stopwords import page_stopwords, stopwords_for, text_language
    from pagesieve.models.web2text import FEATURE_NAMES, block_features, label_blocks, label_blocks_from_snippets

    data, pool, cache = args
    stop_cols = [i for i, n in enumerate(FEATURE_NAMES) if "stopword" in n]
    inputs, extra, labels, weights, offsets, rows = [], [], [], [], [0], []
    start = time.perf_counter()
    for part in PARTS:
        for gold in source_pages(data, pool, part):
            if gold.gold is not None and not gold.gold.strip():
                continue                                    # an empty gold (WCXB's JavaScript shells): no label
            try:
                page = parse_page(gold.html, url=gold.url, page_id=gold.page_id)
                blocks, x = page_inputs(page)
            except PageError:
                continue
            if not len(blocks):
                continue
            texts = list(blocks.text)
            if gold.gold is not None:
                y = np.asarray(label_blocks(texts, gold.gold), np.float32)
                w = np.ones(len(texts), np.float32)
            else:
                y, w = (np.asarray(v, np.float32) for v in
                        label_blocks_from_snippets(texts, gold.snippets.with_, gold.snippets.without))
            res = fold_space(extract_plain_text(HTMLTree.parse(page_markup(page)), main_content=True,
                                           preserve_formatting=True))
            in_res = held_by([fold_space(t) for t in texts], res).astype(np.float32)
            share = len(res) / max(sum(map(len, texts)), 1)
            lang = text_language(texts)
            stop = stopwords_for(lang) or page_stopwords(texts)
            stop_x = block_features(blocks, stop)[:, stop_cols]
            extra.append(np.hstack([in_res[:, None], np.full((len(texts), 1), min(share, 5.0), np.float32),
                                    stop_x.astype(np.float32)]))
            inputs.append(x)
            labels.append(y)
            weights.append(w)
            offsets.append(offsets[-1] + len(texts))
            node = blocks.node
            rows.append({"id": gold.page_id, "part": part, "page_type": gold.meta.get("page_type"),
                         "language": gold.meta.get("language") or lang, "detected": lang, "texts": texts,
                         "brk": [bool(blocks.cdom.break_before[k]) for k in node],
                         "glued": [bool(blocks.cdom.glued[k]) for k in node],
                         "hidden": hidden_chars(page.root), "paths": blocks.class_paths(), "gold": gold.gold,
                         "snippets": None if gold.snippets is None else
                         {"with": list(gold.snippets.with_), "without": list(gold.snippets.without)}})
    np.savez(cache / f"{pool}.npz", inputs=np.concatenate(inputs), extra=np.concatenate(extra),
             labels=np.concatenate(labels), weights=np.concatenate(weights), offsets=np.asarray(offsets))
    with gzip.open(cache / f"{pool}.pages.jsonl.gz", "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return f"{pool}: {len(rows)} pages, {offsets[-1]} blocks, {time.perf_counter() - start:.0f}s"


def _peers_pool(args: tuple[Path, str, Path]) -> str:
    from pagesieve.models.blocknet.peers import PeerVotes
    from pagesieve.models.page import PageError, parse_page

    data, pool, cache = args
    votes = PeerVotes()                    # the blend method's peers, their failures logged once per kind
    start = time.perf_counter()
    with gzip.open(cache / f"{pool}.peers.jsonl.gz", "wt", encoding="utf-8") as fh:
        for part in PARTS:
            for gold in source_pages(data, pool, part):
                try:
                    outputs = votes.outputs(parse_page(gold.html, url=gold.url, page_id=gold.page_id))
                except PageError:
                    outputs = [""] * len(PEERS)
                fh.write(json.dumps({"id": gold.page_id, **dict(zip(PEERS, outputs, strict=True))},
                                    ensure_ascii=False) + "\n")
    return f"{pool}: peers in {time.perf_counter() - start:.0f}s"


def _map(fn, pools: list[str], data: Path, cache: Path, jobs: int) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    work = [(data, pool, cache) for pool in pools]
    if jobs <= 1:
        for w in work:
            print(fn(w), flush=True)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for line in pool.imap_unordered(fn, work):
            print(line, flush=True)


# ---- folds ---------------------------------------------------------------------------------------------------------

class PoolPages:
    """One pool's cached pages as scoring reads them (texts, gold, part, page type, language), without the
    block inputs (WCXB's alone are about 380 MB)."""

    def __init__(self, cache: Path, name: str) -> None:
        self.name = name
        with gzip.open(cache / f"{name}.pages.jsonl.gz", "rt", encoding="utf-8") as fh:
            self.rows = [json.loads(line) for line in fh]

    def indices(self, parts: tuple[str, ...]) -> list[int]:
        return [i for i, r in enumerate(self.rows) if r["part"] in parts]


class CachedPool(PoolPages):
    """One pool's cached pages with their inputs (with the chosen extras) and labels, for training and predicting."""

    def __init__(self, cache: Path, name: str, extras: tuple[str, ...]) -> None:
        super().__init__(cache, name)
        with np.load(cache / f"{name}.npz") as z:
            inputs, extra = z["inputs"], z["extra"]
            self.labels, self.weights, offsets = z["labels"], z["weights"], z["offsets"]
        if "base" in extras:
            from pagesieve.models.blocknet.features import BASE_INPUT_NAMES
            inputs = inputs[:, : len(BASE_INPUT_NAMES)]
        cols = [inputs]
        if "stop" in extras:
            from pagesieve.models.web2text import FEATURE_NAMES
            stop_cols = [i for i, n in enumerate(FEATURE_NAMES) if "stopword" in n]
            inputs = inputs.copy()
            inputs[:, stop_cols] = extra[:, 2:]
            cols = [inputs]
        if "resiliparse" in extras:
            cols.append(extra[:, :2])
        votes = [k for k, peer in enumerate(PEERS) if f"vote-{peer}" in extras]   # one peer's two columns each
        if "peers" in extras or votes:
            every = _peer_columns(cache, name, self.rows)
            cols += [every] if "peers" in extras else []
            cols += [every[:, 2 * k : 2 * k + 2] for k in votes]
        dropped = [e[5:] for e in extras if e.startswith("drop-")]
        if dropped:
            from pagesieve.models.blocknet.features import INPUT_NAMES
            cols[0] = cols[0].copy()
            cols[0][:, [INPUT_NAMES.index(n) for n in dropped]] = 0
        for e in extras:
            if e.startswith("npy-"):
                cols.append(np.load(cache / f"{name}.{e[4:]}.npy").astype(np.float32))
        self.inputs = np.hstack(cols) if len(cols) > 1 else cols[0]
        self.offsets = offsets

    def page(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cut = slice(self.offsets[i], self.offsets[i + 1])
        return self.inputs[cut], self.labels[cut], self.weights[cut]


def _peer_columns(cache: Path, name: str, rows: list[dict]) -> np.ndarray:
    """The blend model's peer votes (models/blocknet/peers.peer_columns) of every block, from the cached peers'
    outputs; cached on disk."""
    from pagesieve.models.blocknet.peers import peer_columns

    path = cache / f"{name}.peerin.npy"
    if path.exists():
        return np.load(path)
    peers = _peer_texts(cache, name)
    columns = np.concatenate([peer_columns(row["texts"], [peers[row["id"]][p] for p in PEERS]) for row in rows])
    tmp = path.with_suffix(f".{multiprocessing.current_process().pid}.npy")
    np.save(tmp, columns)
    tmp.replace(path)                      # two fold workers may build it at once: the last rename wins, same bytes
    return columns


def _peer_texts(cache: Path, name: str) -> dict[str, dict]:
    with gzip.open(cache / f"{name}.peers.jsonl.gz", "rt", encoding="utf-8") as fh:
        return {r["id"]: r for r in map(json.loads, fh)}


def _text(row: dict, content: np.ndarray) -> str:
    from pagesieve.models.web2text.method import blocks_text

    n = len(row["texts"])
    blocks = SimpleNamespace(text=row["texts"], node=list(range(n)),
                             cdom=SimpleNamespace(break_before=row["brk"], glued=row["glued"]))
    return blocks_text(blocks, content)


def _score(row: dict, text: str) -> tuple[float, tuple[int, int, int, int] | None]:
    if row["gold"] is not None:
        return bag_of_words_prf(text, row["gold"]).f1, None
    s = row["snippets"]
    counts = snippet_counts(text, s["with"], s["without"])
    return float("nan"), counts


def _context(cache: Path, name: str) -> np.ndarray:
    """Each cached block's context bits (`models.page.context`, as `markup.block_context` gives them), from its
    context and selector columns among the inputs, for the shipped markup rules; cached on disk."""
    from pagesieve.models.blocknet.features import INPUT_NAMES
    from pagesieve.models.page.context import CONTEXT_BITS

    path = cache / f"{name}.context.npy"
    if not path.exists():
        # each bit's column: `c<i>.context.<bit>` or `s<i>.<bit>` (features.py)
        at = {column.split(".", 1)[1].removeprefix("context."): i for i, column in enumerate(INPUT_NAMES)}
        with np.load(cache / f"{name}.npz") as z:
            bits = z["inputs"][:, [at[bit] for bit in CONTEXT_BITS]] > 0.5
        context = bits.astype(np.int64) @ (1 << np.arange(len(CONTEXT_BITS), dtype=np.int64))
        tmp = path.with_suffix(f".{multiprocessing.current_process().pid}.npy")
        np.save(tmp, context)
        tmp.replace(path)                  # two fold workers may build it at once: the last rename wins, same bytes
    return np.load(path)


def _block_starts(cache: Path, name: str) -> np.ndarray:
    """Where each cached page's blocks start among the pool's cached blocks."""
    with np.load(cache / f"{name}.npz") as z:
        return z["offsets"]


def _network_text(row: dict, logits: np.ndarray, settings, context: np.ndarray) -> str:
    """A network's text of a page: its content blocks less those the markup's rules rule out (`BlockNet.content`)."""
    from pagesieve.models.blocknet.markup import rule_out, ruled_out
    from pagesieve.models.blocknet.method import content_blocks

    ruled = ruled_out(row["texts"], context, hidden=settings.drop_hidden_copies, site=settings.drop_landmarks)
    return _text(row, rule_out(content_blocks(SimpleNamespace(text=row["texts"]), logits, settings), ruled))


def _pulled(row: dict, logits: np.ndarray, share: float) -> np.ndarray:
    """The logits as the method reads them: pulled toward their class paths' means by `share` (a `path_pull`)."""
    from pagesieve.models.blocknet.method import pull_to_paths

    if not share:
        return logits
    if "paths" not in row:
        raise SystemExit("this cache has no class paths (built before 2026-12-01): rebuild it with `cache`, "
                         "or score with --path-pull 0 (and --blend-path-pull 0)")
    return pull_to_paths(logits, row["paths"], list(map(len, row["texts"])), share)


def _scored(row: dict, logits: np.ndarray, settings, peer_text: str, context: np.ndarray,
            candidates: list[str] | None = None) -> tuple[dict, dict]:
    """One left-out page scored twice: the network's text, and the shipped default's (the network's, or the second
    opinion's where blocknet `hands_over` the page, on the cached hidden-text count; the cached resiliparse output
    is the peer blocknet calls). The content blocks less those the markup's rules the settings turn on rule out
    (`context`: the page's blocks' context bits); the hand-over on the model's own logits, as the method decides.
    With `candidates` (blend's text if scored, then the peers' cached texts: the consensus method's order) the second
    score is consensus's: the `medoid` of the network's text and theirs."""
    from pagesieve.models.blocknet.consensus import medoid
    from pagesieve.models.blocknet.method import hands_over

    logits = _pulled(row, logits, settings.path_pull)
    text = _network_text(row, logits, settings, context)
    f1, counts = _score(row, text)
    network = {"id": row["id"], "f1": f1, "counts": counts, "empty": not text.strip()}
    if candidates is not None:
        chosen = medoid([text, *candidates])
        peer_text = candidates[chosen - 1] if chosen else ""
    else:
        # a cache of before 2026-11-29 has no hidden-text count: read as 0
        unsure = hands_over(row["texts"], logits, settings.unsure, lambda: row.get("hidden", 0))
        peer_text = peer_text if unsure else ""
    if not peer_text.strip():
        return network, network | {"peer": False}
    f1, counts = _score(row, peer_text)
    return network, {"id": row["id"], "f1": f1, "counts": counts, "empty": False, "peer": True}


def _fold_job(args: tuple) -> dict:
    import torch

    from pagesieve.models.blocknet import BlockNetSettings
    from pagesieve.models.blocknet.training import Recipe, TrainingPage, block_sizes, train

    cache, left_out, train_pools, extras, seed, recipe_kw, logits_dir, path_pull = args
    torch.set_num_threads(1)
    recipe = Recipe(**recipe_kw)
    pages = []
    for name in train_pools:
        if name == left_out:
            continue
        pool = CachedPool(cache, name, extras)
        for i in pool.indices(("fit", "validation")):
            x, y, w = pool.page(i)
            if w.sum() > 0:
                pages.append(TrainingPage(name, pool.rows[i]["id"], x, y, w, block_sizes(pool.rows[i]["texts"])))
    model, _ = train(pages, recipe, seed, inputs=None)      # the extras are this script's own columns
    pool = CachedPool(cache, left_out, extras)
    settings = BlockNetSettings(path_pull=path_pull)
    peer_texts, context = _peer_texts(cache, left_out), _context(cache, left_out)
    out, default, kept = [], [], []
    for i in pool.indices(("fit", "validation")):
        row = pool.rows[i]
        x, _, _ = pool.page(i)
        logits = model.logits([x])[0]
        kept.append(logits)
        network, shipped = _scored(row, logits, settings, peer_texts[row["id"]][settings.unsure_peer],
                                   context[pool.offsets[i] : pool.offsets[i + 1]])
        out.append(network)
        default.append(shipped)
    if logits_dir is not None:      # for analysis of the fold's mistakes: the logits of every scored block
        np.savez(Path(logits_dir) / f"{left_out}.npz", ids=np.array([p["id"] for p in out]),
                 offsets=np.cumsum([0] + [len(a) for a in kept]), logits=np.concatenate(kept))
    return {"pool": left_out, "pages": out, "default": default, "train_pages": len(pages)}


def _peer_scores(cache: Path, pool: PoolPages) -> dict[str, dict[str, dict]]:
    texts = _peer_texts(cache, pool.name)
    out: dict[str, dict[str, dict]] = {p: {} for p in PEERS}
    for i in pool.indices(("fit", "validation")):
        row = pool.rows[i]
        for peer in PEERS:
            text = texts[row["id"]][peer]
            f1, counts = _score(row, text)
            out[peer][row["id"]] = {"id": row["id"], "f1": f1, "counts": counts, "empty": not text.strip()}
    return out


def _pool_value(pages: list[dict]) -> float:
    if pages and pages[0]["counts"] is not None:
        return snippet_scores(*np.sum([p["counts"] for p in pages], axis=0).tolist())["f1"]
    return float(np.mean([p["f1"] for p in pages]))


def _compare(ours: list[dict], peer: list[dict]) -> tuple[float, float, float]:
    if ours[0]["counts"] is not None:
        d = paired_bootstrap_counts(np.array([p["counts"] for p in ours]), np.array([p["counts"] for p in peer]))
    else:
        d = paired_bootstrap([p["f1"] for p in ours], [p["f1"] for p in peer])
    return d.difference, d.low, d.high


def _path_pull(args: argparse.Namespace) -> float:
    """`--path-pull`, else the scored method's own: blocknet's, or consensus's for `ensemble --method consensus`."""
    from pagesieve.models.blocknet import BlockNetSettings
    from pagesieve.models.blocknet.settings import ConsensusSettings

    if getattr(args, "path_pull", None) is not None:
        return args.path_pull
    return (ConsensusSettings() if getattr(args, "method", "blocknet") == "consensus" else BlockNetSettings()).path_pull


def _blend_path_pull(args: argparse.Namespace) -> float:
    """`--blend-path-pull`, else consensus's own `blend_path_pull` (blend's candidate pulled as blend pulls it)."""
    from pagesieve.models.blocknet.settings import ConsensusSettings

    if getattr(args, "blend_path_pull", None) is not None:
        return args.blend_path_pull
    return ConsensusSettings().blend_path_pull


def run(args: argparse.Namespace) -> dict:
    try:
        train_pools = (OLD_POOLS if args.train_pools == "six" else POOLS) + added_sources(args.add_pools)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    extras = tuple(e for e in args.extra.split(",") if e)
    unknown = {e for e in extras if not e.startswith(("npy-", "drop-"))} - set(EXTRAS)
    if unknown:
        raise SystemExit(f"--extra takes {', '.join(EXTRAS)}, not {', '.join(sorted(unknown))}")
    from pagesieve.models.blocknet.features import INPUT_NAMES
    unknown = {e[5:] for e in extras if e.startswith("drop-")} - set(INPUT_NAMES)
    if unknown:
        raise SystemExit(f"--extra drop-NAME takes an input of features.INPUT_NAMES, not {', '.join(sorted(unknown))}")
    pools = args.pools.split(",") if args.pools else list(POOLS)
    recipe = json.loads(args.recipe) if args.recipe else {}
    if args.logits:
        args.logits.mkdir(parents=True, exist_ok=True)
    pull = _path_pull(args)
    work = [(args.cache, p, train_pools, extras, args.seed, recipe, args.logits, pull) for p in pools]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as mp:
        folds = list(mp.imap(_fold_job, work))
    return _report(args.cache, folds, {"name": args.name, "train_pools": args.train_pools,
                                       "added_pools": args.add_pools, "extras": extras,
                                       "seed": args.seed, "recipe": recipe, "path_pull": pull})


def ensemble(args: argparse.Namespace) -> dict:
    """Score the mean of several runs' block logits (`run --logits DIR` of each, e.g. one per seed): an ensemble
    of their models, without training again. `--method consensus`: the default's score is the consensus method's
    (`--blend-logits`: blend's run, for its candidate; without it, four candidates)."""
    from pagesieve.models.blocknet import BlockNetSettings

    dirs = [Path(d) for d in args.reports]
    pools = args.pools.split(",") if args.pools else list(POOLS)
    consensus = getattr(args, "method", "blocknet") == "consensus"
    blend_dir = Path(args.blend_logits) if consensus and getattr(args, "blend_logits", None) else None
    settings, folds = BlockNetSettings(path_pull=_path_pull(args)), []
    blend_pull = _blend_path_pull(args)                                  # consensus's blend candidate
    for name in pools:
        runs = [np.load(d / f"{name}.npz") for d in dirs]
        ids = runs[0]["ids"]
        if any(not np.array_equal(r["ids"], ids) or not np.array_equal(r["offsets"], runs[0]["offsets"])
               or r["logits"].shape != runs[0]["logits"].shape for r in runs):
            raise SystemExit(f"{name}: the runs scored other pages or blocks; ensemble runs of one cache")
        logits = np.mean([r["logits"] for r in runs], axis=0)
        offsets = runs[0]["offsets"]
        blend = []
        if blend_dir:
            blended = np.load(blend_dir / f"{name}.npz")
            if not np.array_equal(blended["ids"], ids) or not np.array_equal(blended["offsets"], offsets):
                raise SystemExit(f"{name}: --blend-logits scored other pages or blocks; use runs of one cache")
            blend = [blended["logits"][offsets[k] : offsets[k + 1]] for k in range(len(ids))]
        pool, peer_texts = PoolPages(args.cache, name), _peer_texts(args.cache, name)
        context, starts = _context(args.cache, name), _block_starts(args.cache, name)
        rows = {pool.rows[i]["id"]: i for i in pool.indices(("fit", "validation"))}
        out, default = [], []
        for k, page_id in enumerate(ids):
            i = rows[str(page_id)]
            row, page_context = pool.rows[i], context[starts[i] : starts[i + 1]]
            candidates = None
            if consensus:
                blended = [_network_text(row, _pulled(row, blend[k], blend_pull), settings, page_context)
                           ] if blend else []
                candidates = blended + [peer_texts[row["id"]][p] for p in BLEND_PEERS]
            network, shipped = _scored(row, logits[offsets[k] : offsets[k + 1]], settings,
                                       peer_texts[row["id"]][settings.unsure_peer], page_context, candidates)
            out.append(network)
            default.append(shipped)
        folds.append({"pool": name, "pages": out, "default": default})
    head = {"name": args.name, "ensemble_of": [str(d) for d in dirs], "path_pull": settings.path_pull}
    if consensus:
        head |= {"method": "consensus", "blend_logits": str(args.blend_logits) if blend_dir else None,
                 "blend_path_pull": blend_pull}
    return _report(args.cache, folds, head)


def _report(cache: Path, folds: list[dict], head: dict) -> dict:
    report = head | {"pools": {}}
    for fold in folds:
        pool = PoolPages(cache, fold["pool"])
        peers = _peer_scores(cache, pool)
        ours = fold["pages"]
        row = {"pages": len(ours), "blocknet": round(_pool_value(ours), 4),
               "empty": sum(p["empty"] for p in ours)}
        for peer in PEERS:
            row[peer] = round(_pool_value([peers[peer][p["id"]] for p in ours]), 4)
        best = max(PEERS, key=lambda p: row[p])
        diff, low, high = _compare(ours, [peers[best][p["id"]] for p in ours])
        row |= {"best_peer": best, "gap": round(diff, 4), "low": round(low, 4), "high": round(high, 4)}
        shipped = fold.get("default")
        if shipped:
            diff, low, high = _compare(shipped, [peers[best][p["id"]] for p in shipped])
            row |= {"default": round(_pool_value(shipped), 4), "to_peer": sum(p["peer"] for p in shipped),
                    "default_gap": round(diff, 4), "default_low": round(low, 4), "default_high": round(high, 4)}
        by = {}
        scored = pool.indices(("fit", "validation"))
        for key in ("page_type", "language"):
            groups: dict[str, list[int]] = {}
            for j, _ in enumerate(ours):
                value = pool.rows[scored[j]][key]
                if value:
                    groups.setdefault(value, []).append(j)
            if len(groups) > 1:
                by[key] = {g: {"pages": len(ix), "blocknet": round(_pool_value([ours[j] for j in ix]), 4),
                               **({"default": round(_pool_value([shipped[j] for j in ix]), 4)} if shipped else {}),
                               **{peer: round(_pool_value([peers[peer][ours[j]["id"]] for j in ix]), 4)
                                  for peer in PEERS}}
                           for g, ix in sorted(groups.items(), key=lambda kv: -len(kv[1]))}
        row["by"] = by
        report["pools"][fold["pool"]] = row
        report.setdefault("per_page", {})[fold["pool"]] = ours
        if shipped:
            report.setdefault("per_page_default", {})[fold["pool"]] = shipped
    gaps = [r["gap"] for r in report["pools"].values()]
    report["macro_blocknet"] = round(float(np.mean([r["blocknet"] for r in report["pools"].values()])), 4)
    report["macro_best_peer"] = round(float(np.mean([max(r[p] for p in PEERS) for r in report["pools"].values()])), 4)
    report["worst_gap"] = round(min(gaps), 4)
    if all("default" in r for r in report["pools"].values()):
        report["macro_default"] = round(float(np.mean([r["default"] for r in report["pools"].values()])), 4)
        report["worst_default_gap"] = round(min(r["default_gap"] for r in report["pools"].values()), 4)
    return report


def _per_page(path: str, scores: str) -> tuple[str, dict[str, list[dict]]]:
    report = json.loads(Path(path).read_text())
    key = "per_page" if scores == "network" else "per_page_default"
    if key not in report:
        raise SystemExit(f"{path}: no {scores} scores (a report written before they were kept); rerun it")
    return f"{report['name']} ({scores})", report[key]


def compare(a_path: str, b_path: str, rounds: int = 2_000, seed: int = 0, scores: str = "network") -> dict:
    """Two runs on the left-out pages both scored (a cache rebuilt after a parser change can hold a page the other
    lacks): each pool's difference with its paired interval, and the macro's difference with a stratified paired
    interval (each resample draws every pool's pages anew, the macro of the resampled pools' values taken for
    both runs). `scores`: the network's text, or the shipped default's (with its second opinion)."""
    a_name, a = _per_page(a_path, scores)
    b_name, b = _per_page(b_path, scores)
    pools = [p for p in a if p in b]
    rng = np.random.default_rng(seed)
    rows, draws = {}, np.zeros(rounds)
    for pool in pools:
        by_id = {p["id"]: p for p in b[pool]}
        ours = [p for p in a[pool] if p["id"] in by_id]
        theirs = [by_id[p["id"]] for p in ours]
        diff, low, high = _compare(ours, theirs)
        rows[pool] = {"pages": len(ours), "a": round(_pool_value(ours), 4), "b": round(_pool_value(theirs), 4),
                      "difference": round(diff, 4), "low": round(low, 4), "high": round(high, 4)}
        for r in range(rounds):
            pick = rng.integers(0, len(ours), len(ours))
            draws[r] += (_pool_value([ours[i] for i in pick]) - _pool_value([theirs[i] for i in pick])) / len(pools)
    low, high = np.quantile(draws, [0.025, 0.975])
    macro = float(np.mean([r["a"] - r["b"] for r in rows.values()]))
    return {"a": a_name, "b": b_name, "pools": rows,
            "macro": {"difference": round(macro, 4), "low": round(float(low), 4), "high": round(float(high), 4)}}


def print_comparison(c: dict) -> None:
    print(f"\n{c['a']} against {c['b']} (paired, 95%)")
    for pool, r in c["pools"].items():
        print(f"{pool:<20}{r['pages']:>6}{r['a']:>8.3f}{r['b']:>8.3f}{r['difference']:>+9.4f} "
              f"[{r['low']:+.4f}, {r['high']:+.4f}]")
    m = c["macro"]
    print(f"{'macro':<26}{m['difference']:>+25.4f} [{m['low']:+.4f}, {m['high']:+.4f}]")


def print_report(report: dict) -> None:
    what = (f"train {report['train_pools']}, extras {list(report['extras'])}, seed {report['seed']}"
            if "seed" in report else f"ensemble of {report['ensemble_of']}")
    print(f"\n{report['name']}: {what}")
    print(f"{'left out':<20}{'pages':>6}{'blocknet':>9}" + "".join(f"{p:>12}" for p in PEERS)
          + f"{'gap to best (95%)':>28}{'empty':>6}")
    for pool, r in report["pools"].items():
        print(f"{pool:<20}{r['pages']:>6}{r['blocknet']:>9.3f}" + "".join(f"{r[p]:>12.3f}" for p in PEERS)
              + f"{r['gap']:>+10.3f} [{r['low']:+.3f}, {r['high']:+.3f}] {r['best_peer'][:5]:>5}{r['empty']:>6}")
    print(f"macro: blocknet {report['macro_blocknet']:.4f}, best peer per pool {report['macro_best_peer']:.4f}, "
          f"worst gap {report['worst_gap']:+.4f}")
    if "macro_default" in report:
        print("as consensus chooses (the medoid of the network's text and the others'; \"to the peer\": not the "
              "network's):" if report.get("method") == "consensus" else
              "with the default's second opinion (resiliparse's text on the pages blocknet hands over):")
        for pool, r in report["pools"].items():
            print(f"{pool:<20}{r['pages']:>6}{r['default']:>9.3f}{r['default_gap']:>+10.3f} "
                  f"[{r['default_low']:+.3f}, {r['default_high']:+.3f}] {r['best_peer'][:5]:>5}"
                  f"{r['to_peer']:>6} to the peer")
        print(f"macro: default {report['macro_default']:.4f}, worst gap {report['worst_default_gap']:+.4f}")
    for pool, r in report["pools"].items():
        for key, groups in r["by"].items():
            print(f"  {pool} by {key} (blocknet{', default' * ('default' in r)} vs {'/'.join(PEERS)}): " + "; ".join(
                f"{g} ({v['pages']}) {v['blocknet']:.3f}" + (f", {v['default']:.3f}" if "default" in v else "")
                + " vs " + "/".join(f"{v[p]:.3f}" for p in PEERS) for g, v in groups.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("cache", "peers", "run", "compare", "ensemble"))
    ap.add_argument("reports", nargs="*", help="compare: two run reports (--out); ensemble: runs' --logits folders")
    ap.add_argument("--data", type=Path, default=data_root())
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parents[3] / "lobo-cache")
    ap.add_argument("--pools", default=None, help="comma-separated pools (default: all eight)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--name", default="run")
    ap.add_argument("--train-pools", choices=("six", "all"), default="all")
    ap.add_argument("--add-pools", default="", help=f"training-only sources for every fold: {', '.join(ADDED_SOURCES)}")
    ap.add_argument("--extra", default="", help=f"comma-separated extra inputs: {', '.join(EXTRAS)}")
    ap.add_argument("--recipe", default=None, help='JSON of Recipe fields to change, e.g. \'{"epochs": 6}\'')
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="write the report as JSON here")
    ap.add_argument("--scores", choices=("network", "default"), default="network",
                    help="compare: the network's text, or the shipped default's (with its second opinion)")
    ap.add_argument("--method", choices=("blocknet", "consensus"), default="blocknet",
                    help="ensemble: score the default as blocknet's (second opinion) or as consensus's (medoid)")
    ap.add_argument("--blend-logits", type=Path, default=None,
                    help="ensemble --method consensus: blend's run (its --logits folder), for its candidate")
    ap.add_argument("--logits", type=Path, default=None,
                    help="write each left-out pool's block logits here (<pool>.npz: ids, offsets, logits)")
    ap.add_argument("--path-pull", type=float, default=None,
                    help="run, ensemble: the path_pull the scores read the logits with (default: the scored "
                         "method's own: blocknet's and blend's 0.5, consensus's 0)")
    ap.add_argument("--blend-path-pull", type=float, default=None,
                    help="ensemble --method consensus: the pull of blend's candidate (default: consensus's "
                         "blend_path_pull, 0.5)")
    args = ap.parse_intermixed_args(argv)       # the reports may follow the options
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s", stream=sys.stderr)
    pools = args.pools.split(",") if args.pools else list(POOLS)
    if args.command == "cache":
        _map(_cache_pool, pools, args.data, args.cache, args.jobs)
    elif args.command == "peers":
        _map(_peers_pool, pools, args.data, args.cache, args.jobs)
    elif args.command == "compare":
        if len(args.reports) != 2:
            raise SystemExit("compare takes two reports: A.json B.json")
        print_comparison(compare(*args.reports, scores=args.scores))
    else:
        report = run(args) if args.command == "run" else ensemble(args)
        print_report(report)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
