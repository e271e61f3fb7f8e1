"""conf/gpu_discovery.sh prints Spark's ResourceInformation JSON. No GPU is on CI machines: the GPU
case runs against a stand-in nvidia-smi that prints what the real one prints for two GPUs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "conf" / "gpu_discovery.sh"


def run(path: str) -> dict:
    out = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PATH": path})
    return json.loads(out.stdout)


def test_two_gpus_are_listed(tmp_path):
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\nprintf '0\\n1\\n'\n")
    fake.chmod(0o755)
    assert run(f"{tmp_path}:/usr/bin:/bin") == {"name": "gpu", "addresses": ["0", "1"]}


def test_no_driver_gives_no_addresses(tmp_path):
    assert run(f"{tmp_path}:/usr/bin:/bin") == {"name": "gpu", "addresses": []}
