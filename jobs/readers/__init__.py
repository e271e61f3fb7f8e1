"""Archive readers for the ingest job: WARC/ARC files and saved HTML files -> READER_ROWS dicts."""

from pagesieve.jobs.readers.archive import HTML_MEDIA_TYPES, iter_records
from pagesieve.jobs.readers.inputs import iter_html_files, list_inputs, read_input
from pagesieve.jobs.readers.payload import decode_payload

__all__ = ["HTML_MEDIA_TYPES", "decode_payload", "iter_html_files", "iter_records", "list_inputs", "read_input"]
