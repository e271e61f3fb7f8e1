"""Experiment for the main-text quality issue: sequence models over Web2Text's blocks with modern features.

Not a shipped method: it records how the figures of docs/experiments.md#2026-11-23-how-blocknet-was-found were
made. Features: Web2Text's 128 block features plus 33 "modern" ones per block, from the chain of elements above
the block's text (HTML5 sectioning tags and ARIA roles: article, main, nav, header, footer, aside; li, headings,
figure, time, form, table, p, pre; class/id words for content, boilerplate, comments, sharing, related links,
footers and sidebars; itemprop articleBody; hidden; in a link; depth; position by characters and by blocks; how
often the block's text repeats in the page). Models: `mlp` (per block), `cnn` (5 residual dilated convolutions,
receptive field 63 blocks), `gru` / `lstm` (bidirectional). Trained on every pool's `fit` part (CleanEval's
pages weighted by `--poolw`), scored by mean BoW F1 on every pool's `validation` part after each epoch, with an
exponential moving average of the weights; the `test` parts are never read.

    .venv/bin/python scripts/exp_block_sequence.py --build-cache --kind cnn --modern --epochs 9 --lr 1e-3 \
        --dropout 0.3 --poolw cleaneval=0.3
    .venv/bin/python scripts/exp_block_sequence.py --baseline        # the shipped web2text on the same pages
"""

from __future__ import annotations

import argparse
import pickle
import re
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from torch import nn

from pagesieve.eval.datasets import iter_gold_pages
from pagesieve.eval.metrics import bag_of_words_prf
from pagesieve.models.page import PageError, join_paragraphs, parse_page
from pagesieve.models.web2text import Web2Text, Web2TextSettings, label_blocks, page_blocks, page_features

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017")
POS = re.compile(r"article|content|post|entry|story|body|text|main|blog|news", re.I)
NEG = re.compile(r"nav|menu|foot|sidebar|side-bar|comment|share|social|related|promo|widget|breadcrumb|cookie"
                 r"|newsletter|subscribe|popular|banner|advert|\bad\b|ads|sponsor|header|masthead|tags|meta|byline"
                 r"|author|caption|recommend|trending|most-", re.I)
FLAG_TAGS = {"article": 0, "main": 1, "nav": 2, "header": 3, "footer": 4, "aside": 5, "li": 6,
             "h1": 7, "h2": 7, "h3": 7, "h4": 7, "h5": 7, "h6": 7, "figure": 8, "figcaption": 8, "time": 9,
             "form": 10, "button": 11, "label": 11, "table": 12, "p": 13, "blockquote": 14, "pre": 14, "code": 14}
N_TAG_FLAGS = 15
KEYS = [re.compile(k, re.I) for k in (r"comment|repl(y|ies)|respond|disqus|discuss|forum|thread",
                                        r"share|social|facebook|twitter|follow",
                                        r"related|recommend|more-|also|popular|trending|latest",
                                        r"footer|copyright|legal",
                                        r"sidebar|side-bar|aside|widget|rail")]


def element_flags(el, memo):
    key = id(el)
    if key in memo:
        return memo[key]
    parent = el.getparent()
    if parent is None or not isinstance(el.tag, str) or el.tag == "body":
        out = (np.zeros(N_TAG_FLAGS + 5 + len(KEYS), dtype=np.float32), 0)
        memo[key] = out
        return out
    base, depth = element_flags(parent, memo)
    f = base.copy()
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in FLAG_TAGS:
        f[FLAG_TAGS[tag]] = 1
    role = (el.get("role") or "").lower()
    if role == "main":
        f[1] = 1
    if role in ("navigation", "menu", "menubar"):
        f[2] = 1
    if role in ("contentinfo", "complementary", "banner"):
        f[4] = 1
    names = (el.get("class") or "") + " " + (el.get("id") or "")
    if names.strip():
        if POS.search(names):
            f[N_TAG_FLAGS] += 1
        if NEG.search(names):
            f[N_TAG_FLAGS + 1] += 1
        for k, rx in enumerate(KEYS):
            if rx.search(names):
                f[N_TAG_FLAGS + 5 + k] = 1
    ip = (el.get("itemprop") or "").lower()
    if ip in ("articlebody", "text", "description"):
        f[N_TAG_FLAGS + 2] = 1
    if el.get("hidden") is not None or "display:none" in (el.get("style") or "").replace(" ", ""):
        f[N_TAG_FLAGS + 3] = 1
    memo[key] = (f, depth + 1)
    return memo[key]


