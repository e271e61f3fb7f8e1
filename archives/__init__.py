"""Archives in, pages out, no Spark: the WARC/ARC/ClueWeb and HTML-folder readers (one row per record) and
the pages writer (one archive -> Parquet files + a commit marker). Used by the ingest job; importable by the
spiders and the stream job alike."""

from pagesieve.archives.archive import HTML_MEDIA_TYPES, iter_records
from pagesieve.archives.clueweb22 import read_clueweb22_document
from pagesieve.archives.inputs import iter_html_files, list_inputs, read_input
from pagesieve.archives.payload import decode_payload
from pagesieve.archives.profiles import PROFILES
from pagesieve.archives.random_access import format_record, read_record_at

__all__ = ["HTML_MEDIA_TYPES", "PROFILES", "decode_payload", "format_record", "iter_html_files", "iter_records",
           "list_inputs", "read_clueweb22_document", "read_input", "read_record_at"]
