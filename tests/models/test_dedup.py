"""Normalisation, shingles, Jaccard and MinHash signatures of `models/dedup` (no Spark)."""

from __future__ import annotations

import pytest

from pagesieve.models.dedup import (
    MinHashSigner,
    Normalisation,
    candidate_probability,
    jaccard,
    normalise_text,
    text_hash,
    word_shingles,
)


def test_normalisation_folds_case_punctuation_digits_and_spaces():
    assert normalise_text("  Posted: 12 March, 2008 —\n\nHELLO  world! ") == "posted 00 march 0000 hello world"
    assert normalise_text("A_B", Normalisation(strip_punctuation=True)) == "a b"
    assert normalise_text("Hello, 2008", Normalisation(lowercase=False, strip_punctuation=False,
                                                        mask_digits=False)) == "Hello, 2008"
    assert normalise_text("--- * ---") == ""


def test_full_width_and_ligature_forms_are_the_same_text_after_nfkc():
    assert text_hash(normalise_text("ｆｉｌｅ ２０２４")) == text_hash(normalise_text("file 2024"))


def test_shingles_are_word_windows_and_a_short_text_is_one_shingle():
    assert word_shingles("a b c d", 3) == {"a b c", "b c d"}
    assert word_shingles("a b", 3) == {"a b"}
    assert word_shingles("", 3) == set()


def test_jaccard_of_sets():
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 0.0


def test_equal_texts_give_equal_signatures_and_band_keys_in_any_instance():
    text = " ".join(f"word{i}" for i in range(200))
    one, two = MinHashSigner(seed=7), MinHashSigner(seed=7)
    assert one.sign(text) == two.sign(text)
    assert one.sign(text)[1] != MinHashSigner(seed=8).sign(text)[1]
    assert len(one.sign(text)[1]) == 25


def test_the_signature_estimates_jaccard():
    signer = MinHashSigner(num_perm=256, bands=32, rows=8)
    a = {f"s{i}" for i in range(1000)}
    b = {f"s{i}" for i in range(500, 1500)}       # Jaccard 1/3
    agree = (signer.signature(a) == signer.signature(b)).mean()
    assert abs(agree - 1 / 3) < 0.1


def test_a_text_without_words_has_no_signature():
    assert MinHashSigner().sign("... !!!") == (None, None)
    assert MinHashSigner().sign(None) == (None, None)


def test_banding_is_checked_and_its_s_curve_is_the_documented_one():
    with pytest.raises(ValueError, match="bands \\* rows"):
        MinHashSigner(num_perm=64, bands=25, rows=5)
    assert candidate_probability(0.8, 25, 5) > 0.999 and candidate_probability(0.3, 25, 5) < 0.06
