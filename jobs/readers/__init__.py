"""Archive readers for the ingest job: WARC/ARC files and saved HTML files -> READER_ROWS dicts."""

from pagesieve.jobs.readers.archive import HTML_MEDIA_TYPES, iter_records
from pagesieve.jobs.readers.clueweb22 import read_clueweb22_document
from pagesieve.jobs.readers.inputs import iter_html_files, list_inputs, read_input
from pagesieve.jobs.readers.payload import decode_payload
from pagesieve.jobs.readers.profiles import PROFILES
from pagesieve.jobs.readers.random_access import format_record, read_record_at

__all__ = ["HTML_MEDIA_TYPES", "PROFILES", "decode_payload", "format_record", "iter_html_files", "iter_records",
           "list_inputs", "read_clueweb22_document", "read_input", "read_record_at"]
