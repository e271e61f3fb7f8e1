"""The training command (scripts/train/train_blocknet.py) on one small pool: it writes a model the method loads, with
the same bytes whichever CPU kernels the caller's environment asks torch for (pagesieve.models.reproducible)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagesieve.models.blocknet import BlockNetModel
from pagesieve.models.registry import build_method
from pagesieve.models.reproducible import PINNED_ENV

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # two training runs in subprocesses


def command(shared_data: Path, out: Path, *options: str) -> list[str]:
    """scripts/train/train_blocknet.py on the smallest pool."""
    return [sys.executable, str(ROOT / "scripts" / "train" / "train_blocknet.py"), "--data", str(shared_data),
            "--limit-pools", "google-trends-2017", "--out", str(out), *options]


def train(out: Path, shared_data: Path, env: dict[str, str]) -> Path:
    cmd = command(shared_data, out)
    clean_env = {k: v for k, v in os.environ.items() if k not in PINNED_ENV}   # so that the script re-executes
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=clean_env | env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out.with_suffix(".npz")


def test_training_writes_the_same_bytes_whatever_kernels_the_caller_asks_for(tmp_path, shared_data):
    # unpinned, ATen's scalar and AVX2 kernels write different weights (on any CPU with AVX2)
    scalar = train(tmp_path / "a" / "m", shared_data, {"ATEN_CPU_CAPABILITY": "default"})
    avx2 = train(tmp_path / "b" / "m", shared_data, {"ATEN_CPU_CAPABILITY": "avx2"})
    assert scalar.read_bytes() == avx2.read_bytes()
    model = BlockNetModel.load(scalar)
    assert model.meta["kernels"] == "pinned" and model.clip == 5.0      # the bound travels in the card
    assert model.meta["trained_on"] == ["google-trends-2017/fit", "google-trends-2017/validation"]
    assert model.meta["train_pages"] > 20 and model.meta["summary"]["epochs"] == 9
    assert model.trees is not None and model.meta["trees"]["rounds"] == 150    # the trees are in the same bytes
    method = build_method("blocknet", {"model": str(scalar), "device": "cpu"})
    assert method.model.meta == model.meta


def test_training_refuses_to_train_on_the_test_parts(tmp_path, shared_data):
    proc = subprocess.run(command(shared_data, tmp_path / "m", "--parts", "fit,test"), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "test parts never train" in proc.stderr
    assert not list(tmp_path.iterdir())
