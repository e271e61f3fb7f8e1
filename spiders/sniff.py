"""Is it HTML? The Content-Type says so first; the first bytes of the body have the last word.

A PDF or an image served as text/html (a misconfigured server, a CMS download link) would otherwise land
as a page that every cleaner marks `not_html`: cheaper to skip it at crawl time.
"""

from __future__ import annotations

__all__ = ["BINARY_MAGIC", "html_by_header", "sniff_html"]

# File signatures of the non-HTML bodies a crawler meets most (PDF, images, archives, fonts, media, office files)
BINARY_MAGIC = (b"%PDF-", b"\x89PNG", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b",
                b"BM", b"RIFF", b"OggS", b"ID3", b"wOFF", b"wOF2", b"\x00\x00\x01\x00", b"\xd0\xcf\x11\xe0",
                b"7z\xbc\xaf", b"Rar!", b"%!PS", b"fLaC", b"\x1aE\xdf\xa3")


def html_by_header(media: str | None, html_types: tuple[str, ...] | list[str]) -> bool | None:
    """True/False when the media type decides, None when there is none (then sniffing decides)."""
    if not media:
        return None
    return media in html_types


def sniff_html(body: bytes, n: int = 1024) -> bool:
    """True when the first `n` bytes look like markup: no known binary signature, no NUL byte, and a `<`."""
    head = body[:n].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head or head.startswith(BINARY_MAGIC):
        return False
    if b"\x00" in head:          # UTF-16 HTML exists but is rare; binary formats are full of NULs
        return False
    return b"<" in head
