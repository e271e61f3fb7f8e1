"""Web2Text: preprocessing, features, labelling, the two CNNs, Viterbi, trained models and the method.

Vogels, Ganea, Eickhoff: "Web2Text: Deep Structured Boilerplate Removal" (ECIR 2018).
Section 3.1 (Collapsed DOM) -> `collapse_dom`; section 3.2 (DOM-leaf blocks) -> `segment_blocks`,
`page_blocks`; section 3.3 and Appendix A (128 block and 25 edge features) -> `block_features`,
`edge_features`, with `fit_stats` / `standardise` for the clipping and standardisation of section 3.3;
section 4.1 (automatic block labelling from gold text) -> `align`, `label_blocks`; section 3.4 (the unary
and pairwise CNNs) -> `UnaryCNN`, `PairwiseCNN`; section 3.5 (Viterbi with lambda) -> `viterbi`;
section 4.2 (training) -> scripts/train/train_web2text.py, whose models ship in `weights/` and load with
`Web2TextModel.load`; the method -> `Web2Text` ("web2text" in the registry), batched: one forward pass per
group of pages.
"""

from .. import lazy_exports

# names -> the submodule that defines them, imported on first use (see lazy_exports): the registry checks
# `web2text.*` settings on the driver through `.settings` alone, which must not pay for importing torch (~2 s)
# before a bad option fails
__getattr__, __all__ = lazy_exports(__name__, {
    "dom": ("FORM_TAGS", "Blocks", "CollapsedDOM", "collapse_dom", "page_blocks", "segment_blocks"),
    "features": ("APPENDIX_CLIP", "BINARY_EDGE_FEATURES", "BINARY_FEATURES", "EDGE_FEATURE_NAMES", "FEATURE_NAMES",
                 "FeatureStats", "block_features", "edge_features", "fit_stats", "page_features", "standardise",
                 "stopwords"),
    "labelling": ("align", "label_blocks", "label_blocks_from_snippets"),
    "method": ("Web2Text", "blocks_result", "blocks_text", "length_groups"),
    "model": ("PACKAGED_MODELS", "Web2TextModel", "pad_sequences", "pick_device"),
    "net": ("PairwiseCNN", "UnaryCNN"),
    "settings": ("Web2TextSettings",),
    "viterbi": ("LAMBDA", "viterbi", "viterbi_one"),
})
