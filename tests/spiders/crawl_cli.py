"""`pagesieve` in a subprocess, the crawl of the local site with the tests' settings, the site's handle.

(Not in conftest.py: test modules import these by name, and `conftest` is also the name of tests/conftest.py.)
One crawl per process: Twisted's reactor cannot be restarted (docs/stack.md#scrapy).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from pagesieve.schemas import PAGES

# AutoThrottle's default 5 s start delay made 10 local pages take 12 s (docs/stack.md#scrapy)
TEST_CRAWL_CONF = ["crawl.autothrottle_start_delay=0.05", "crawl.autothrottle_max_delay=1.0",
                   "crawl.concurrent_per_domain=8", "crawl.max_download_bytes=1000000", "crawl.rows_per_shard=10",
                   "crawl.progress_seconds=1.0", "crawl.depth_limit=5"]


class LocalSite:
    def __init__(self, base: str, log: Path) -> None:
        self.base = base
        self.log = log

    def requested(self) -> list[str]:
        """Every path requested so far, in order (the server's own log)."""
        return self.log.read_text("utf-8").splitlines()


def cli_path() -> Path:
    """The installed `pagesieve` command of this environment."""
    return Path(sys.executable).with_name("pagesieve")


def pagesieve(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """The installed `pagesieve` command (Spark subcommands in local[2], UI off)."""
    cli = cli_path()
    if args[0] != "crawl":
        args = (*args, "--master", "local[2]", "--conf", "spark.ui.enabled=false")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=timeout, env=env)


def crawl(site: LocalSite, out: Path, *extra: str, url: str | None = None, timeout: float = 300
          ) -> subprocess.CompletedProcess:
    """The crawl of the local site from `url` (default: its index, with the sitemap); asserts exit 0."""
    proc = pagesieve(*crawl_args(site, out, *extra, url=url), timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def crawl_args(site: LocalSite, out: Path, *extra: str, url: str | None = None) -> list[str]:
    """`crawl ...` of the local site with the tests' settings (`crawl` runs it; a test may Popen it)."""
    conf = [a for c in TEST_CRAWL_CONF for a in ("--conf", c)]
    seed = ["--url", url] if url else ["--url", f"{site.base}/", "--sitemap"]
    return ["crawl", *seed, "--out", str(out), *conf, *extra]


def landed(landing: Path, *, tmp_ok: bool = False) -> list[dict]:
    """Every row of every complete shard (no half-written `_tmp-` file may be left, unless `tmp_ok`: a crawl
    killed while writing one)."""
    names = sorted(p.name for p in landing.iterdir())
    assert tmp_ok or not [n for n in names if n.startswith("_tmp")], names
    shards = [landing / n for n in names if n.startswith("part-")]
    return pq.read_table([str(s) for s in shards], schema=PAGES).to_pylist() if shards else []
