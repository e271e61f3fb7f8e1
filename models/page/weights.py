"""Where a trained model's two files come from: a name packaged with its method, or a path the user gives.

A model is `<stem>.npz` (plain arrays, read with `allow_pickle=False`) and `<stem>.json` (how it was trained,
and the inputs it expects). Each neural method ships its models in `<its package>/weights/` and loads them by
name; any other value is a path to a stem, with or without `.npz`. `write_model_files` writes the pair the way
every training script saves it (the same weights and card give the same bytes).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["check_model_files", "model_check", "read_model_files", "write_model_files"]


def read_model_files(model: str | Path, package: str, packaged: dict[str, str], what: str, trainer: str
                     ) -> tuple[bytes, dict[str, Any]]:
    """The `.npz` bytes and parsed `.json` of `model`: a key of `packaged` (name -> stem under
    `package`'s `weights/`) or a path. `what` names the model kind and `trainer` the script that writes it,
    for the error messages.

    Raises:
        FileNotFoundError: a packaged model that is missing, or no `<stem>.npz` at the path.
    """
    npz_file, meta_file = _model_files(model, package, packaged, what, trainer)
    return npz_file.read_bytes(), json.loads(meta_file.read_text("utf-8"))


def check_model_files(model: str, package: str, packaged: dict[str, str], what: str, trainer: str) -> None:
    """ValueError (one line) unless `model` names a packaged model or a path with its `.npz` and `.json`: a
    settings check, so that a missing model fails on the driver, not in every Spark worker."""
    try:
        _model_files(model, package, packaged, what, trainer)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None


def model_check(package: str, packaged: dict[str, str], what: str, trainer: str) -> Callable[[str], None]:
    """A settings `field_checks` entry for the `model` field of the method in `package` (no torch imported)."""
    def check(model: str) -> None:
        check_model_files(model, package, packaged, what, trainer)

    return check


def _model_files(model: str | Path, package: str, packaged: dict[str, str], what: str, trainer: str) -> tuple:
    """(npz, json) of `model`, each a Path or an importlib.resources Traversable; FileNotFoundError if one is
    missing."""
    if str(model) in packaged:
        # importlib.resources: works from site-packages, an editable install and a --py-files zip alike
        folder = resources.files(package).joinpath("weights")
        stem = packaged[str(model)]
        npz_file, meta_file = folder.joinpath(stem + ".npz"), folder.joinpath(stem + ".json")
        if not npz_file.is_file():
            raise FileNotFoundError(f"packaged {what} model {model!r} is missing ({stem}.npz); train it with {trainer}")
        return npz_file, meta_file
    path = Path(model)
    stem = path.with_suffix("") if path.suffix == ".npz" else path
    if not stem.with_suffix(".npz").is_file():
        raise FileNotFoundError(f"no {what} model at {stem}.npz; packaged ones: {', '.join(packaged)}")
    if not stem.with_suffix(".json").is_file():
        raise FileNotFoundError(f"{what} model {stem}.npz has no {stem.name}.json beside it (its model card)")
    return stem.with_suffix(".npz"), stem.with_suffix(".json")


def write_model_files(stem: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> tuple[Path, Path]:
    """Write `<stem>.npz` (the arrays, compressed) and `<stem>.json` (the model card `meta`), creating the folder;
    returns both paths. The card has one line per key: readable, and its long lists (input names, training
    curves, a vocabulary) stay one line each."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    npz, card = stem.with_suffix(".npz"), stem.with_suffix(".json")
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    npz.write_bytes(buffer.getvalue())
    lines = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in meta.items())
    card.write_text("{\n" + lines + "\n}\n", encoding="utf-8")
    return npz, card
