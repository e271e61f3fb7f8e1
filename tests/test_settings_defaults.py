"""One source of defaults: a settings class built with no arguments equals what `conf/<name>.toml` packages.

`CNR(CNRSettings())` once kept the navigation that `CNR()` drops (the class had no non-content tags, the
packaged file 18), because the defaults were written twice and drifted. These tests keep the class's field
defaults and the commented packaged file equal for every registered method and every job section.
"""

from __future__ import annotations

import dataclasses

import pytest

from pagesieve.jobs.settings import JOB_SETTINGS
from pagesieve.models.cnr import CNR
from pagesieve.models.cnr.settings import CNRSettings
from pagesieve.models.page import parse_page
from pagesieve.models.registry import BY_KIND, METHODS, settings_class
from pagesieve.settings import load_defaults

METHOD_KINDS = sorted({(name, entry.kind) for name, entry in METHODS.items()} | set(BY_KIND))
JOBS = sorted(JOB_SETTINGS.items()) if isinstance(JOB_SETTINGS, dict) else [(c.__name__, c) for c in JOB_SETTINGS]


def _differing_fields(cls: type) -> dict[str, tuple]:
    built, packaged = cls(), cls.load()
    return {f.name: (getattr(built, f.name), getattr(packaged, f.name)) for f in dataclasses.fields(cls)
            if getattr(built, f.name) != getattr(packaged, f.name)}


@pytest.mark.parametrize(("name", "kind"), METHOD_KINDS, ids=[f"{n}-{k}" for n, k in METHOD_KINDS])
def test_method_settings_class_defaults_equal_the_packaged_defaults(name: str, kind: str) -> None:
    assert _differing_fields(settings_class(name, kind)) == {}


@pytest.mark.parametrize(("section", "cls"), JOBS, ids=[s for s, _ in JOBS])
def test_job_settings_class_defaults_equal_the_packaged_defaults(section: str, cls: type) -> None:
    assert _differing_fields(cls) == {}


@pytest.mark.parametrize(("name", "kind"), METHOD_KINDS, ids=[f"{n}-{k}" for n, k in METHOD_KINDS])
def test_packaged_file_states_every_key_of_the_method(name: str, kind: str) -> None:
    """The packaged file is the commented reference users copy: a key missing there is undocumented."""
    cls = settings_class(name, kind)
    if cls.conf_name is None:        # the peers: their knobs are their libraries' own, no packaged file
        return
    packaged = load_defaults(cls.conf_name)
    if cls.conf_section:
        packaged = packaged[cls.conf_section]
    assert sorted(f.name for f in dataclasses.fields(cls) if f.name not in packaged) == []


def test_cnr_built_from_its_class_defaults_drops_the_navigation_as_the_default_does() -> None:
    nav = "".join(f'<li><a href="/s{i}">Section number {i} of the site</a></li>' for i in range(30))
    body = "".join(f"<p>Paragraph {i} of the article says something long enough to count as text.</p>"
                   for i in range(8))
    page = parse_page(f"<html><body><nav><ul>{nav}</ul></nav><article>{body}</article></body></html>".encode())
    assert CNR(CNRSettings()).process(page).text == CNR().process(page).text
    assert "Section number" not in CNR(CNRSettings()).process(page).text
