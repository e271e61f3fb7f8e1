"""Checks of local input files, made before a job or a crawl starts: one line naming the option, no traceback."""

from __future__ import annotations

import os
import stat

from .settings import ConfigError

__all__ = ["check_readable_file"]


def check_readable_file(path: str, flag: str) -> None:
    """A local input file must be a regular file this process can open (ConfigError naming `flag`).

    Checked by kind before it is opened: a FIFO would block the open, and a folder or a dangling symlink
    only fails later, deep in a reader.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        dangling = " (a symlink to nothing)" if os.path.islink(path) else ""
        raise ConfigError(f"{flag} {path}: no such file{dangling}") from None
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{flag} {path}: is a folder, expected a file")
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{flag} {path}: is not a regular file (a pipe, socket or device)")
    try:
        with open(path, "rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot be read: {exc.strerror}") from None