def modern_features(blocks):
    memo = {}
    n = len(blocks)
    out = np.zeros((n, N_TAG_FLAGS + 5 + len(KEYS) + 4), dtype=np.float32)
    counts = {}
    for t in blocks.text:
        counts[t] = counts.get(t, 0) + 1
    total_chars = sum(len(t) for t in blocks.text) or 1
    cum = 0
    for i in range(n):
        el = blocks.cdom.holder[blocks.node[i]]
        f, depth = element_flags(el, memo)
        out[i, : len(f)] = f
        out[i, N_TAG_FLAGS] = min(f[N_TAG_FLAGS], 3)
        out[i, N_TAG_FLAGS + 1] = min(f[N_TAG_FLAGS + 1], 3)
        out[i, N_TAG_FLAGS + 4] = blocks.cdom.in_link[blocks.node[i]]
        out[i, -4] = np.log1p(depth)
        out[i, -3] = cum / total_chars                      # text-weighted position
        out[i, -2] = np.log1p(counts[blocks.text[i]] - 1)  # repetition
        out[i, -1] = i / max(n - 1, 1)
        cum += len(blocks.text[i])
    return out


def build_cache(parts: list[str], path: Path) -> None:
    rows = []
    t0 = time.time()
    for pool in POOLS:
        for part in parts:
            for g in iter_gold_pages(DATA / pool, part):
                try:
                    blocks = page_blocks(parse_page(g.html, url=g.url, page_id=g.page_id))
                except PageError:
                    continue
                if len(blocks) == 0:
                    rows.append(dict(pool=pool, part=part, id=g.page_id, gold=g.gold, n=0))
                    continue
                x, e = page_features(blocks)
                m = modern_features(blocks)
                y = np.asarray(label_blocks(blocks.text, g.gold), dtype=np.int64)
                br = np.array([blocks.cdom.break_before[k] for k in blocks.node], dtype=bool)
                gl = np.array([blocks.cdom.glued[k] for k in blocks.node], dtype=bool)
                rows.append(dict(pool=pool, part=part, id=g.page_id, gold=g.gold, n=len(blocks), x=x.astype(np.float32),
                                 e=e.astype(np.float32), m=m, y=y, text=list(blocks.text), br=br, gl=gl))
            print(pool, part, len(rows), round(time.time() - t0, 1), flush=True)
    with open(path, "wb") as fh:
        pickle.dump(rows, fh, protocol=5)





def text_of(r, content):
    pieces, prev = [], None
    for i in np.flatnonzero(content):
        if prev is not None:
            if r["br"][prev + 1 : i + 1].any():
                pieces.append("\n")
            elif i > prev + 1 or not r["gl"][i]:
                pieces.append(" ")
        pieces.append(r["text"][i])
        prev = i
    return join_paragraphs("".join(pieces))


def score(rows, preds):
    by = defaultdict(list)
    for r, p in zip(rows, preds, strict=True):
        f = bag_of_words_prf(text_of(r, p) if r["n"] else "", r["gold"]).f1
        by[r["pool"]].append(f)
    return {k: round(float(np.mean(v)), 3) for k, v in by.items()}


