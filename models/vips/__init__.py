"""VIPS: vision-based page segmentation (Cai, Yu, Wen, Ma, "VIPS: a Vision-based Page Segmentation
Algorithm", MSR-TR-2003-79, 2003), on pages rendered by a real headless Chromium.

- `render.py`: the browser and the visual DOM (one JavaScript call per page);
- `extraction.py`: visual block extraction, section 4.1 (DivideDomtree, Tables 1 and 2);
- `separators.py`: visual separator detection and weights, section 4.2;
- `structure.py`: content structure construction and the rounds, section 4.3 and Figure 2;
- `main.py`: main content chosen from the tree (ours, for the `vips` cleaner);
- `method.py`: the `VIPS` segmenter and the `VIPSCleaner`; `show.py`: the overlay picture.

Where the paper is ambiguous, the module that implements the step says what we chose.
"""

from .method import VIPS, Analysis, VIPSCleaner, analyse, segments_of
from .render import Renderer, RenderError, RenderOptions, RenderTimeout, VisualPage
from .settings import VIPSSettings

__all__ = ["VIPS", "VIPSCleaner", "VIPSSettings", "Analysis", "analyse", "segments_of", "Renderer", "RenderError",
           "RenderOptions", "RenderTimeout", "VisualPage"]
