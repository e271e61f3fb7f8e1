"""documents.language checked against references no one here wrote, through the real jobs (ingest, then clean).

1. Common Crawl's own verdict: `pages.source_languages` (CLD2, run by Common Crawl on the whole page) against
   `documents.language`, per CLD2 language, for every page that has one (`cc-main-2024-22-whirlwind.warc.gz`).
2. Pages of known language: the ClueWeb09 and ClueWeb12 excerpts are English ones (ClueWeb09's `en` part).
3. CLD2 run here (pycld2) on the very text of each document, per CLD2 language, on the pages of the 2008 Common
   Crawl ARC, the one archive here with many non-English pages.

    .venv/bin/python scripts/eval/eval_language.py                       # cnr, in a temporary folder
    .venv/bin/python scripts/eval/eval_language.py --methods cnr,trafilatura --keep out/eval-language
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from language_pages import WARC_DIR, cld2

from pagesieve.models.page.language import iso639_1

CC_2024 = "cc-main-2024-22-whirlwind.warc.gz"
CC_2008 = "commoncrawl-2008-arc-sample.arc"
CLUEWEB = ("clueweb09-en0000-00-excerpt.warc.gz", "clueweb12-0000tw-00-excerpt.warc.gz")
PAGESIEVE = str(Path(sys.executable).with_name("pagesieve"))


def run_jobs(out: Path, methods: list[str]) -> None:
    inputs = [str(WARC_DIR / name) for name in (CC_2024, CC_2008, *CLUEWEB)]
    subprocess.run([PAGESIEVE, "ingest", *inputs, "--out", str(out / "pages"), "--quiet"], check=True)
    for method in methods:
        subprocess.run([PAGESIEVE, "clean", "--pages", str(out / "pages"), "--out", str(out / method),
                        "--method", method], check=True)


def table(title: str, rows: dict[str, collections.Counter], columns: list[str]) -> None:
    print(f"\n{title}\n{'':<8}" + "".join(f"{c:>12}" for c in columns))
    for key, c in sorted(rows.items(), key=lambda kv: (-kv[1]["pages"], kv[0])):
        print(f"{key:<8}" + "".join(f"{c[col]:>12}" for col in columns))


def evaluate(out: Path, method: str) -> None:
    pages = pq.read_table(out / "pages", columns=["page_id", "source", "source_languages"]).to_pylist()
    source = {p["page_id"]: (Path(p["source"]).name, p["source_languages"]) for p in pages}
    docs = pq.read_table(out / method, columns=["page_id", "status", "text", "language", "language_score"]
                         ).to_pylist()
    report = json.loads((out / method / "_report.json").read_text())
    print(f"\n=== {method}: {len(docs)} documents, by_status {report['by_status']}, "
          f"by_language {report['by_language']}")
    cc: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    known: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    here: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for d in docs:
        archive, verdict = source[d["page_id"]]
        ours = d["language"] or "null"
        if verdict:
            top = iso639_1(json.loads(verdict)["languages"][0]["code"]) if json.loads(verdict)["languages"] else None
            row = cc[top or "none"]
            row["pages"] += 1
            row["ok docs"] += d["status"] == "ok"
            row["same"] += ours == top
            row[f"ours={ours}"] += 1
        if archive in CLUEWEB:
            row = known[archive.split("-")[0]]
            row["pages"] += 1
            row["ok docs"] += d["status"] == "ok"
            row["en"] += ours == "en"
            row["null"] += d["status"] == "ok" and ours == "null"
            row["other"] += ours not in ("en", "null")
        if archive == CC_2008 and d["status"] == "ok" and d["language"]:
            ref = cld2(d["text"])[0] or "none"
            here[ref]["pages"] += 1
            here[ref]["same"] += ours == ref
    columns = sorted({k for c in cc.values() for k in c if k.startswith("ours=")})
    table("1. Common Crawl's languages-cld2 (top language) vs documents.language", cc,
          ["pages", "ok docs", "same", *columns])
    table("2. ClueWeb excerpts (English pages): documents.language", known, ["pages", "ok docs", "en", "null", "other"])
    table(f"3. {CC_2008}: CLD2 on the document text vs documents.language (ok documents with a language)", here,
          ["pages", "same"])
    total = sum(c["pages"] for c in here.values())
    print(f"   agreement {sum(c['same'] for c in here.values())}/{total}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="cnr", help="cleaners to run (comma-separated)")
    ap.add_argument("--keep", default=None, help="write the tables here and keep them (default: a temporary folder)")
    args = ap.parse_args()
    methods = args.methods.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.keep or tmp)
        run_jobs(out, methods)
        for method in methods:
            evaluate(out, method)


if __name__ == "__main__":
    main()
