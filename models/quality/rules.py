"""The Gopher and C4 document rules over the signals, with the papers' thresholds as defaults.

A rule is a signal, a direction and the settings field holding its threshold. `first_failing_rule`
tries the enabled rules in their configured order and names the first that removes the document.

Defaults: Gopher appendix A.1.1 (50..100,000 words, mean word length 3..10, symbol-to-word ratio 0.1,
bullet lines 90 %, ellipsis lines 30 %, 80 % alphabetic words, 2 stop words) and table A1 (repetition);
C4 section 2.2 ("lorem ipsum", curly bracket, fewer than 5 sentences after its line filter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pagesieve.settings import Settings

from .signals import DUP_NGRAM_SIZES, GOPHER_STOP_WORDS, TOP_NGRAM_SIZES, compute_signals

__all__ = ["Rule", "RULES", "RULE_NAMES", "DEFAULT_RULES", "QualityRules", "failing_rules", "first_failing_rule",
           "judge"]


@dataclass(frozen=True, slots=True)
class Rule:
    """Remove a document when `signal` is below (`min`) or above (`max`) the threshold in settings field
    `threshold`, or when the flag `signal` is set (`flag`, no threshold)."""

    name: str
    signal: str
    kind: str
    threshold: str | None = None

    def fails(self, signals: Mapping[str, float | int | bool], settings: QualityRules) -> bool:
        value = signals[self.signal]
        if self.kind == "flag":
            return bool(value)
        limit = getattr(settings, self.threshold)
        return value < limit if self.kind == "min" else value > limit


RULES: tuple[Rule, ...] = (
    Rule("gopher_few_words", "words", "min", "min_words"),
    Rule("gopher_many_words", "words", "max", "max_words"),
    Rule("gopher_short_words", "mean_word_length", "min", "min_mean_word_length"),
    Rule("gopher_long_words", "mean_word_length", "max", "max_mean_word_length"),
    Rule("gopher_hashes", "hash_ratio", "max", "max_hash_ratio"),
    Rule("gopher_ellipses", "ellipsis_ratio", "max", "max_ellipsis_ratio"),
    Rule("gopher_bullet_lines", "bullet_lines", "max", "max_bullet_lines"),
    Rule("gopher_ellipsis_lines", "ellipsis_lines", "max", "max_ellipsis_lines"),
    Rule("gopher_non_alpha_words", "alpha_words", "min", "min_alpha_words"),
    Rule("gopher_stop_words", "stop_words", "min", "min_stop_words"),
    Rule("gopher_dup_paragraphs", "dup_para_frac", "max", "max_dup_para_frac"),
    Rule("gopher_dup_paragraph_chars", "dup_para_char_frac", "max", "max_dup_para_char_frac"),
    Rule("gopher_dup_lines", "dup_line_frac", "max", "max_dup_line_frac"),
    Rule("gopher_dup_line_chars", "dup_line_char_frac", "max", "max_dup_line_char_frac"),
    *(Rule(f"gopher_top_{n}gram", f"top_{n}gram", "max", f"max_top_{n}gram") for n in TOP_NGRAM_SIZES),
    *(Rule(f"gopher_dup_{n}gram", f"dup_{n}gram", "max", f"max_dup_{n}gram") for n in DUP_NGRAM_SIZES),
    Rule("c4_lorem_ipsum", "lorem_ipsum", "flag"),
    Rule("c4_curly_bracket", "curly_bracket", "flag"),
    Rule("c4_few_sentences", "c4_sentences", "min", "min_sentences"),
    # C4 drops these *lines*, not the page; as page rules they are off unless listed in `rules`
    Rule("c4_unpunctuated_lines", "end_punct_lines", "min", "min_end_punct_lines"),
    Rule("c4_policy_lines", "policy_lines", "max", "max_policy_lines"),
    Rule("c4_javascript_lines", "javascript_lines", "max", "max_javascript_lines"),
)
RULE_NAMES = tuple(r.name for r in RULES)
_BY_NAME = {r.name: r for r in RULES}
_OFF_BY_DEFAULT = {"c4_unpunctuated_lines", "c4_policy_lines", "c4_javascript_lines"}
DEFAULT_RULES = tuple(n for n in RULE_NAMES if n not in _OFF_BY_DEFAULT)


@dataclass(frozen=True, slots=True)
class QualityRules(Settings):
    """Which rules run, in which order, and their thresholds (field names as in `Rule.threshold`)."""

    rules: tuple[str, ...] = DEFAULT_RULES
    stop_words: tuple[str, ...] = GOPHER_STOP_WORDS
    min_words: int = 50
    max_words: int = 100_000
    min_mean_word_length: float = 3.0
    max_mean_word_length: float = 10.0
    max_hash_ratio: float = 0.1
    max_ellipsis_ratio: float = 0.1
    max_bullet_lines: float = 0.9
    max_ellipsis_lines: float = 0.3
    min_alpha_words: float = 0.8
    min_stop_words: int = 2
    max_dup_para_frac: float = 0.30
    max_dup_para_char_frac: float = 0.20
    max_dup_line_frac: float = 0.30
    max_dup_line_char_frac: float = 0.20
    max_top_2gram: float = 0.20
    max_top_3gram: float = 0.18
    max_top_4gram: float = 0.16
    max_dup_5gram: float = 0.15
    max_dup_6gram: float = 0.14
    max_dup_7gram: float = 0.13
    max_dup_8gram: float = 0.12
    max_dup_9gram: float = 0.11
    max_dup_10gram: float = 0.10
    min_sentences: int = 5
    min_end_punct_lines: float = 0.12     # FineWeb's value for this line share (C4 itself drops lines)
    max_policy_lines: float = 0.5
    max_javascript_lines: float = 0.5

    def __post_init__(self) -> None:
        unknown = [r for r in self.rules if r not in _BY_NAME]
        if unknown:
            raise ValueError(f"rules: unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULE_NAMES)}")
        if len(set(self.rules)) != len(self.rules):
            raise ValueError("rules: a rule is listed twice")
        for rule in RULES:
            if rule.threshold and getattr(self, rule.threshold) < 0:
                raise ValueError(f"{rule.threshold} must be >= 0, got {getattr(self, rule.threshold)}")
        if self.min_mean_word_length > self.max_mean_word_length or self.min_words > self.max_words:
            raise ValueError("min_words/min_mean_word_length must not exceed their max_ counterpart")

    def enabled(self) -> tuple[Rule, ...]:
        return tuple(_BY_NAME[name] for name in self.rules)


def first_failing_rule(signals: Mapping[str, float | int | bool], settings: QualityRules) -> str | None:
    """The name of the first enabled rule (in `settings.rules` order) that removes the document, or None."""
    for rule in settings.enabled():
        if rule.fails(signals, settings):
            return rule.name
    return None


def failing_rules(signals: Mapping[str, float | int | bool], settings: QualityRules) -> list[str]:
    """Every enabled rule that would remove the document, in `settings.rules` order (for diagnosis)."""
    return [rule.name for rule in settings.enabled() if rule.fails(signals, settings)]


def judge(text: str, settings: QualityRules | None = None) -> tuple[dict[str, float | int | bool], str | None]:
    """(signals, first failing rule or None) of one text: the whole filter for one document, without Spark."""
    settings = settings or QualityRules()
    signals = compute_signals(text, settings.stop_words)
    return signals, first_failing_rule(signals, settings)
