"""BlockNet: Web2Text's DOM-leaf blocks, their 128 features plus 29 context and 10 selector features, and a small
dilated CNN.

Built for the main-text quality issue (#19): Web2Text (2018) was designed on CleanEval's 2007 pages and reads
nothing of how modern pages mark their regions. BlockNet keeps Web2Text's blocks and features
(`pagesieve.models.web2text`), adds what the elements above each block say (`pagesieve.models.page.context`:
article / nav / footer tags, ARIA roles, class and id words such as `comment` or `related`, position, depth,
text repetition: `context_features`) and what trafilatura's own XPath rules say of them (`pagesieve.models.page.
selectors`: `selector_features`), and labels every block at once with a residual dilated 1-d CNN over the
block sequence (receptive field 63 blocks, plus a summary of the whole page, `BlockCNN`) and a threshold,
without Viterbi (where the CNN is unsure of a block, by the mean of its logit and gradient-boosted trees' over the
same inputs: `trees.py`); its inputs are standardised and clipped to 5 standard deviations (`BlockNetModel`), so a page
unlike the training pages (no English stop word at all) cannot push every block one way. Trained on the `fit`
and `validation` parts of the eight benchmark pools (scripts/train/train_blocknet.py); the weights ship in `weights/` as
plain arrays.
`BlockNet` is the method ("blocknet" in the registry), batched like Web2Text.
"""

from .. import lazy_exports

# names -> the submodule that defines them, imported on first use (see lazy_exports)
__getattr__, __all__ = lazy_exports(__name__, {
    "features": ("CONTEXT_FEATURE_NAMES", "INPUT_NAMES", "SELECTOR_FEATURE_NAMES", "block_inputs", "context_features",
                 "page_inputs", "selector_features"),
    "consensus": ("Consensus",),
    "method": ("BlockNet",),
    "model": ("PACKAGED_MODELS", "BlockNetModel"),
    "net": ("BlockCNN",),
    "settings": ("BlockNetSettings", "ConsensusSettings"),
})
