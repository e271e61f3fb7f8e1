"""Web2Text: preprocessing, features, labelling, the two CNNs, Viterbi, trained models and the method.

Vogels, Ganea, Eickhoff: "Web2Text: Deep Structured Boilerplate Removal" (ECIR 2018).
Section 3.1 (Collapsed DOM) -> `collapse_dom`; section 3.2 (DOM-leaf blocks) -> `segment_blocks`,
`page_blocks`; section 3.3 and Appendix A (128 block and 25 edge features) -> `block_features`,
`edge_features`, with `fit_stats` / `standardise` for the clipping and standardisation of section 3.3;
section 4.1 (automatic block labelling from gold text) -> `align`, `label_blocks`; section 3.4 (the unary
and pairwise CNNs) -> `UnaryCNN`, `PairwiseCNN`; section 3.5 (Viterbi with lambda) -> `viterbi`;
section 4.2 (training) -> scripts/train_web2text.py, whose models ship in `weights/` and load with
`Web2TextModel.load`; the method -> `Web2Text` ("web2text" in the registry), batched: one forward pass per
group of pages.
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
    page_features,
    standardise,
    stopwords,
)
from .labelling import align, label_blocks
from .method import Web2Text, blocks_text, length_groups
from .model import PACKAGED_MODELS, Web2TextModel, pad_sequences, pick_device
from .net import PairwiseCNN, UnaryCNN
from .settings import Web2TextSettings
from .viterbi import LAMBDA, viterbi, viterbi_one

__all__ = ["FORM_TAGS", "Blocks", "CollapsedDOM", "collapse_dom", "page_blocks", "segment_blocks",
           "APPENDIX_CLIP", "BINARY_EDGE_FEATURES", "BINARY_FEATURES", "EDGE_FEATURE_NAMES", "FEATURE_NAMES",
           "FeatureStats", "block_features", "edge_features", "page_features", "fit_stats", "standardise", "stopwords",
           "align", "label_blocks", "Web2Text", "blocks_text", "length_groups", "PACKAGED_MODELS", "Web2TextModel",
           "pad_sequences", "pick_device", "PairwiseCNN", "UnaryCNN", "Web2TextSettings", "LAMBDA", "viterbi",
           "viterbi_one"]
