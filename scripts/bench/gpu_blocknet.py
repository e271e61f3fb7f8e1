"""BlockNet on CUDA: same labels as the CPU, batched == one by one, pages/s and GPU memory at large batches.

The inputs (blocks, Web2Text features, context features) are made once on the CPU; then, for the same pages,
the CPU model one page at a time is the reference, and CUDA runs one page per call and `--batches` pages per
call (grouped by length, `max_batch_blocks` per forward pass). Labels (after the threshold and the fallback
rule) are compared page by page, logits by their largest absolute difference. Writes one JSON object.

    python scripts/bench/gpu_blocknet.py --datasets DIR_OR_JSONL,... --batches 1,64,256,1024,4096 --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from pagesieve.eval import iter_gold_pages
from pagesieve.models.blocknet import BlockNet, BlockNetSettings, page_inputs
from pagesieve.models.page import PageInput, prepare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--batches", default="1,64,256,1024,4096")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("gpu_blocknet: torch sees no CUDA device")
    blocks, inputs, t0 = [], [], time.perf_counter()
    for dataset in args.datasets.split(","):
        for gold in iter_gold_pages(dataset):
            page = prepare(PageInput(gold.html)).page
            if page is not None:
                b, x = page_inputs(page)
                if len(b):
                    blocks.append(b)
                    inputs.append(x)
    result: dict = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "pages": len(inputs),
                    "blocks": int(sum(len(x) for x in inputs)),
                    "inputs_cpu_pages_per_s": round(len(inputs) / (time.perf_counter() - t0), 1)}
    cpu = BlockNet(BlockNetSettings.load({"device": "cpu"}))
    gpu = BlockNet(BlockNetSettings.load({"device": "cuda"}))
    t0 = time.perf_counter()
    reference = [cpu.predict_logits([x])[0] for x in inputs]
    result["cpu_1by1_pages_per_s"] = round(len(inputs) / (time.perf_counter() - t0), 1)
    ref_labels = [cpu.content(b, lg) for b, lg in zip(blocks, reference, strict=True)]
    gpu.predict_logits(inputs[:8])                                                    # CUDA context, kernels
    result["batched"] = []
    for batch in (int(b) for b in args.batches.split(",")):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            logits = []
            for start in range(0, len(inputs), batch):
                logits += gpu.predict_logits(inputs[start : start + batch])
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        labels = [gpu.content(b, lg) for b, lg in zip(blocks, logits, strict=True)]
        row = {"batch": batch, "pages_per_s": round(len(inputs) * args.repeat / seconds, 1),
               "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1),
               "max_logit_gap_vs_cpu": float(max(np.abs(a - b).max() for a, b in zip(logits, reference, strict=True))),
               "pages_differing_vs_cpu": sum(not np.array_equal(a, b) for a, b in zip(labels, ref_labels, strict=True))}
        result["batched"].append(row)
        print(json.dumps(row), flush=True)
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
