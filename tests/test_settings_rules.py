"""The settings loader's general rules (hostile pass, item 12): floats are finite unless a class says otherwise,
and `field_checks` (device, threads, files, models) run when settings are loaded, not when built directly."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import pytest

from pagesieve.models.amber import AmberSettings
from pagesieve.models.blocknet.settings import BlockNetSettings
from pagesieve.settings import ConfigError, Settings, build_settings, check_device


@dataclass(frozen=True, slots=True)
class Knobs(Settings):
    nonfinite = frozenset({"limit"})

    share: float = 0.5
    limit: float = math.inf
    shares: dict[str, float] | None = None


@pytest.mark.parametrize(("key", "value"), [("share", math.nan), ("share", math.inf), ("share", -math.inf),
                                            ("shares", {"a": math.nan})])
def test_a_float_setting_must_be_finite(key, value):
    with pytest.raises(ConfigError, match=rf"^knobs\.{key}(\.a)?: must be a finite number, got"):
        build_settings(Knobs, {key: value}, section="knobs")


def test_a_class_may_allow_a_float_to_be_infinite():
    assert build_settings(Knobs, {"limit": math.inf}).limit == math.inf


@pytest.mark.parametrize("device", ["auto", "cpu"])
def test_the_devices_every_machine_has_are_accepted(device):
    check_device(device)


@pytest.mark.parametrize(("device", "message"), [
    ("tpu", "must be auto, cpu, cuda or cuda:N, got 'tpu'"),
    ("cuda:x", "must be auto, cpu, cuda or cuda:N"),
    ("cuda:4096", "'cuda:4096': this machine has"),
])
def test_a_device_this_machine_lacks_is_refused(device, message):
    with pytest.raises(ValueError, match=message):
        check_device(device)


def test_field_checks_run_on_loaded_settings_not_on_direct_construction(tmp_path):
    missing = str(tmp_path / "learned.json")
    assert AmberSettings(learned=missing).learned == missing     # a script may name the file it will write
    with pytest.raises(ConfigError, match=f"^amber.learned: {missing}: no such file$"):
        AmberSettings.load({"learned": missing}, section="amber")


def test_threads_are_at_most_the_machines_cores():
    cores = os.cpu_count() or 1
    assert BlockNetSettings.load({"threads": cores}).threads == cores
    with pytest.raises(ConfigError, match=f"^blocknet.threads: must be at most the {cores} cores"):
        BlockNetSettings.load({"threads": cores + 1})


def test_a_model_path_needs_its_card_beside_it(tmp_path):
    (tmp_path / "m.npz").write_bytes(b"")
    with pytest.raises(ConfigError, match=r"^blocknet.model: BlockNet model .*m.npz has no m.json beside it"):
        BlockNetSettings.load({"model": str(tmp_path / "m")})
