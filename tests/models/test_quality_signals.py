"""Quality signals on texts small enough to count by hand, and the Gopher / C4 rules on real pages."""

from __future__ import annotations

import pytest
from lxml import html

from pagesieve.models.page import visible_text
from pagesieve.models.quality import SIGNAL_NAMES, QualityRules, compute_signals, failing_rules, judge
from pagesieve.settings import ConfigError, build_settings

# 4 lines, 2 paragraphs; 15 whitespace words, 14 after normalising ("-" is only punctuation):
# the cat and the dog the cat and the dog a list item tag -> 42 characters, mean length 3.0
HAND = "The cat and the dog.\nThe cat and the dog.\n\n- a list item...\n#tag"


def test_gopher_quality_signals_counted_by_hand():
    s = compute_signals(HAND)
    assert s["words"] == 14 and s["mean_word_length"] == 3.0
    assert s["hash_ratio"] == 1 / 14 and s["ellipsis_ratio"] == 1 / 14
    assert s["bullet_lines"] == 0.25 and s["ellipsis_lines"] == 0.25     # "- a list item..." of 4 lines
    assert s["alpha_words"] == 14 / 15                                     # "-" has no letter
    assert s["stop_words"] == 2                                            # the, and


def test_repetition_signals_counted_by_hand():
    s = compute_signals(HAND)
    assert s["dup_para_frac"] == 0.0 and s["dup_para_char_frac"] == 0.0
    assert s["dup_line_frac"] == 0.25 and s["dup_line_char_frac"] == 20 / 60    # 20+20+16+4 line characters
    assert s["top_2gram"] == 12 / 42       # "the cat" twice: 4 words of 3 characters
    assert s["top_3gram"] == 18 / 42       # "the cat and" twice
    assert s["top_4gram"] == 24 / 42       # "the cat and the" twice
    assert s["dup_5gram"] == 15 / 42       # the second "the cat and the dog"; the first is not a repeat
    assert [s[f"dup_{n}gram"] for n in range(6, 11)] == [0.0] * 5


def test_overlapping_top_ngram_is_not_counted_twice():
    s = compute_signals("la la la la la la la la la la")
    assert s["top_2gram"] == 1.0 and s["top_4gram"] == 1.0


def test_c4_signals_follow_its_line_order():
    text = "We use cookies to improve your experience.\nEnable JavaScript to view the {comments} here.\n" \
           "Lorem ipsum dolor sit amet."
    s = compute_signals(text)
    assert s["end_punct_lines"] == 1.0 and s["policy_lines"] == 1 / 3 and s["javascript_lines"] == 1 / 3
    assert s["lorem_ipsum"] is True
    assert s["curly_bracket"] is False     # C4's code drops the JavaScript line before it looks for "{"
    assert s["c4_sentences"] == 1          # the policy and JavaScript lines are not kept
    assert compute_signals("Use the {braces} in the code.")["curly_bracket"] is True
    assert compute_signals("Menu {\nHome")["curly_bracket"] is False    # unpunctuated lines are dropped first


def test_every_signal_is_computed_and_empty_text_is_defined():
    s = compute_signals("")
    assert tuple(s) == SIGNAL_NAMES
    assert s["words"] == 0 and s["c4_sentences"] == 0 and s["dup_line_frac"] == 0.0
    assert judge("")[1] == "gopher_few_words"


def test_rules_follow_the_configured_order_and_can_be_switched_off():
    signals = compute_signals(HAND)
    assert failing_rules(signals, QualityRules()) == [
        "gopher_few_words", "gopher_dup_line_chars", "gopher_top_2gram", "gopher_top_3gram", "gopher_top_4gram",
        "gopher_dup_5gram", "c4_few_sentences"]    # 1 of 4 lines repeats: under 0.3, but a third of the characters
    reordered = QualityRules(rules=("gopher_dup_line_chars", "gopher_few_words"))
    assert judge(HAND, reordered)[1] == "gopher_dup_line_chars"
    assert judge(HAND, QualityRules(rules=()))[1] is None
    assert judge(HAND, QualityRules(rules=("gopher_few_words",), min_words=14))[1] is None


