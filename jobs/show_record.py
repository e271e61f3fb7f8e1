"""show-record: print the archive record behind a page row (its `source` and `source_offset`).

    pagesieve show-record data/sample/sample.warc.gz 1023
    pagesieve show-record ARCHIVE OFFSET --body > page.html     # the payload bytes only

Reads only that record for gzip-per-record and uncompressed archives; a whole-file gzip archive
(ClueWeb09/12 excerpts) is decompressed from its start up to the offset.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    from pagesieve.archives import PROFILES, format_record, read_record_at

    ap = argparse.ArgumentParser(prog="pagesieve show-record", description=__doc__.splitlines()[0])
    ap.add_argument("archive", help="archive path or URI, as in the pages table's `source` column")
    ap.add_argument("offset", type=int, help="byte offset, as in the `source_offset` column")
    ap.add_argument("--profile", default="auto", choices=PROFILES)
    ap.add_argument("--body", action="store_true", help="write the payload bytes to stdout, nothing else")
    ap.add_argument("--max-bytes", type=int, default=2000, help="body bytes shown (default 2000)")
    args = ap.parse_args(argv)
    row = read_record_at(args.archive, args.offset, profile=args.profile)
    if args.body:
        sys.stdout.buffer.write(row["body"] or b"")
    else:
        print(format_record(row, body_bytes=args.max_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
