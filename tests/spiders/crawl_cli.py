"""`pagesieve` in a subprocess, the crawl of the local site with the tests' settings, the site's handle.

(Not in conftest.py: test modules import these by name, and `conftest` is also the name of tests/conftest.py.)
One crawl per process: Twisted's reactor cannot be restarted (docs/stack.md#scrapy).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def pagesieve(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """The installed `pagesieve` command (Spark subcommands in local[2], UI off)."""
    cli = Path(sys.executable).with_name("pagesieve")
    if args[0] != "crawl":
        args = (*args, "--master", "local[2]", "--conf", "spark.ui.enabled=false")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=timeout, env=env)


def crawl(site: LocalSite, out: Path, *extra: str, url: str | None = None, timeout: float = 300
          ) -> subprocess.CompletedProcess:
    """The crawl of the local site from `url` (default: its index, with the sitemap); asserts exit 0."""
    conf = [a for c in TEST_CRAWL_CONF for a in ("--conf", c)]
    seed = ["--url", url] if url else ["--url", f"{site.base}/", "--sitemap"]
    proc = pagesieve("crawl", *seed, "--out", str(out), *conf, *extra, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc
