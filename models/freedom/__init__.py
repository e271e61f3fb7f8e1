"""FreeDOM: transferable neural extraction of detail-page fields (issue #20).

After "FreeDOM: A Transferable Neural Architecture for Structured Information Extraction on Web Documents"
(Lin et al., KDD 2020) and its patent (../shared/papers/freedom-transferable-neural-extraction-patent.txt,
Description): the per-site node filter (`nodes.py`), the node-level module (`features.py`, `net.py`: GloVe +
character CNN + BiLSTM for the node and its preceding text, discrete features, MLP softmax over K fields +
none), the per-page decision and the site-level XPath voting (`decode.py`), the relation stage for the fields
the node stage leaves without a value (`relation.py`: candidate pairs, XPath LSTM, pair MLP, decision rule),
the value checks the decision applies per field (`checks.py`), the trained model files (`model.py`) and the
extractor (`method.py`, "freedom" in the registry, grouped by site, batched).
"""

from .. import lazy_exports

# names -> the submodule that defines them, imported on first use (see lazy_exports)
__getattr__, __all__ = lazy_exports(__name__, {
    "checks": ("CHECKS", "PageChecks", "date_or_year", "isbn13", "not_title", "page_checks", "title_key"),
    "decode": ("Choice", "page_choices", "vote_site"),
    "features": ("FLAG_NAMES", "TAGS", "NodeInputs", "encode_nodes", "flags_of", "tokenize"),
    "method": ("FreeDOM", "site_of"),
    "model": ("PACKAGED_MODELS", "FreeDOMModel"),
    "net": ("NodeNet", "TextEncoder"),
    "nodes": ("TextNode", "SiteNodes", "normalise", "page_nodes", "select_site_nodes"),
    "relation": ("PAIR_LABELS", "RelationNet", "page_candidates", "candidate_pairs", "decide"),
    "settings": ("FreeDOMSettings",),
    "training": ("label_nodes", "train_model", "train_relation", "TrainConfig"),
})
