"""The registry and the method contract: kinds, dotted paths, settings checked without building a model."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from pagesieve.models.page import Cleaner, CleanResult
from pagesieve.models.registry import (
    METHODS,
    build_method,
    load_settings,
    method_class,
    method_traits,
    resolve,
    settings_class,
)
from pagesieve.settings import ConfigError, FrozenMap, Settings, build_settings


@pytest.mark.parametrize("name", sorted(METHODS))
def test_each_entry_says_its_class_kind_and_settings(name):
    entry = METHODS[name]
    cls = method_class(name)
    assert cls.name == name and cls.kind() == entry.kind
    assert settings_class(name) is cls.settings_class
    # FreeDOM's node selection compares the pages of a site: the one registered method grouped by site
    assert cls.group_by == ("site" if name == "freedom" else None)
    # only VIPS renders the page (in a browser it owns)
    assert cls.needs in ("markup", "tree", "rendered") and (cls.needs == "rendered") == (name == "vips")
    # traits an entry declares (so that the driver need not import the class) are the class's
    assert method_traits(entry) == (cls.needs, cls.group_by)


def test_a_run_driver_imports_no_torch_for_a_neural_method():
    """The driver of `pagesieve run --method blocknet` builds the method's spec and plans the job, and never runs
    the method: torch in the driver was ~140 MB of the run's process tree (docs/memory.md)."""
    code = ("import sys; from pagesieve.udfs.adapter import MethodSpec; "
            "specs = [MethodSpec.of(m, kind='cleaner') for m in ('blocknet', 'web2text')]; "
            "assert [(s.needs, s.group_by) for s in specs] == [('tree', None)] * 2; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_vips_is_a_cleaner_for_clean_and_a_segmenter_for_segment():
    assert method_class("vips", "cleaner").kind() == "cleaner"
    assert method_class("vips", "segmenter").kind() == "segmenter"
    assert settings_class("vips", "segmenter") is settings_class("vips", "cleaner")


def test_a_users_method_loads_by_dotted_path_in_both_spellings():
    for path in ("pagesieve.models.cnr.method:CNR", "pagesieve.models.cnr.method.CNR"):
        entry = resolve(path, "cleaner")
        assert (entry.name, entry.kind, entry.path) == ("cnr", "cleaner", "pagesieve.models.cnr.method:CNR")
    assert build_method("pagesieve.models.cnr.method.CNR", {"adjust": 1}).settings.adjust == 1


@pytest.mark.parametrize(("name", "message"), [
    ("cnrr", "unknown method 'cnrr'; known: all_text, blend, blocknet, boilerpy3, cascade, cnr,"),
    ("nosuch.module:X", "method 'nosuch.module:X': no module 'nosuch'"),
    ("pagesieve.models.cnr:Nope", "method 'pagesieve.models.cnr:Nope': module 'pagesieve.models.cnr' has no 'Nope'"),
    ("pagesieve.models.page:Cleaner", "method 'pagesieve.models.page:Cleaner' is not a method class"),
    ("pagesieve.settings:Settings", "method 'pagesieve.settings:Settings' is not a method class"),
])
def test_bad_method_names_fail_with_one_line(name, message):
    with pytest.raises(ConfigError) as info:
        resolve(name, "cleaner")
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_checking_web2text_settings_imports_no_torch():
    code = ("import sys; from pagesieve.models.registry import load_settings; "
            "s = load_settings('web2text', {'lam': 0.2}); print(s.lam, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0.2", "False"]


def test_settings_errors_name_the_method_and_key():
    with pytest.raises(ConfigError, match=r"^cnr\.top_fraction must be in \(0, 1\], got 5.0$"):
        load_settings("cnr", {"top_fraction": 5})
    with pytest.raises(ConfigError, match=r"^unknown setting web2text\.nosuch; known: device, lam,"):
        load_settings("web2text", {"nosuch": 1})


@dataclasses.dataclass(frozen=True, slots=True)
class Attribute(Settings):
    type: str = "text"
    required: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class DomainSettings(Settings):
    """Nested tables, as a domain schema has them."""

    pivot: str = "price"
    attributes: dict[str, Attribute] = dataclasses.field(default_factory=dict)
    thresholds: dict[str, float] = dataclasses.field(default_factory=dict)
    aliases: tuple[dict[str, str], ...] = ()


def test_nested_settings_are_typed_frozen_and_hashable():
    layer = {"attributes": {"price": {"type": "money", "required": True}, "location": {}},
             "thresholds": {"depth": 1, "dist": 0.5}, "aliases": [{"gbp": "£"}]}
    a, b = build_settings(DomainSettings, layer), build_settings(DomainSettings, layer)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.attributes["price"] == Attribute("money", True) and a.attributes["location"] == Attribute()
    assert a.thresholds == {"depth": 1.0, "dist": 0.5} and isinstance(a.thresholds, FrozenMap)
    assert a.aliases == (FrozenMap({"gbp": "£"}),)
    changed = build_settings(DomainSettings, layer, {"thresholds": {"depth": 2}})
    assert changed != a and hash(changed) != hash(a)
    with pytest.raises(ConfigError, match=r"^domain\.attributes\.price\.required: expected bool, got 'yes'$"):
        build_settings(DomainSettings, {"attributes": {"price": {"required": "yes"}}}, section="domain")
    with pytest.raises(TypeError):
        a.thresholds["depth"] = 3


def test_a_method_must_say_a_valid_need_and_grouping():
    with pytest.raises(TypeError, match="needs must be one of"):
        type("Bad", (Cleaner,), {"name": "bad", "needs": "pixels"})
    with pytest.raises(TypeError, match="group_by must be one of"):
        type("Bad", (Cleaner,), {"name": "bad", "group_by": "domain"})


def test_the_base_declares_the_contract_and_close_is_optional():
    class Plain(Cleaner):
        name = "plain"

        def process(self, page):
            return CleanResult(text="x")

    with Plain() as method:                 # default settings, a no-op close
        assert method.settings == Plain.settings_class() and method.method_id == "plain/1"
    assert Plain.kind() == "cleaner" and Plain.needs == "tree" and Plain.batched is False
