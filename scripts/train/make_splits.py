"""Write the fixed splits of the text benchmarks into conf/splits/<pool>/{train,fit,validation,test}.txt.

A method is scored on the test part of every pool and never trained or tuned on it (issue: main-text quality).
WCXB's pool is the benchmark's dev split (its own test split is kept apart, blind), so it is cut like the
pools without a split of their own. Where a pool ships its own split we keep it (Dragnet's train/test lists,
BoilerNet's train/dev/test for Google Trends 2017); otherwise a page is in the test part when the SHA-256 of
"<pool>:<id>" falls in the first TEST_SHARE of the hash space, so a page never changes side when pages are
added. The train part is cut again the same way into `fit` and `validation` (VALIDATION_SHARE of it), for
training with early stopping that never looks at `test`. CleanEval keeps the Web2Text paper's split (test =
its web2text_test, train = web2text_train and web2text_validation, as the data folder's splits/ lists them;
its fit/validation are those two).
Rerunning the script writes byte-identical files.

    .venv/bin/python scripts/train/make_splits.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from pagesieve.data import data_root

ROOT = Path(__file__).resolve().parents[2]
DATA = data_root()
OUT = ROOT / "conf" / "splits"
TEST_SHARE = 0.3
VALIDATION_SHARE = 0.2
# pool -> the meta.jsonl key of the pool's own split, and which of its values are test
OWN_SPLITS = {"dragnet": ("dragnet_split", {"test"}), "google-trends-2017": ("boilernet_split", {"test"})}
POOLS = ("cleaneval", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "scrapinghub", "wcxb",
         "trafilatura-eval")


def _below(key: str, share: float) -> bool:
    digest = hashlib.sha256(key.encode()).digest()
    return int.from_bytes(digest[:8], "big") < share * 2 ** 64


def in_test(pool: str, page_id: str) -> bool:
    return _below(f"{pool}:{page_id}", TEST_SHARE)


def split_pool(folder: Path) -> dict[str, list[str]]:
    """{"train": ids, "test": ids} of one pool, ids sorted (pages without gold are left out)."""
    pool = folder.name
    if pool == "cleaneval":
        def listed(name: str) -> list[str]:
            return (folder / "splits" / f"{name}.txt").read_text("utf-8").split()
        return {"train": sorted(listed("web2text_train") + listed("web2text_validation")),
                "fit": sorted(listed("web2text_train")), "validation": sorted(listed("web2text_validation")),
                "test": sorted(listed("web2text_test"))}
    rows = [json.loads(line) for line in (folder / "meta.jsonl").read_text("utf-8").splitlines() if line.strip()]
    # trafilatura-eval has snippet gold only (gold-snippets/<id>.json); the others plain gold text
    gold = ("gold-snippets", ".json") if not (folder / "gold").is_dir() else ("gold", ".txt")
    ids = [str(r["id"]) for r in rows if (folder / gold[0] / f"{r['id']}{gold[1]}").is_file()]
    if pool in OWN_SPLITS:
        key, test_values = OWN_SPLITS[pool]
        side = {str(r["id"]): r[key] in test_values for r in rows}
        test = [i for i in ids if side[i]]
    else:
        test = [i for i in ids if in_test(pool, i)]
    taken = set(test)
    train = sorted(i for i in ids if i not in taken)
    validation = [i for i in train if _below(f"validation:{pool}:{i}", VALIDATION_SHARE)]
    held = set(validation)
    return {"train": train, "fit": [i for i in train if i not in held], "validation": validation,
            "test": sorted(test)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA))
    args = ap.parse_args()
    for pool in POOLS:
        parts = split_pool(Path(args.data) / pool)
        (OUT / pool).mkdir(parents=True, exist_ok=True)
        for name, ids in parts.items():
            (OUT / pool / f"{name}.txt").write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
        print(f"{pool:<20} " + "  ".join(f"{name} {len(ids):>4}" for name, ids in parts.items()))


if __name__ == "__main__":
    main()
