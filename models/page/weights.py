"""Where a trained model's two files come from: a name packaged with its method, or a path the user gives.

A model is `<stem>.npz` (plain arrays, read with `allow_pickle=False`) and `<stem>.json` (how it was trained,
and the inputs it expects). Each neural method ships its models in `<its package>/weights/` and loads them by
name; any other value is a path to a stem, with or without `.npz`.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["read_model_files"]


def read_model_files(model: str | Path, package: str, packaged: dict[str, str], what: str, trainer: str
                     ) -> tuple[bytes, dict[str, Any]]:
    """The `.npz` bytes and parsed `.json` of `model`: a key of `packaged` (name -> stem under
    `package`'s `weights/`) or a path. `what` names the model kind and `trainer` the script that writes it,
    for the error messages.

    Raises:
        FileNotFoundError: a packaged model that is missing, or no `<stem>.npz` at the path.
    """
    if str(model) in packaged:
        # importlib.resources: works from site-packages, an editable install and a --py-files zip alike
        folder = resources.files(package).joinpath("weights")
        stem = packaged[str(model)]
        npz_file, meta_file = folder.joinpath(stem + ".npz"), folder.joinpath(stem + ".json")
        if not npz_file.is_file():
            raise FileNotFoundError(f"packaged {what} model {model!r} is missing ({stem}.npz); train it with {trainer}")
        return npz_file.read_bytes(), json.loads(meta_file.read_text("utf-8"))
    path = Path(model)
    stem = path.with_suffix("") if path.suffix == ".npz" else path
    if not stem.with_suffix(".npz").is_file():
        raise FileNotFoundError(f"no {what} model at {stem}.npz; packaged ones: {', '.join(packaged)}")
    return stem.with_suffix(".npz").read_bytes(), json.loads(stem.with_suffix(".json").read_text("utf-8"))
