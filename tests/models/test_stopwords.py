"""Stop words for the page's language (models/page/stopwords.py)."""

from pagesieve.models.page.stopwords import page_stopwords, stopwords_for
from pagesieve.models.web2text.features import stopwords


def test_english_keeps_the_papers_list():
    assert stopwords_for("en") == stopwords()


def test_languages_of_the_pools_get_justext_lists_of_whole_words():
    for code, word in (("de", "und"), ("es", "que"), ("pl", "nie"), ("fr", "les"), ("pt", "não"), ("ru", "что")):
        stop = stopwords_for(code)
        assert stop and word in stop, code
        assert all(w.isalnum() or "_" in w for w in stop), code       # no '"die' or 'ab.' tokens


def test_a_language_without_a_list_gets_none():
    assert stopwords_for("zh") is None
    assert stopwords_for(None) is None


def test_the_fallback_is_the_pages_frequent_short_words():
    texts = ["ka mea ka nui", "ka mea i te ao", "te whare nui o te iwi"]
    stop = page_stopwords(texts)
    assert {"ka", "mea", "te", "nui"} <= stop
    assert "whare" not in stop and "iwi" not in stop            # long, or once only
