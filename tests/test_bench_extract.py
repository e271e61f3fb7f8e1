"""scripts/bench/bench_extract.py: a method named with settings changed builds that method with those settings."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pagesieve.settings import ConfigError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_extract", ROOT / "scripts" / "bench" / "bench_extract.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_method_takes_one_or_more_settings_after_at_signs(bench):
    assert bench._build("cnr").name == "cnr"
    one = bench._build("blocknet@trees=false")
    assert one.settings.trees is False and one.settings.drop_landmarks is True
    two = bench._build("blocknet@trees=false@drop_landmarks=false")
    assert (two.settings.trees, two.settings.drop_landmarks, two.settings.unsure) == (False, False, 0.22)
    with pytest.raises(ConfigError, match="nosuch"):
        bench._build("blocknet@nosuch=1")
