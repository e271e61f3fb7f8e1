"""AMBER's domain schema Σ = ΣR ∪ ΣO as data (sections 2.2, 3.1, 4 and 6.1 of the paper).

A domain is one TOML file, `conf/amber/<name>.toml`: its attribute types, each regular (ΣR, present in most
records, R4) or optional (ΣO, R5) with the annotators that mark its values (section 3.2); the pivot
attribute type π ∈ ΣR that drives data area identification (section 3.1); disjointness constraints
ρ1 ∧ ρ2 → ⊥ (section 4); and the thresholds Θ of sections 3.3-3.5 and 4, defaults from section 6.1.
A user adds a domain by writing one such file and passing its path to `load_schema`.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pagesieve.settings import ConfigError, FrozenMap, Settings, build_settings, load_file

from .annotators import ANNOTATORS, gazetteer_path, is_gazetteer_name

__all__ = ["AttributeSpec", "AmberThresholds", "DomainSchema", "load_schema", "packaged_schemas"]

KINDS = ("regular", "optional")


@dataclass(frozen=True, slots=True)
class AttributeSpec(Settings):
    """One attribute type ρ ∈ Σ: regular or optional, and what annotates its values."""

    kind: str = "regular"                     # "regular" (ΣR) or "optional" (ΣO), Definition 1
    annotators: tuple[str, ...] = ()          # names in annotators.ANNOTATORS
    gazetteers: tuple[str, ...] = ()          # packaged conf/amber/gazetteers/<name>.txt, or a file path
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: must be one of {', '.join(KINDS)}, got {self.kind!r}")
        for i, name in enumerate(self.annotators):
            if name not in ANNOTATORS:
                raise ValueError(f"annotators[{i}]: unknown annotator {name!r}; known: {', '.join(sorted(ANNOTATORS))}")


@dataclass(frozen=True, slots=True)
class AmberThresholds(Settings):
    """Θ of Algorithms 2, 4 and 5; defaults are the values section 6.1 evaluates with (section 4 for learn)."""

    depth: int = 1                  # Θdepth, M4 depth consistency of pivot nodes (6.1)
    dist: int = 2                   # Θdist, M5 distance consistency of pivot nodes (6.1)
    infer_regular: float = 0.5      # Θinfer_R: support to infer a regular attribute without annotation (6.1)
    infer_optional: float = 0.5     # Θinfer_O (6.1)
    keep_regular: float = 0.0       # Θkeep_R: support to keep an annotated regular attribute (6.1)
    keep_optional: float = 0.2      # Θkeep_O (6.1)
    learn: float = 1.5              # Θ of Algorithm 5: noise evidence factor to drop a term (section 4)

    def __post_init__(self) -> None:
        for key in ("depth", "dist"):
            if getattr(self, key) < 0:
                raise ValueError(f"{key}: must be >= 0, got {getattr(self, key)}")
        for key in ("infer_regular", "infer_optional", "keep_regular", "keep_optional"):
            if not 0.0 <= getattr(self, key) <= 1.0:
                raise ValueError(f"{key}: must be in [0, 1], got {getattr(self, key)}")
        # Section 3.5: Θinfer_R >= Θinfer_O >= Θkeep_O >= Θkeep_R.
        chain = ("infer_regular", "infer_optional", "keep_optional", "keep_regular")
        for hi, lo in zip(chain, chain[1:], strict=False):
            if getattr(self, hi) < getattr(self, lo):
                raise ValueError(f"{lo}: must be <= {hi} (section 3.5), got {getattr(self, lo)} > {getattr(self, hi)}")
        if self.learn <= 0:
            raise ValueError(f"learn: must be > 0, got {self.learn}")

    def alignment(self, kind: str) -> tuple[float, float]:
        """(Θinfer, Θkeep) for a regular or optional attribute type (Algorithm 4, line 2)."""
        return (self.infer_regular, self.keep_regular) if kind == "regular" else (self.infer_optional,
                                                                                    self.keep_optional)


@dataclass(frozen=True, slots=True)
class DomainSchema(Settings):
    """Σ = ΣR ∪ ΣO with its pivot π ∈ ΣR, disjointness constraints and thresholds."""

    name: str = ""
    description: str = ""
    pivot: str = "price"
    attributes: dict[str, AttributeSpec] = dataclasses.field(default_factory=FrozenMap)
    disjoint: tuple[tuple[str, ...], ...] = ()    # pairs (ρ1, ρ2): ρ1 ∧ ρ2 → ⊥
    thresholds: AmberThresholds = AmberThresholds()

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("name: must be a non-empty string")
        if not self.attributes:
            raise ValueError("attributes: a domain needs at least one attribute type")
        known = ", ".join(self.attributes)
        if self.pivot not in self.attributes:
            raise ValueError(f"pivot: {self.pivot!r} is not an attribute; known: {known}")
        if self.attributes[self.pivot].kind != "regular":
            raise ValueError(f"pivot: {self.pivot!r} must be a regular attribute type (π ∈ ΣR, section 3.1)")
        for i, pair in enumerate(self.disjoint):
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ValueError(f"disjoint[{i}]: expected two different attribute names, got {list(pair)}")
            for name in pair:
                if name not in self.attributes:
                    raise ValueError(f"disjoint[{i}]: {name!r} is not an attribute; known: {known}")

    @property
    def regular(self) -> tuple[str, ...]:
        """ΣR in file order."""
        return tuple(n for n, a in self.attributes.items() if a.kind == "regular")

    @property
    def optional(self) -> tuple[str, ...]:
        """ΣO in file order."""
        return tuple(n for n, a in self.attributes.items() if a.kind == "optional")

    def alignment_thresholds(self) -> dict[str, tuple[float, float]]:
        """Attribute type -> (Θinfer, Θkeep), the form `alignment.align_records` takes."""
        return {n: self.thresholds.alignment(a.kind) for n, a in self.attributes.items()}

    def are_disjoint(self, a: str, b: str) -> bool:
        """Whether the schema forbids one value to be of both types (ρ1 ∧ ρ2 → ⊥)."""
        return (a, b) in self.disjoint or (b, a) in self.disjoint


def packaged_schemas() -> list[str]:
    """Names of the domains shipped in conf/amber/."""
    folder = resources.files("pagesieve.conf").joinpath("amber")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def _is_path(name_or_path: str | Path) -> bool:
    text = str(name_or_path)
    return isinstance(name_or_path, Path) or "/" in text or "\\" in text or text.endswith(".toml")


def load_schema(name_or_path: str | Path, *overrides: dict[str, Any]) -> DomainSchema:
    """A domain schema: a packaged name (`real_estate`) or the path of a TOML file, checked.

    Args:
        name_or_path: `conf/amber/<name>.toml` in the package, or a file path (anything with a slash or
            ending in .toml). Relative gazetteer paths in a file are read relative to that file.
        overrides: dicts applied over the file (e.g. `{"thresholds": {"dist": 3}}`); nested tables replace
            the file's table as a whole.

    Returns:
        The frozen, hashable DomainSchema.

    Raises:
        ConfigError: a missing file, bad TOML, an unknown key, a wrong type, a pivot or disjoint pair naming
            no attribute, an unknown annotator or a missing gazetteer; the message names the file and key.
    """
    if _is_path(name_or_path):
        path = Path(name_or_path)
        data = load_file(path)
        source, base = str(path), path.resolve().parent
    else:
        name = str(name_or_path)
        file = resources.files("pagesieve.conf").joinpath("amber", f"{name}.toml")
        if not file.is_file():
            raise ConfigError(f"schema {name!r}: no such packaged domain; known: {', '.join(packaged_schemas())}")
        data = tomllib.loads(file.read_text("utf-8"))
        source, base = f"conf/amber/{name}.toml", None
    data.setdefault("name", Path(str(name_or_path)).stem)
    try:
        schema = build_settings(DomainSchema, data, *overrides)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from exc
    return _resolve_gazetteers(schema, source, base)


def _resolve_gazetteers(schema: DomainSchema, source: str, base: Path | None) -> DomainSchema:
    """Relative gazetteer paths made absolute (relative to the schema file); each must exist."""
    attributes = {}
    for attr, spec in schema.attributes.items():
        resolved = []
        for i, entry in enumerate(spec.gazetteers):
            try:
                path = gazetteer_path(entry, base)      # checks that it exists
                # a packaged name stays a name, so the settings mean the same on every Spark worker
                resolved.append(entry if is_gazetteer_name(entry) else str(path))
            except FileNotFoundError as exc:
                raise ConfigError(f"{source}: attributes.{attr}.gazetteers[{i}]: {exc}") from exc
        attributes[attr] = dataclasses.replace(spec, gazetteers=tuple(resolved))
    return dataclasses.replace(schema, attributes=FrozenMap(attributes))
