"""Web2Text: preprocessing, features, labelling, the two CNNs and Viterbi (not trained yet).

Vogels, Ganea, Eickhoff: "Web2Text: Deep Structured Boilerplate Removal" (ECIR 2018).
Section 3.1 (Collapsed DOM) -> `collapse_dom`; section 3.2 (DOM-leaf blocks) -> `segment_blocks`,
`page_blocks`; section 3.3 and Appendix A (128 block and 25 edge features) -> `block_features`,
`edge_features`, with `fit_stats` / `standardise` for the clipping and standardisation of section 3.3;
section 4.1 (automatic block labelling from gold text) -> `align`, `label_blocks`; section 3.4 (the unary
and pairwise CNNs) -> `UnaryCNN`, `PairwiseCNN`; section 3.5 (Viterbi with lambda) -> `viterbi`.
Not registered in models/registry.py: there is no trained model yet.
"""

from .dom import FORM_TAGS, Blocks, CollapsedDOM, collapse_dom, page_blocks, segment_blocks
from .features import (
    APPENDIX_CLIP,
    BINARY_EDGE_FEATURES,
    BINARY_FEATURES,
    EDGE_FEATURE_NAMES,
    FEATURE_NAMES,
    FeatureStats,
    block_features,
    edge_features,
    fit_stats,
    standardise,
    stopwords,
)
from .labelling import align, label_blocks
from .net import PairwiseCNN, UnaryCNN
from .viterbi import LAMBDA, viterbi, viterbi_one

__all__ = ["FORM_TAGS", "Blocks", "CollapsedDOM", "collapse_dom", "page_blocks", "segment_blocks",
           "APPENDIX_CLIP", "BINARY_EDGE_FEATURES", "BINARY_FEATURES", "EDGE_FEATURE_NAMES", "FEATURE_NAMES",
           "FeatureStats", "block_features", "edge_features", "fit_stats", "standardise", "stopwords",
           "align", "label_blocks", "PairwiseCNN", "UnaryCNN", "LAMBDA", "viterbi", "viterbi_one"]
