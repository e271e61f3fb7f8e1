"""Evaluation: gold-data readers and extraction metrics (the harness builds on these)."""

from .datasets import GoldPage, iter_gold_pages
from .metrics import PRF, bag_of_words_prf, tokenize

__all__ = ["GoldPage", "iter_gold_pages", "PRF", "bag_of_words_prf", "tokenize"]
