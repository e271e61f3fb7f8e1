"""AMBER: multi-attribute object extraction from result pages (Furche, Gottlob, Grasso, Orsi, Schallhart,
Wang, "AMBER: Automatic Supervision for Multi-Attribute Extraction", 2012/2014).

Domain knowledge, as data and checked on load:
  - `schema`: the domain schema Σ = ΣR ∪ ΣO (Definition 1, section 2.2), its pivot attribute type π ∈ ΣR
    (section 3.1), disjointness constraints (section 4) and the thresholds Θ of sections 3.3-3.5 and 4,
    with the defaults of section 6.1; one TOML file per domain in conf/amber/.
  - `annotators`: the annotation model of section 3.2, regular expressions (prices, UK postcodes, counts,
    years, mileages, ratings) and gazetteers (conf/amber/gazetteers/), pluggable through a registry.

The structure steps (data areas, Algorithm 2; records, Algorithm 3; attribute alignment, Algorithm 4) live in
`areas`, `segmentation` and `alignment`; `Amber` (registered as "amber") runs them (Algorithm 1). The learning
step of Algorithm 5 (section 4) is `learning`: evidence per page, a learned-gazetteers file that
`AmberSettings.learned` applies over the shipped gazetteers, and `learn_pages` for rounds over many pages.
"""

from .annotators import (
    ANNOTATORS,
    Annotation,
    Annotator,
    CountAnnotator,
    GazetteerAnnotator,
    MileageAnnotator,
    PostcodeAnnotator,
    PriceAnnotator,
    RatingAnnotator,
    RegexAnnotator,
    YearAnnotator,
    annotate,
    build_annotators,
    load_gazetteer,
    register_annotator,
)
from .learning import Evidence, LearnedGazetteers, learn_pages, load_learned, page_evidence, save_learned
from .method import Amber, AmberSettings, annotate_page, text_nodes
from .schema import AmberThresholds, AttributeSpec, DomainSchema, load_schema, packaged_schemas

__all__ = ["Amber", "AmberSettings", "annotate_page", "text_nodes", "Annotation", "Annotator", "RegexAnnotator",
           "PriceAnnotator", "PostcodeAnnotator", "CountAnnotator", "YearAnnotator", "MileageAnnotator",
           "RatingAnnotator", "GazetteerAnnotator", "ANNOTATORS", "register_annotator", "build_annotators", "annotate",
           "load_gazetteer", "AttributeSpec", "AmberThresholds", "DomainSchema", "load_schema", "packaged_schemas",
           "Evidence", "LearnedGazetteers", "learn_pages", "load_learned", "page_evidence", "save_learned"]
