"""Source profiles: which reader (and which quirks) a file needs, and detecting it from its first record.

| profile     | reader                                   | detected by (`auto`)                                        |
|-------------|------------------------------------------|-------------------------------------------------------------|
| `arc`       | warcio (`arc.py`)                        | `filedesc://` at the start (or an .arc name and no `WARC/`) |
| `clueweb09` | the lenient reader (`lenient.py`)        | `WARC/0.18`, or a first record with a `clueweb09-` TREC id  |
| `clueweb12` | FastWARC, the lenient reader as fallback | a `clueweb12-` TREC id, or a warcinfo naming ClueWeb12      |
| `clueweb22` | the lenient reader, bodies without HTTP  | `ClueWeb22-ID`, or a warcinfo without Content-Length        |
|             |                                          | followed by records whose block has no HTTP header          |
| `warc`      | FastWARC, the lenient reader as fallback | anything else                                               |
"""

from __future__ import annotations

import io
from itertools import islice
from typing import IO

from pagesieve.archives.block import split_http
from pagesieve.archives.gzip_members import GZIP_MAGIC, GzipMembers
from pagesieve.archives.lenient import RawRecord, iter_lenient

__all__ = ["LENIENT_PROFILES", "PROFILES", "check_profile", "detect_profile", "sniff"]

PROFILES = ("auto", "warc", "arc", "clueweb09", "clueweb12", "clueweb22")
LENIENT_PROFILES = frozenset({"clueweb09", "clueweb22"})  # read by the lenient reader from the start
_HEAD = 1 << 16  # decompressed bytes looked at: the first record, and more for ClueWeb22


def check_profile(profile: str) -> str:
    """`profile` if it is one of PROFILES.

    Raises:
        ValueError: naming the choices.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: choose one of {', '.join(PROFILES)}")
    return profile


def sniff(fh: IO[bytes]) -> tuple[bool, bytes]:
    """(gzip-compressed?, up to 64 KiB of decompressed data) from the start of `fh`, rewound after."""
    raw = fh.read(4096)
    fh.seek(0)
    if not raw.startswith(GZIP_MAGIC):
        return False, raw
    members = GzipMembers(fh)  # reads on through members: a member per record holds little each
    head = bytearray()
    while len(head) < _HEAD and (chunk := members.read(_HEAD - len(head))):
        head += chunk
    fh.seek(0)
    return True, bytes(head)


def detect_profile(head: bytes, path: str) -> str:
    """The profile of a file from its first (decompressed) bytes; see the module docstring.

    Args:
        head: the start of the decompressed file (as from `sniff`).
        path: its name; an `.arc`/`.arc.gz` name counts only when the content is not WARC.

    Returns:
        One of PROFILES other than `auto`.
    """
    # Trust the content before the name: both ARC samples start with `filedesc://`.
    if head.startswith(b"filedesc://") or (
            not head.startswith(b"WARC/") and path.lower().endswith((".arc", ".arc.gz"))):
        return "arc"
    records = [r for r in islice(iter_lenient(io.BytesIO(head), keep=len(head)), 4) if isinstance(r, RawRecord)]
    if not records or records[0].offset != 0:
        return "warc"  # nothing readable at the start: FastWARC and then the lenient reader will say why
    first = records[0]
    trec = (first.get("WARC-TREC-ID") or "").strip().lower()
    if first.version == "WARC/0.18" or trec.startswith("clueweb09-"):
        return "clueweb09"  # `clueweb09-en0000-00-excerpt.warc.gz`
    if first.get("ClueWeb22-ID") or trec.startswith("clueweb22-"):
        return "clueweb22"
    if trec.startswith("clueweb12-"):
        return "clueweb12"
    if (first.get("WARC-Type") or "").strip().lower() == "warcinfo":
        # `clueweb12-0000tw-00-excerpt.warc.gz`: "isPartOf: ClueWeb12", software Heritrix 3.1.1.
        if b"clueweb12" in first.block.lower():
            return "clueweb12"
        # ClueWeb22 (docs/archives.md): the warcinfo has no Content-Length and blocks hold bare HTML.
        followers = [r for r in records[1:] if (r.get("WARC-Type") or "").strip().lower() == "response"]
        if first.declared is None and followers and all(split_http(r.block) is None for r in followers):
            return "clueweb22"
    return "warc"
