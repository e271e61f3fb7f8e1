"""Bytes + HTTP headers -> text.

Order of evidence, as browsers use it: byte-order mark, HTTP charset, `<meta charset>` /
`http-equiv` in the first KB, then statistical detection. A label is used only if it decodes the
bytes without error; a wrong or unknown label falls through to the next source of evidence, and
the last resort is a lossy UTF-8 decode. Decoding never raises on bad bytes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["DecodedText", "decode_body", "normalise_charset", "looks_binary"]

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:\-]+)""", re.IGNORECASE)
_PREFIX_BYTES = 4096

# WHATWG encoding labels that browsers remap: pages labelled latin-1/ascii are decoded as cp1252.
_ALIASES = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252",
    "us-ascii": "cp1252", "ascii": "cp1252", "x-sjis": "shift_jis", "gb2312": "gb18030", "gbk": "gb18030",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "tis-620": "cp874", "iso-8859-9": "cp1254",
    "utf8": "utf-8", "unicode-1-1-utf-8": "utf-8", "x-user-defined": "cp1252",
}


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Decoded page text and where its encoding came from (bom, http, meta, detected, fallback)."""

    text: str
    encoding: str
    source: str
    lossy: bool = False


def normalise_charset(label: str | bytes | None) -> str | None:
    """A Python codec name for an HTTP/meta charset label, or None if the label is unusable."""
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    name = label.strip().strip("\"'").lower()
    name = _ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):  # ValueError: a NUL byte inside the label
        return None


def looks_binary(body: bytes, sample: int = 2048, max_control_share: float = 0.05) -> bool:
    """True when many of the first bytes are control bytes (images, archives, junk), not text.

    Uniform random bytes have ~11% control bytes; real HTML in any 8-bit encoding well under 1%.

    UTF-16 text has many NULs but starts with a BOM, so BOM-prefixed bodies are never binary.
    """
    head = body[:sample]
    if not head or head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))     # counted in C: every page runs this
    return controls / len(head) > max_control_share


_CONTROL_BYTES = bytes(b for b in range(256) if b < 9 or 13 < b < 32 or b == 127)


def _detect(body: bytes) -> str | None:
    from resiliparse.parse.encoding import detect_encoding

    return normalise_charset(detect_encoding(body[:65536]))


def decode_body(body: bytes, charset_hint: str | None = None) -> DecodedText:
    """Decode an HTML body to text; never raises on bad bytes.

    Args:
        body: the payload, after transfer and content decoding.
        charset_hint: charset label from the HTTP header, if any (may be wrong or unknown).

    Returns:
        The text and the evidence used. `lossy` is True when no candidate decoded the bytes
        cleanly and replacement characters were inserted.
    """
    for bom, name in _BOMS:
        if body.startswith(bom):
            return DecodedText(body[len(bom):].decode(name, "replace"), name, "bom")
    candidates: list[tuple[str, str]] = []
    if (http := normalise_charset(charset_hint)) is not None:
        candidates.append((http, "http"))
    if (match := _META_CHARSET.search(body[:_PREFIX_BYTES])) and (meta := normalise_charset(match.group(1))):
        candidates.append((meta, "meta"))
    for name, source in candidates:
        if name.startswith("utf-16"):  # a UTF-16 label on a BOM-less page read as ASCII is a lie
            continue
        try:
            return DecodedText(body.decode(name), name, source)
        except (UnicodeDecodeError, LookupError):
            continue
    try:
        return DecodedText(body.decode("utf-8"), "utf-8", "detected")
    except UnicodeDecodeError:
        pass
    # cp1252 after detection: CleanEval page 27 (curly quotes, no label) is detected as utf-8,
    # which cannot decode it; cp1252 is the most common legacy web encoding.
    for name in (_detect(body), "cp1252"):
        if name is None:
            continue
        try:
            return DecodedText(body.decode(name), name, "detected")
        except (UnicodeDecodeError, LookupError):
            pass
    return DecodedText(body.decode("utf-8", "replace"), "utf-8", "fallback", lossy=True)
