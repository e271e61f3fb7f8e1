"""The training command (scripts/train/train_web2text.py) on a few real pages: it writes a model the method loads,
and the same seed gives the same weights."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pagesieve.models.registry import build_method
from pagesieve.models.web2text import Web2TextModel

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # three training runs in subprocesses


def train(out: Path, shared_data: Path, seed: int) -> Path:
    cmd = [sys.executable, str(ROOT / "scripts" / "train" / "train_web2text.py"), "--recipe", "cleaneval", "--data",
           str(shared_data), "--limit", "6", "--max-steps", "40", "--eval-every", "20", "--patience", "40",
           "--workers", "1", "--seed", str(seed), "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out.with_suffix(".npz")


def test_training_writes_a_loadable_reproducible_model(tmp_path, shared_data):
    first = train(tmp_path / "a" / "m", shared_data, seed=3)
    again = train(tmp_path / "b" / "m", shared_data, seed=3)
    other = train(tmp_path / "c" / "m", shared_data, seed=4)
    with np.load(first) as a, np.load(again) as b, np.load(other) as c:
        assert sorted(a.files) == sorted(b.files)
        assert all(np.array_equal(a[k], b[k]) for k in a.files)
        assert not all(np.array_equal(a[k], c[k]) for k in a.files if k.startswith("unary/"))
    model = Web2TextModel.load(first)
    assert model.meta["recipe"] == "cleaneval" and model.meta["train_pages"] == 6 and model.meta["seed"] == 3
    assert model.meta["steps_run"] == 40 and model.meta["history"]["step"] == [20, 40]
    assert 0 <= model.meta["validation_scores"]["unary_error"] <= 1
    method = build_method("web2text", {"model": str(first), "device": "cpu"})
    assert method.model.meta == model.meta
