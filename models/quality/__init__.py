"""Document quality signals and the Gopher / C4 rules over them, usable without Spark.

Rae et al. 2021 (Gopher), appendix A.1.1 and table A1; Raffel et al. 2020 (C4), section 2.2.
`compute_signals(text)` gives the signals, `judge(text)` the signals and the first rule that removes
the text (None: kept). DataTrove's filters return only a verdict, not these values: see
docs/quality-filter.md#datatrove.
"""

from .rules import DEFAULT_RULES, RULE_NAMES, RULES, QualityRules, Rule, failing_rules, first_failing_rule, judge
from .signals import (
    DUP_NGRAM_SIZES,
    GOPHER_STOP_WORDS,
    POLICY_PHRASES,
    SIGNAL_NAMES,
    TOP_NGRAM_SIZES,
    compute_signals,
    normalise_words,
)

__all__ = ["DEFAULT_RULES", "RULE_NAMES", "RULES", "QualityRules", "Rule", "failing_rules", "first_failing_rule",
           "judge", "DUP_NGRAM_SIZES", "GOPHER_STOP_WORDS", "POLICY_PHRASES", "SIGNAL_NAMES", "TOP_NGRAM_SIZES",
           "compute_signals", "normalise_words"]
