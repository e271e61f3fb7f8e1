"""CNR: content extraction by chars-nodes ratio.

López, Silva, Insa: "Using the DOM Tree for Content Extraction" (WWW 2012 workshop / EPTCS 98).
Algorithm 1 (section 4) -> `compute_cnr`; Algorithm 2 -> `select_blocks`; the "increase /
decrease information" buttons of section 6 -> `CNRSettings.adjust`.
"""

from .method import CNR, NodeTable, compute_cnr, select_blocks
from .settings import CNRSettings

__all__ = ["CNR", "CNRSettings", "NodeTable", "compute_cnr", "select_blocks"]
