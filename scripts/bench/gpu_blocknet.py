"""BlockNet (or blend) on CUDA: same labels as the CPU, batched == one by one, pages/s and GPU memory at large batches.

The inputs are made once on the CPU exactly as the method makes them (`BlockNet.batch_inputs`: blocks, Web2Text
and context features with the model's stop words, and for blend the peers' votes), in `--workers` processes.
Then, for the same pages, the CPU model one page at a time is the reference, and CUDA runs one page per call and
`--batches` pages per call (grouped by length, `max_batch_blocks` per forward pass; `--max-batch-blocks` tries
several). Labels (after the threshold and the fallback rule) are compared page by page, logits by their largest
absolute difference. Writes one JSON object.

    python scripts/bench/gpu_blocknet.py --method blocknet --datasets DIR_OR_JSONL,... --batches 1,64,256,1024,4096
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import get_context
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

from pagesieve.eval import iter_gold_pages
from pagesieve.models.blocknet.method import Blend, BlockNet
from pagesieve.models.blocknet.settings import BlendSettings, BlockNetSettings
from pagesieve.models.page import PageInput, prepare
from pagesieve.models.web2text.method import PageBlocks

METHODS = {"blocknet": (BlockNet, BlockNetSettings), "blend": (Blend, BlendSettings)}
_cpu_method: BlockNet | None = None


def _make(method: str, device: str, max_batch_blocks: int = 65536) -> BlockNet:
    cls, settings = METHODS[method]
    return cls(settings.load({"device": device, "max_batch_blocks": max_batch_blocks}))


def _init(method: str) -> None:
    global _cpu_method
    torch.set_num_threads(1)
    _cpu_method = _make(method, "cpu")


def _page_inputs(html: bytes) -> tuple[list[str], np.ndarray] | None:
    page = prepare(PageInput(html)).page
    if page is None:
        return None
    made = _cpu_method.batch_inputs(page)
    if not isinstance(made, PageBlocks) or not len(made.blocks):
        return None
    return list(made.blocks.text), made.inputs[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", choices=sorted(METHODS), default="blocknet")
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--limit", type=int, default=0, help="at most this many pages (0: all)")
    ap.add_argument("--batches", default="1,64,256,1024,4096")
    ap.add_argument("--max-batch-blocks", default="65536", help="comma-separated values of max_batch_blocks")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1, help="processes that make the inputs on the CPU")
    ap.add_argument("--device", default="cuda", help="cpu checks the script itself on a machine without a GPU")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        raise SystemExit("gpu_blocknet: torch sees no CUDA device")
    htmls = [g.html for d in args.datasets.split(",") for g in iter_gold_pages(d)]
    htmls = htmls[: args.limit] if args.limit else htmls
    t0 = time.perf_counter()
    with get_context("fork").Pool(args.workers, _init, (args.method,)) as pool:
        made = [m for m in pool.map(_page_inputs, htmls, chunksize=8) if m is not None]
    seconds = time.perf_counter() - t0
    texts, inputs = [t for t, _ in made], [x for _, x in made]
    result: dict = {"method": args.method, "device": torch.cuda.get_device_name(0) if cuda else "cpu",
                    "torch": torch.__version__, "pages": len(inputs), "blocks": int(sum(len(x) for x in inputs)),
                    "columns": int(inputs[0].shape[1]),
                    "inputs_pages_per_s_per_core": round(len(inputs) / seconds / args.workers, 1)}
    cpu = _make(args.method, "cpu")
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    reference = [cpu.predict_logits([x])[0] for x in inputs]
    result["cpu_1by1_one_thread_pages_per_s"] = round(len(inputs) / (time.perf_counter() - t0), 1)
    blocks = [SimpleNamespace(text=t) for t in texts]
    ref_labels = [cpu.content(b, lg) for b, lg in zip(blocks, reference, strict=True)]
    result["runs"] = []
    for max_batch_blocks in (int(m) for m in args.max_batch_blocks.split(",")):
        gpu = _make(args.method, args.device, max_batch_blocks)
        gpu.predict_logits(inputs[:8])                                                # CUDA context, kernels
        for batch in (int(b) for b in args.batches.split(",")):
            if cuda:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            t0 = time.perf_counter()
            for _ in range(args.repeat):
                logits = []
                for start in range(0, len(inputs), batch):
                    logits += gpu.predict_logits(inputs[start : start + batch])
            if cuda:
                torch.cuda.synchronize()
            seconds = time.perf_counter() - t0
            labels = [gpu.content(b, lg) for b, lg in zip(blocks, logits, strict=True)]
            pairs = list(zip(logits, reference, labels, ref_labels, strict=True))
            row = {"max_batch_blocks": max_batch_blocks, "batch": batch,
                   "pages_per_s": round(len(inputs) * args.repeat / seconds, 1),
                   "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
                   "max_logit_gap_vs_cpu": float(max(np.abs(a - b).max() for a, b, _, _ in pairs)),
                   "pages_differing_vs_cpu": sum(not np.array_equal(a, b) for _, _, a, b in pairs)}
            result["runs"].append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
