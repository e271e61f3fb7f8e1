"""Web2Text on CUDA: same labels as the CPU, batched == one by one, pages/s and GPU memory at large batches.

Features (Collapsed DOM, blocks, the 128 + 25 features) are made once on the CPU; then, for the same pages:
- reference: the CPU model, one page at a time;
- cuda 1-by-1: one page per forward pass;
- cuda batched: `--batches` pages per call of `predict_features` (pages grouped by length, `max_batch_blocks`
  blocks per forward pass), timed per page, with the peak GPU memory of each batch size.
Labels are compared page by page (pages with any differing block, and differing blocks); potentials are
compared by their largest absolute difference. Writes one JSON object (stdout, and `--json`).

    python scripts/bench/gpu_web2text.py --datasets DIR_OR_JSONL,... --batches 1,16,64,256,1024,4096 --json out.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageInput, prepare
from pagesieve.models.web2text import Web2Text, Web2TextSettings, length_groups, page_blocks
from pagesieve.models.web2text.features import page_features
from pagesieve.models.web2text.viterbi import viterbi


def load_features(datasets: list[str]) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    feats, edges, seconds = [], [], 0.0
    for dataset in datasets:
        for gold in iter_gold_pages(dataset):
            t0 = time.perf_counter()
            page = prepare(PageInput(gold.html)).page
            if page is None:
                continue
            x, e = page_features(page_blocks(page))
            seconds += time.perf_counter() - t0
            if len(x):
                feats.append(x)
                edges.append(e)
    return feats, edges, seconds


def differences(reference: list[np.ndarray], other: list[np.ndarray]) -> dict[str, int]:
    pages = sum(not np.array_equal(a, b) for a, b in zip(reference, other, strict=True))
    blocks = sum(int((a != b).sum()) for a, b in zip(reference, other, strict=True))
    return {"pages_differing": pages, "blocks_differing": blocks}


def max_potential_gap(cpu: Web2Text, gpu: Web2Text, feats: list[np.ndarray], edges: list[np.ndarray]) -> float:
    gap = 0.0
    for x, e in zip(feats, edges, strict=True):
        a = cpu.model.potentials([x], [e])
        b = gpu.model.potentials([x], [e])
        gap = max(gap, *(float((p.cpu() - q.cpu()).abs().max()) if p.numel() else 0.0
                         for p, q in zip(a[:2], b[:2], strict=True)))
    return gap


def timed_batches(method: Web2Text, feats: list[np.ndarray], edges: list[np.ndarray], batch: int, repeat: int
                  ) -> tuple[list[np.ndarray], dict[str, float]]:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    labels: list[np.ndarray] = []
    t0 = time.perf_counter()
    for _ in range(repeat):
        labels = []
        for start in range(0, len(feats), batch):
            labels += method.predict_features(feats[start : start + batch], edges[start : start + batch])
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    pages = len(feats) * repeat
    return labels, {"batch": batch, "pages": pages, "seconds": round(seconds, 3),
                    "pages_per_s": round(pages / seconds, 1),
                    "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", required=True, help="comma-separated gold data sets (folders or .jsonl)")
    ap.add_argument("--batches", default="1,16,64,256,1024,4096")
    ap.add_argument("--repeat", type=int, default=3, help="passes over the pages per batch size")
    ap.add_argument("--model", default="default")
    ap.add_argument("--max-batch-blocks", type=int, default=65536)
    ap.add_argument("--allow-tf32", action="store_true", help="let cuDNN use TF32 (the default of torch)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("gpu_web2text: torch sees no CUDA device")
    feats, edges, feature_seconds = load_features(args.datasets.split(","))
    settings = {"model": args.model, "threads": 1, "max_batch_blocks": args.max_batch_blocks}
    cpu = Web2Text(Web2TextSettings.load(settings | {"device": "cpu"}))
    gpu = Web2Text(Web2TextSettings.load(settings | {"device": "cuda"}))
    torch.backends.cudnn.allow_tf32 = args.allow_tf32           # Web2Text turns it off; this shows why
    result: dict = {"machine": platform.machine(), "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                    "cudnn_tf32": torch.backends.cudnn.allow_tf32,
                    "date": time.strftime("%Y-%m-%d %H:%M"), "pages": len(feats),
                    "blocks": int(sum(len(x) for x in feats)),
                    "features_cpu_pages_per_s": round(len(feats) / feature_seconds, 1)}
    t0 = time.perf_counter()
    reference = [cpu.predict_features([x], [e])[0] for x, e in zip(feats, edges, strict=True)]
    result["cpu_1by1_pages_per_s"] = round(len(feats) / (time.perf_counter() - t0), 1)
    gpu.predict_features(feats[:8], edges[:8])                                           # CUDA context, kernels
    t0 = time.perf_counter()
    one_by_one = [gpu.predict_features([x], [e])[0] for x, e in zip(feats, edges, strict=True)]
    torch.cuda.synchronize()
    result["cuda_1by1_pages_per_s"] = round(len(feats) / (time.perf_counter() - t0), 1)
    result["cuda_1by1_vs_cpu"] = differences(reference, one_by_one)
    result["max_potential_gap_cuda_vs_cpu"] = max_potential_gap(cpu, gpu, feats, edges)
    result["batched"] = []
    for batch in (int(b) for b in args.batches.split(",")):
        labels, row = timed_batches(gpu, feats, edges, batch, args.repeat)
        row["vs_cuda_1by1"] = differences(one_by_one, labels)
        row["vs_cpu"] = differences(reference, labels)
        result["batched"].append(row)
        print(json.dumps(row), flush=True)
    # where the time of a large batch goes: the two CNNs on the GPU, then Viterbi on the CPU
    big = max(int(b) for b in args.batches.split(","))
    split = {"pages": min(big, len(feats)), "potentials_ms": 0.0, "viterbi_ms": 0.0}
    for group in length_groups([len(x) for x in feats[:big]], args.max_batch_blocks):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        unary, pair, lengths = gpu.model.potentials([feats[i] for i in group], [edges[i] for i in group])
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        viterbi(unary, pair, lengths, gpu.settings.lam)
        split["potentials_ms"] += (t1 - t0) * 1000
        split["viterbi_ms"] += (time.perf_counter() - t1) * 1000
    result["split_one_call"] = {k: round(v, 1) for k, v in split.items()}
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
