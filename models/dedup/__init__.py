"""Duplicate detection over document text: normalisation, word shingles, MinHash signatures and LSH band keys.

Plain Python and numpy (the MinHash itself is `datasketch`'s); no Spark here, so the same functions serve the
Spark job (`jobs/dedup.py` through `udfs/dedup.py`), the evaluation script and a notebook.

References: Broder, "On the resemblance and containment of documents" (1997) for shingles and MinHash;
Leskovec, Rajaraman and Ullman, "Mining of Massive Datasets", ch. 3.4, for banding (b bands of r rows: a pair of
Jaccard similarity s becomes a candidate with probability 1 - (1 - s^r)^b).
"""

from .minhash import MinHashSigner, candidate_probability
from .text import Normalisation, jaccard, normalise_text, text_hash, word_shingles

__all__ = ["MinHashSigner", "Normalisation", "candidate_probability", "jaccard", "normalise_text", "text_hash",
           "word_shingles"]
