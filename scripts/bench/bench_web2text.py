"""Speed of Web2Text: per-stage ms/page on one core, batched inference, and the Spark UDF path.

Stage figures (one process pinned to one CPU, torch with one thread, after a warm-up):
- parse: decode + lxml parse (shared by every tree method, reported apart);
- features: Collapsed DOM + blocks + the 128 + 25 features (section 3.1-3.3);
- inference 1-by-1: standardise, both CNNs and Viterbi for one page at a time;
- inference batched: the same for `--batch` pages at a time (one forward pass per group), per page.
The paper's 54 ms/page (2017 laptop) is features + inference; our target is a median <= 15 ms.
With `--spark`, also pages/s of `clean --method web2text` and of cnr in the same run, Spark local mode.

    .venv/bin/python scripts/bench/bench_web2text.py                       # cleaneval + scrapinghub, CPU
    .venv/bin/python scripts/bench/bench_web2text.py --device cuda --batch 256 --repeat 8
    .venv/bin/python scripts/bench/bench_web2text.py --spark --spark-pages 3000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageInput, prepare
from pagesieve.models.web2text import Web2Text, Web2TextSettings, page_blocks
from pagesieve.models.web2text.features import page_features

DATA = data_root()


def _summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"median_ms": round(statistics.median(ordered), 3), "mean_ms": round(statistics.mean(ordered), 3),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
            "pages_per_s": round(1000 * len(ms) / sum(ms), 1)}


def stages(bodies: list[bytes], method: Web2Text, batch: int, warmup: int) -> dict[str, dict]:
    sync = torch.cuda.synchronize if method.device.type == "cuda" else (lambda: None)
    parsed, times = [], {"parse": [], "features": [], "inference_1by1": [], "features+inference": []}
    feats = []
    for i, body in enumerate(bodies):
        t0 = time.perf_counter()
        page = prepare(PageInput(body)).page        # the runner's decode + parse, as in the UDF
        if page is None:
            continue
        t1 = time.perf_counter()
        x, e = page_features(page_blocks(page))
        t2 = time.perf_counter()
        method.predict_features([x], [e])
        sync()
        t3 = time.perf_counter()
        if i >= warmup:
            times["parse"].append((t1 - t0) * 1000)
            times["features"].append((t2 - t1) * 1000)
            times["inference_1by1"].append((t3 - t2) * 1000)
            times["features+inference"].append((t3 - t1) * 1000)
        parsed.append(page)
        feats.append((x, e))
    out = {k: _summary(v) for k, v in times.items()}
    # batched: `batch` pages at a time through the method's grouping (similar lengths padded together), per page
    per_page = []
    for start in range(0, len(feats), batch):
        chunk = feats[start : start + batch]
        t0 = time.perf_counter()
        method.predict_features([x for x, _ in chunk], [e for _, e in chunk])
        sync()
        per_page += [(time.perf_counter() - t0) * 1000 / len(chunk)] * len(chunk)
    out[f"inference_batched_{batch}"] = _summary(per_page)
    out["blocks_per_page_median"] = statistics.median(len(x) for x, _ in feats)
    return out


def spark_rate(bodies: list[bytes], n_pages: int, methods: list[str], master: str) -> dict[str, dict]:
    """pages/s of the clean UDF for each method over the same n_pages (the bodies repeated), local mode."""
    import pyarrow as pa

    from pagesieve.jobs import clean
    from pagesieve.jobs.common import spark_session
    from pagesieve.schemas import PAGES, spark_schema
    from pagesieve.udfs.adapter import MethodSpec

    spark = spark_session("bench-web2text", master, {"spark.ui.enabled": "false"})
    rows = [{"page_id": f"p{i}", "url": f"http://bench.test/{i}", "body": bodies[i % len(bodies)],
             "content_type": "text/html", "ingest_status": "ok"} for i in range(n_pages)]
    pages = spark.createDataFrame(pa.Table.from_pylist(rows, schema=PAGES).to_pandas(), spark_schema(PAGES))
    pages = pages.repartition(spark.sparkContext.defaultParallelism * 2).cache()
    pages.count()
    out = {}
    for name in methods:
        spec = MethodSpec.of(name, kind="cleaner")
        clean.build(pages, spec).limit(50).collect()           # workers up, method built
        t0 = time.perf_counter()
        n = clean.build(pages, spec).where("status = 'ok'").count()
        seconds = time.perf_counter() - t0
        out[name] = {"pages": n_pages, "ok": n, "seconds": round(seconds, 1),
                     "pages_per_s": round(n_pages / seconds, 1)}
        print(f"spark {master} {name}: {n_pages} pages in {seconds:.1f} s = {n_pages / seconds:.1f} pages/s ({n} ok)")
    spark.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=f"{DATA}/cleaneval,{DATA}/scrapinghub")
    ap.add_argument("--limit", type=int, default=0, help="pages per dataset (0 = all)")
    ap.add_argument("--repeat", type=int, default=1, help="use the pages this many times (longer GPU runs)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--model", default="default")
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin the stage timings to (-1: no pinning)")
    ap.add_argument("--spark", action="store_true", help="also time the UDF path in Spark local mode")
    ap.add_argument("--spark-pages", type=int, default=2000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    bodies = [p.html for d in args.datasets.split(",") for i, p in enumerate(iter_gold_pages(d))
              if not args.limit or i < args.limit]
    result: dict = {"machine": f"{platform.machine()} {os.cpu_count()} cpus", "torch": torch.__version__,
                    "device": args.device, "date": time.strftime("%Y-%m-%d %H:%M"), "pages": len(bodies) * args.repeat}
    if args.device.startswith("cuda"):
        result["gpu"] = torch.cuda.get_device_name(0)
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if args.cpu >= 0 and affinity is not None:
        os.sched_setaffinity(0, {args.cpu})
    method = Web2Text(Web2TextSettings.load({"device": args.device, "threads": 1, "model": args.model}))
    result["stages"] = stages(bodies * args.repeat, method, args.batch, args.warmup)
    print(json.dumps(result, indent=1))
    if args.spark:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)   # Spark's workers inherit the mask: give them every core back
        result["spark"] = spark_rate(bodies, args.spark_pages, ["web2text", "cnr"], args.master)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
