"""pandas UDFs of the dedup job: a signature per document, a Jaccard similarity per candidate pair.

Each is built from plain settings values on the driver; a task builds its `MinHashSigner` once (the
permutations: 128 pairs of integers, microseconds) and runs it over every Arrow batch of its partition.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from pagesieve.models.dedup import MinHashSigner, Normalisation, jaccard

__all__ = ["SIGNATURE_TYPE", "signer_of", "signature_udf", "jaccard_udf"]

SIGNATURE_TYPE = "text_hash string, bands array<bigint>"


def signer_of(settings) -> MinHashSigner:
    """The signer for a `DedupSettings` (jobs/settings.py)."""
    norm = Normalisation(lowercase=settings.lowercase, strip_punctuation=settings.strip_punctuation,
                         mask_digits=settings.mask_digits)
    return MinHashSigner(num_perm=settings.num_perm, bands=settings.bands, rows=settings.rows,
                         shingle_size=settings.shingle_size, seed=settings.seed, norm=norm)


def signature_udf(settings):
    """A pandas UDF: text -> struct(text_hash, bands); both null for a null text or one with no words."""
    from pyspark.sql.functions import pandas_udf

    @pandas_udf(SIGNATURE_TYPE)
    def signature(texts: Iterator[pd.Series]) -> Iterator[pd.DataFrame]:
        signer = signer_of(settings)
        for batch in texts:
            signed = [signer.sign(t) for t in batch]
            yield pd.DataFrame({"text_hash": [h for h, _ in signed], "bands": [b for _, b in signed]})

    return signature


def jaccard_udf(settings):
    """A pandas UDF: (text_a, text_b) -> Jaccard similarity of their shingle sets (double)."""
    from pyspark.sql.functions import pandas_udf

    @pandas_udf("double")
    def similarity(pairs: Iterator[tuple[pd.Series, pd.Series]]) -> Iterator[pd.Series]:
        signer = signer_of(settings)
        for a, b in pairs:
            yield pd.Series([jaccard(signer.shingles(x or ""), signer.shingles(y or ""))
                             for x, y in zip(a, b, strict=True)])

    return similarity
