"""MinHash signatures (datasketch) and LSH band keys for one text at a time."""

from __future__ import annotations

import hashlib
import zlib

import numpy as np

from .text import Normalisation, normalise_text, text_hash, word_shingles

__all__ = ["MinHashSigner", "candidate_probability"]


def candidate_probability(similarity: float, bands: int, rows: int) -> float:
    """Chance that two texts of Jaccard `similarity` share at least one band: 1 - (1 - s^r)^b."""
    return 1.0 - (1.0 - similarity ** rows) ** bands


def _crc32(shingle: bytes) -> int:
    # crc32 runs in C: a whole signature is 1.5x faster than with datasketch's default sha1_hash32 (bench_dedup udf);
    # its poor mixing does not matter because datasketch's affine32 scheme mixes every input with fmix32 first.
    return zlib.crc32(shingle)


class MinHashSigner:
    """Signatures and band keys of texts, the same on every worker for the same settings.

    Args:
        num_perm: MinHash permutations (signature length).
        bands, rows: LSH banding; bands * rows <= num_perm (the rest of the signature is unused).
        shingle_size: words per shingle.
        seed: seeds datasketch's permutations: equal seeds give comparable signatures.
        norm: the text normalisation.

    Raises:
        ValueError: bands * rows > num_perm, or a size below 1.
    """

    def __init__(self, num_perm: int = 128, bands: int = 25, rows: int = 5, shingle_size: int = 5, seed: int = 1,
                 norm: Normalisation | None = None) -> None:
        if min(num_perm, bands, rows, shingle_size) < 1 or bands * rows > num_perm:
            raise ValueError(f"need 1 <= bands * rows <= num_perm, got {bands} * {rows} > {num_perm}")
        self.bands, self.rows, self.shingle_size, self.norm = bands, rows, shingle_size, norm or Normalisation()
        # imported here: datasketch pulls in scipy (~1.4 s), and every `pagesieve run` imports this module whether
        # or not it deduplicates
        from datasketch import MinHash

        # one template; copies share its permutations (what datasketch's MinHash.bulk does)
        self._template = MinHash(num_perm=num_perm, seed=seed, scheme="affine32", hashfunc=_crc32)

    def shingles(self, text: str) -> set[str]:
        """The shingle set of a raw text (normalised first)."""
        return word_shingles(normalise_text(text, self.norm), self.shingle_size)

    def signature(self, shingles: set[str]) -> np.ndarray:
        """MinHash values (num_perm,) of a shingle set, in a stable order (sorted shingles)."""
        m = self._template.copy()
        m.update_batch([s.encode("utf-8") for s in sorted(shingles)])
        return m.hashvalues

    def band_keys(self, signature: np.ndarray) -> list[int]:
        """One signed 64-bit key per band (BLAKE2b of the band's rows): equal keys = the band agrees."""
        rows = np.ascontiguousarray(signature[: self.bands * self.rows], dtype="<u8").reshape(self.bands, self.rows)
        return [int.from_bytes(hashlib.blake2b(band.tobytes(), digest_size=8).digest(), "little", signed=True)
                for band in rows]

    def sign(self, text: str | None) -> tuple[str | None, list[int] | None]:
        """(exact-duplicate hash, band keys) of a raw text; (None, None) when it has no words."""
        if not text:
            return None, None
        normalised = normalise_text(text, self.norm)
        if not normalised:
            return None, None
        shingles = word_shingles(normalised, self.shingle_size)
        return text_hash(normalised), self.band_keys(self.signature(shingles))
