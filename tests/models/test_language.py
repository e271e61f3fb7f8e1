"""Language identification of a document's text (`models/page/language.py`): codes, thresholds, both detectors."""

from __future__ import annotations

import functools

import pytest

from pagesieve.models.page.language import DETECTORS, LanguageID, identify_language, iso639_1
from pagesieve.models.page.language import build_detector as build_a_detector

# py3langid loads a 4.5 MB model per detector built (about 0.5 s): build each once for this module
build_detector = functools.cache(build_a_detector)

GERMAN = ("Die Stadtverwaltung hat am Montag beschlossen, die alte Brücke über den Fluss im nächsten Frühjahr "
          "abzureißen und durch einen Neubau zu ersetzen, der auch für Radfahrer sicher ist.")
FRENCH = ("Le conseil municipal a décidé lundi de démolir le vieux pont sur la rivière au printemps prochain et de "
          "le remplacer par un nouvel ouvrage, plus sûr pour les cyclistes.")


@pytest.mark.parametrize(("code", "iso"), [("en", "en"), ("zh-Hant", "zh"), ("iw", "he"), ("pt-BR", "pt"),
                                           ("yue", "zh"), ("un", None), ("xxx", None), ("zxx", None), ("", None),
                                           (None, None), ("fil", "tl")])
def test_codes_become_iso_639_1(code, iso):
    assert iso639_1(code) == iso


@pytest.mark.parametrize("detector", DETECTORS)
def test_both_detectors_name_german_and_french_prose(detector):
    detect = build_detector(detector)
    for text, code in ((GERMAN, "de"), (FRENCH, "fr")):
        language, score = identify_language(text, detect, LanguageID(detector))
        assert language == code and 0.0 < score <= 1.0


@pytest.mark.parametrize("text", [None, "", "Hello there, world.", "1234567890 " * 20, "—– ·· " * 40])
def test_too_few_letters_give_no_language(text):
    assert identify_language(text, build_detector("py3langid"), LanguageID()) == (None, None)


def test_the_threshold_counts_letters_in_the_first_max_chars():
    settings = LanguageID(min_chars=50, max_chars=60)
    detect = build_detector("py3langid")
    assert identify_language("9" * 60 + GERMAN, detect, settings) == (None, None)   # the letters come too late
    assert identify_language(GERMAN, detect, settings)[0] == "de"


def test_a_language_without_an_iso_code_gives_way_to_the_best_one_with_one():
    # py3langid puts Bikol (`bcl`, no ISO 639-1 code) first on the start of this list of language names with
    # counts: cnr's text of ClueWeb09 en0000-00-00006, a directory page
    names = ("Afrikaans 35;Albanian 123;Arabic 297;Armenian 70;Asturian 31;Azerbaijani 22;Basque 501;Belarusian 41;"
             "Bosnian 56;Breton 43;Bulgarian 293;Catalan 4,766;Chinese Simplified 1,872;Chinese 648;Croatian 334;"
             "Czech 2,324;Danish 7,498;Dutch 6,035;Esperanto 1,194;Estonian 101;Faroese 4;Farsi 121;Finnish 1,098;"
             "French 19,435;Frisian 9;Furlan 24;Galician 240;German 41,876;Greek 422;Gujarati 22;Hebrew 969;"
             "Hindi 138;Hungarian 438;Icelandic 37;Indonesian 191;Interlingua 5;Irish 23;Italian 20,183;"
             "Japanese 20,116;Kannada 14;Kashubian 10;Kazakh 3;Korean 293;Kurdish 93;Latin 17;Latvian 32;"
             "Lithuanian 494;Luxembourgish 1;Macedonian 24;Malay 32;Marathi 6;Norwegian 2,451;Occitan 23;Ossetian 3;"
             "Polish 4,188;Portuguese 1,817;Punjabi 16;Romanian 921;Romansh 8;Russian 3,294;Sardinian 84;"
             "Scots Gaelic 25;Serbian 232;Sicilianu 9;Slovak 193;Slovenian 15;Spanish 15,487;Swahili 5;"
             "Swedish 3,902;Tagalog 25;Taiwanese 7;Tamil 34;Tatar 8;Telugu 72;Thai")
    text = "\n\n".join(names.split(";"))
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    assert LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True).classify(text)[0] == "bcl"
    language, score = identify_language(text, build_detector("py3langid"), LanguageID())
    assert language is not None and len(language) == 2 and score < 0.5


def test_an_unknown_detector_is_refused():
    with pytest.raises(ValueError, match="must be one of py3langid, resiliparse, none"):
        LanguageID("cld9")
