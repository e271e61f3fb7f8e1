"""What Web2Text's English stopword features do to non-English pages: how much text it keeps, against cnr and
trafilatura, on English and on non-English real archive pages.

Web2Text's block features include `has_stopword` and `stopword_ratio` over `models/web2text/stopwords_en.txt`
(175 English words), for the block and its ancestors: a block of German or Japanese prose scores like a
block of no prose at all. A page's language is py3langid's on all its visible text (`all_text`), so that no
cleaner's choice decides it; pages whose visible text has fewer than 50 letters are left out.

    .venv/bin/python scripts/eval/web2text_languages.py
"""

from __future__ import annotations

import argparse
import collections
import logging
import statistics

from language_pages import archive_pages, clean_texts

from pagesieve.models.page.language import LanguageID, build_detector, identify_language

METHODS = ("web2text", "cnr", "trafilatura")


def main() -> None:
    # no options; the parser gives `--help` (and refuses a stray argument) instead of starting the run
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    logging.disable(logging.WARNING)
    pages = archive_pages()
    visible = clean_texts(pages, "all_text")
    settings, detect = LanguageID(), build_detector("py3langid")
    language = [identify_language(t, detect, settings)[0] for t in visible]
    kept = {m: clean_texts(pages, m) for m in METHODS}
    groups: dict[str, list[int]] = collections.defaultdict(list)
    for i, lang in enumerate(language):
        if lang:
            groups["en" if lang == "en" else "non-en"].append(i)
    print(f"{len(pages)} archive pages; by the language of their visible text: "
          + ", ".join(f"{k} {len(v)}" for k, v in groups.items())
          + "; non-English: " + ", ".join(f"{k}={v}" for k, v in collections.Counter(
              language[i] for i in groups["non-en"]).most_common()))
    print(f"\n{'group':<8} {'method':<12} {'pages':>5} {'kept nothing':>13} {'median kept/visible':>20} "
          f"{'mean kept chars':>16}")
    for group, index in groups.items():
        for m in METHODS:
            nothing = sum(not kept[m][i].strip() for i in index)
            ratio = statistics.median(len(kept[m][i]) / max(len(visible[i]), 1) for i in index)
            mean = statistics.mean(len(kept[m][i]) for i in index)
            print(f"{group:<8} {m:<12} {len(index):>5} {nothing:>5} ({nothing / len(index):>5.1%}) "
                  f"{ratio:>20.3f} {mean:>16.0f}")
    print("\nnon-English pages, chars kept (visible / web2text / cnr / trafilatura):")
    for i in groups["non-en"]:
        print(f"  {language[i]:<3} {len(visible[i]):>6} / " + " / ".join(f"{len(kept[m][i]):>5}" for m in METHODS)
              + f"  {pages[i].page.url}")


if __name__ == "__main__":
    main()