class SeqNet(nn.Module):
    def __init__(self, d_in, kind="gru", hidden=32, emb=64, layers=1, dropout=0.1):
        super().__init__()
        self.kind = kind
        self.inp = nn.Sequential(nn.Linear(d_in, emb), nn.ReLU(), nn.Dropout(dropout))
        if kind == "gru":
            self.rnn = nn.GRU(emb, hidden, num_layers=layers, batch_first=True, bidirectional=True)
            out = 2 * hidden
        elif kind == "lstm":
            self.rnn = nn.LSTM(emb, hidden, num_layers=layers, batch_first=True, bidirectional=True)
            out = 2 * hidden
        elif kind == "cnn":
            convs = []
            for dil in (1, 2, 4, 8, 16):
                convs.append(nn.Conv1d(emb, emb, 3, padding=dil, dilation=dil))
            self.convs = nn.ModuleList(convs)
            out = emb
        else:  # mlp
            out = emb
        self.head = nn.Sequential(nn.Linear(out + (emb if kind != "mlp" else 0), 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x, lengths):
        h = self.inp(x)
        if self.kind in ("gru", "lstm"):
            packed = nn.utils.rnn.pack_padded_sequence(h, lengths.cpu(), batch_first=True, enforce_sorted=False)
            o, _ = self.rnn(packed)
            o, _ = nn.utils.rnn.pad_packed_sequence(o, batch_first=True, total_length=x.shape[1])
            z = torch.cat([o, h], -1)
        elif self.kind == "cnn":
            mask = (torch.arange(x.shape[1])[None, :] < lengths[:, None]).unsqueeze(1).float()
            c = h.transpose(1, 2) * mask
            for conv in self.convs:
                c = (c + torch.relu(conv(c))) * mask
            z = torch.cat([c.transpose(1, 2), h], -1)
        else:
            z = h
        return self.head(z).squeeze(-1)


def feats(r, use_modern, mean, std):
    x = r["x"]
    if use_modern:
        x = np.concatenate([x, r["m"]], 1)
    return ((x - mean) / std).astype(np.float32)


def batches(rows, size, crop, rng):
    order = rng.permutation(len(rows))
    for s in range(0, len(order), size):
        chunk = [rows[i] for i in order[s : s + size]]
        xs, ys = [], []
        for r in chunk:
            x, y = r["_x"], r["y"]
            if len(x) > crop:
                o = rng.integers(0, len(x) - crop + 1)
                x, y = x[o : o + crop], y[o : o + crop]
            xs.append(x)
            ys.append(y)
        L = max(len(x) for x in xs)
        X = np.zeros((len(xs), L, xs[0].shape[1]), np.float32)
        Y = np.zeros((len(xs), L), np.float32)
        M = np.zeros((len(xs), L), np.float32)
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            X[i, : len(x)] = x
            Y[i, : len(y)] = y
            M[i, : len(y)] = r_w(chunk[i])
        yield torch.from_numpy(X), torch.from_numpy(Y), torch.from_numpy(M), torch.tensor([len(x) for x in xs])


POOL_W = {}


def r_w(r):
    return POOL_W.get(r["pool"], 1.0)


@torch.inference_mode()
def predict(net, rows, threshold=0.5):
    net.eval()
    out = []
    for r in rows:
        if not r["n"]:
            out.append(np.zeros(0, bool))
            continue
        x = torch.from_numpy(r["_x"])[None]
        p = torch.sigmoid(net(x, torch.tensor([len(r["_x"])])))[0].numpy()
        out.append(p >= threshold)
    net.train()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="gru")
    ap.add_argument("--modern", action="store_true")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--emb", type=int, default=64)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--crop", type=int, default=512)
    ap.add_argument("--bs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--poolw", default="")
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--ema", type=float, default=0.995)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--cache", default="/tmp/block-sequence-cache.pkl")
    ap.add_argument("--build-cache", action="store_true", help="featurise the fit + validation parts first")
    a = ap.parse_args()
    if a.build_cache:
        build_cache(["fit", "validation"], Path(a.cache))
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(a.seed)
    with open(a.cache, "rb") as fh:                # a local cache this script wrote, never a download
        rows = pickle.load(fh)
    fit = [r for r in rows if r["part"] == "fit" and r["n"]]
    val = [r for r in rows if r["part"] == "validation"]
    for kv in filter(None, a.poolw.split(",")):
        k, v = kv.split("=")
        POOL_W[k] = float(v)
    if a.baseline:
        w = Web2Text(Web2TextSettings.load({"device": "cpu"}))
        preds = [w.predict_features([r["x"]], [r["e"]])[0] if r["n"] else np.zeros(0, bool) for r in val]
        print("web2text default", score(val, preds))
        return
    allx = np.concatenate([np.concatenate([r["x"], r["m"]], 1) if a.modern else r["x"] for r in fit])
    mean, std = allx.mean(0), allx.std(0) + 1e-6
    for r in rows:
        if r["n"]:
            r["_x"] = feats(r, a.modern, mean, std)
    net = SeqNet(allx.shape[1], a.kind, a.hidden, a.emb, a.layers, a.dropout)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=1e-5)
    ema = torch.optim.swa_utils.AveragedModel(net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(a.ema))
    t0 = time.time()
    best = None
    for ep in range(a.epochs):
        tot = 0.0
        for X, Y, M, L in batches(fit, a.bs, a.crop, rng):
            logit = net(X, L)
            per_block = nn.functional.binary_cross_entropy_with_logits(logit, Y, reduction="none")
            loss = (per_block * M).sum() / M.sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ema.update_parameters(net)
            tot += float(loss.detach())
        if ep % a.every == a.every - 1 or ep == a.epochs - 1:
            s = score(val, predict(ema.module, val))
            mean_f = np.mean(list(s.values()))
            print(ep, round(tot, 2), round(time.time() - t0), s, round(mean_f, 3), flush=True)
            if best is None or mean_f > best[0]:
                best = (mean_f, ep)
    t1 = time.time()
    predict(net, val)
    nblocks = sum(r["n"] for r in val)
    ms = 1000 * (time.time() - t1) / len(val)
    print(f"best {best}; inference {ms:.2f} ms/page ({nblocks / len(val):.0f} blocks)")



if __name__ == "__main__":
    main()
