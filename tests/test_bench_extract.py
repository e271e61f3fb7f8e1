"""scripts/bench/bench_extract.py: a method named with settings changed builds that method with those settings."""

from __future__ import annotations

import pytest

from pagesieve.settings import ConfigError


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench/bench_extract.py")


def test_a_method_takes_one_or_more_settings_after_at_signs(bench):
    assert bench._build("cnr").name == "cnr"
    one = bench._build("blocknet@trees=false")
    assert one.settings.trees is False and one.settings.drop_landmarks is True
    two = bench._build("blocknet@trees=false@drop_landmarks=false")
    assert (two.settings.trees, two.settings.drop_landmarks, two.settings.unsure) == (False, False, 0.22)
    with pytest.raises(ConfigError, match="nosuch"):
        bench._build("blocknet@nosuch=1")
