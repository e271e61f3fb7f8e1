"""Evaluation: gold-data readers, extraction metrics, and the harness that runs methods over them."""

from .datasets import GoldPage, clean_annotated_gold, dataset_name, describe_dataset, iter_gold_pages
from .metrics import (
    PRF,
    aeb_aggregate,
    aggregate,
    bag_of_words_prf,
    block_scores,
    exact_match,
    shingle_prf,
    tokenize,
)

__all__ = ["GoldPage", "clean_annotated_gold", "dataset_name", "describe_dataset", "iter_gold_pages", "PRF",
           "aeb_aggregate", "aggregate", "bag_of_words_prf", "block_scores", "exact_match", "shingle_prf", "tokenize"]