def test_bad_rule_settings_name_the_key():
    with pytest.raises(ConfigError, match=r"filter\.rules: unknown rule\(s\) gopher_nope"):
        build_settings(QualityRules, {"rules": ["gopher_nope"]}, section="filter")
    with pytest.raises(ConfigError, match=r"filter\.max_dup_line_frac: expected float"):
        build_settings(QualityRules, {"max_dup_line_frac": "high"}, section="filter")
    with pytest.raises(ConfigError, match=r"filter\.max_top_2gram must be >= 0"):
        build_settings(QualityRules, {"max_top_2gram": -0.1}, section="filter")


# ---- real pages ----

def test_a_real_cookie_banner_is_removed_by_c4s_sentence_rule(shared_data):
    page = html.fromstring((shared_data / "google-trends-2017" / "input" / "gt_137.html").read_bytes())
    banner = visible_text(page.xpath('//div[contains(@class, "optanon-alert-box-wrapper")]')[0])
    assert banner.startswith("We use cookies to understand how you use our site")
    signals, rule = judge(banner)
    # 50 words: Gopher's length rule lets it through; C4 drops its one long line (a policy line) and the
    # three short ones, which leaves no sentence
    assert signals["words"] == 50 and signals["policy_lines"] == 0.25 and signals["c4_sentences"] == 0
    assert rule == "c4_few_sentences" and failing_rules(signals, QualityRules()) == ["c4_few_sentences"]


def test_a_real_repeated_lines_page_is_removed_by_gophers_repetition_rules(shared_data):
    # a mailing-list archive index: "by Date" / "by Thread", 36 times each
    text = (shared_data / "cleaneval" / "gold" / "134.txt").read_text("utf-8")
    signals, rule = judge(text)
    assert rule == "gopher_dup_lines" and signals["dup_line_frac"] > 0.3 and signals["dup_line_char_frac"] > 0.2
    assert {"gopher_dup_line_chars", "gopher_dup_5gram", "gopher_dup_10gram"} <= set(
        failing_rules(signals, QualityRules()))


def test_a_real_list_of_links_is_removed_by_c4s_sentence_rule(shared_data):
    page = html.fromstring((shared_data / "dragnet" / "input" / "R118.html").read_bytes())
    # a blog's sidebar: 95 category and blog links
    links = visible_text(page.xpath("/html/body/div[2]/div[2]/div[2]/ul")[0])
    signals, rule = judge(links)
    assert signals["words"] > 250 and signals["c4_sentences"] == 0 and signals["end_punct_lines"] < 0.05
    assert rule == "c4_few_sentences" and failing_rules(signals, QualityRules()) == ["c4_few_sentences"]


@pytest.mark.parametrize("dataset", ["scrapinghub", "l3s-gn1"])
def test_real_news_articles_from_the_benchmark_gold_are_kept(shared_data, dataset):
    files = sorted((shared_data / dataset / "gold").glob("*.txt"))
    verdicts = {f.stem: judge(f.read_text("utf-8", errors="replace"))[1] for f in files}
    kept = sum(v is None for v in verdicts.values())
    # measured: scrapinghub 88/103 (2026-11-26; 22/24 before 79 pages were added: 8 articles in other
    # languages fail Gopher's English stop-word rule, as they do in Gopher; a Japanese article has no spaces,
    # so 18 "words"; a Portuguese race calendar is 24 % numbers), l3s-gn1 370/416 (C4 drops 33 short wire
    # stories of under 5 sentences, as it would have on the web)
    assert kept / len(files) >= {"scrapinghub": 0.85, "l3s-gn1": 0.88}[dataset]


def test_the_packaged_filter_settings_are_the_papers_thresholds():
    from pagesieve.jobs.settings import FilterSettings

    packaged = FilterSettings.load()
    assert packaged.rules_only() == QualityRules() and packaged.min_partitions == 0
    assert (packaged.min_words, packaged.max_dup_line_frac, packaged.max_top_2gram, packaged.max_dup_10gram,
            packaged.min_sentences) == (50, 0.30, 0.20, 0.10, 5)
