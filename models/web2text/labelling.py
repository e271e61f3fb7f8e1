"""Automatic block labelling from (page, cleaned text) pairs: Web2Text, section 4.1.

Vogels, Ganea and Eickhoff, "Web2Text: Deep Structured Boilerplate Removal" (ECIR 2018), section 4.1
("Automatic Block Labeling"): corpora such as CleanEval give a page and the text a human kept, not a
label per block, so the labels are recovered by aligning the cleaned (gold) text with the page text:

1. Scan the gold text with windows of 10 consecutive characters; a window that occurs exactly once
   in the page text (after trimming spaces) is a sure match. Such unique matches divide both texts
   into parts, on which the same search is repeated (*divide et impera*).
2. Once no unique snippet is left, align the remaining pairs of parts by dynamic programming.
3. A block is *content* iff at least 2/3 of its text is aligned to the gold text.

How this module implements it:

- **Text positions.** The block texts are concatenated in order with a separator ("\\n") and the
  gold text is aligned against that string; aligned characters are mapped back to their block
  through the block offsets. Snippets may therefore span a block boundary, as a gold paragraph
  often spans several inline blocks.
- **Normalisation.** Both sides keep only their non-whitespace characters (every character for
  which `str.isspace()` holds, the no-break space included, is dropped, and so is the separator)
  and are lower-cased character by character (a character whose lower case is not one character,
  such as "İ", is kept as is, so positions stay one-to-one). The paper checks uniqueness "after
  spaces trimming" and its reference code compares characters case-insensitively with all
  whitespace equal; dropping whitespace goes one step further so that a line break in the page
  that the gold renders as a space, or the reverse, costs nothing. The share of a block is
  therefore counted over its non-whitespace characters.
- **Unique snippets.** A gold window counts if it occurs exactly once in the page part being
  searched (uniqueness in the page, as in the paper; the gold may repeat it). The candidate
  matches of a part are reduced to their longest chain that is increasing in both texts (a longest
  increasing subsequence, as in patience diff), so a match never crosses another; overlapping
  matches on the same diagonal merge into one run, which is then extended to the left and right
  over equal characters. The gaps between runs are searched again with uniqueness *within the
  gap*: a menu that is repeated on the page is not unique on the page but is unique in the gap
  between the surrounding content, so the copy at the right position is taken and the other copy
  stays boilerplate. The divide and conquer runs on an explicit stack (no recursion); its total
  work is bounded by `MAX_SEARCH_FACTOR` times the text length, after which the open parts go
  straight to step 2.
- **Dynamic programming** on the remaining pairs only: a global alignment scoring +1 per matched
  character and `GAP_OPEN` per gap on either side, with free gap extension (skipping a long run of
  boilerplate or of gold text not on the page costs one opening, wherever it is). Without an
  opening cost the alignment would scatter single-letter matches over boilerplate blocks; with it,
  an isolated matched run inside gaps on both sides must be longer than `2 * GAP_OPEN` characters.
  The row recurrence is vectorised with numpy (a running maximum replaces the horizontal gap
  state), and the alignment runs along the shorter side.
- **Greedy fallback.** A remaining pair of more than `max_dp_cells` cells (2e6 by default) is
  not aligned by the DP: a greedy scan walks the gold part and, at each position, takes the first
  occurrence at or after the current page position of the next `snippet_length` characters,
  extends it over equal characters and moves on; gold characters without such an occurrence are
  skipped. It is monotone like the DP but may pick the wrong copy of a repeated text. The number
  of fallbacks is reported in `BlockAlignment.greedy_fallbacks`.
- **Threshold.** `label_blocks` marks a block as content iff its aligned share is >= 2/3 (the
  reference code uses a strict ">"; the brief and the paper say "at least"). A block without
  non-whitespace characters has share 0.0 and is boilerplate.

The alignment is monotone: a gold text whose paragraphs come in another order than on the page
aligns the longest order-preserving part; the paragraphs out of order stay unaligned, so their
blocks are labelled boilerplate.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..page.words import fold_space

__all__ = [
    "BlockAlignment",
    "align",
    "align_blocks",
    "label_blocks",
    "label_blocks_from_snippets",
    "normalise",
    "SNIPPET_LENGTH",
    "MAX_DP_CELLS",
    "GAP_OPEN",
    "MAX_SEARCH_FACTOR",
]

SNIPPET_LENGTH = 10
"""Length of the gold windows checked for uniqueness (section 4.1: 10 consecutive characters)."""

MAX_DP_CELLS = 2_000_000
"""Largest remaining pair (gold characters x page characters) aligned by dynamic programming."""

GAP_OPEN = 3
"""Cost of opening a gap in the DP alignment (a matched character scores 1; extending a gap is free)."""

MAX_SEARCH_FACTOR = 50
"""The snippet search stops after reading this many times (gold + page) characters in total."""

SEPARATOR = "\n"
"""Put between block texts when they are concatenated; whitespace, so it never takes part in matching."""

_NEG = -(10**9)
# Traceback codes.
_FROM_D, _FROM_E = 0, 1  # H cell: came from D (match or vertical gap) or from E (horizontal gap)
_D_MATCH, _D_F = 0, 1  # D cell: a match or the vertical gap state F


@dataclass(frozen=True, slots=True)
class BlockAlignment:
    """Result of aligning block texts with a gold text.

    Attributes:
        shares: per block, aligned non-whitespace characters / non-whitespace characters (0.0 for
            a block without any).
        aligned_chars: per block, the number of its non-whitespace characters aligned to the gold.
        total_chars: per block, its number of non-whitespace characters.
        anchor_runs: number of matched runs found by the unique-snippet search.
        dp_pairs: number of remaining pairs aligned by dynamic programming.
        dp_cells: total number of DP cells computed.
        greedy_fallbacks: number of remaining pairs larger than `max_dp_cells`, aligned greedily.
        search_truncated: True when the snippet search hit its work bound.
    """

    shares: list[float]
    aligned_chars: list[int]
    total_chars: list[int]
    anchor_runs: int = 0
    dp_pairs: int = 0
    dp_cells: int = 0
    greedy_fallbacks: int = 0
    search_truncated: bool = False


def normalise(text: str) -> str:
    """Drop every whitespace character of `text` and lower-case the rest character by character.

    A character whose lower case is more than one character (such as "İ") is kept unchanged, so the
    result has one character per non-whitespace character of `text`.

    Args:
        text: any text.

    Returns:
        The normalised text.
    """
    kept = "".join(text.split())
    lowered = kept.lower()
    if len(lowered) != len(kept):
        lowered = "".join(low if len(low := c.lower()) == 1 else c for c in kept)
    return lowered


def _lis(values: list[int]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of `values` (O(n log n))."""
    tails: list[int] = []  # tails[k] = smallest tail value of an increasing subsequence of length k+1
    tail_idx: list[int] = []
    prev = [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_idx.append(i)
        else:
            tails[k] = v
            tail_idx[k] = i
        prev[i] = tail_idx[k - 1] if k else -1
    out: list[int] = []
    i = tail_idx[-1] if tail_idx else -1
    while i >= 0:
        out.append(i)
        i = prev[i]
    out.reverse()
    return out


def _unique_runs(gold: str, page: str, g0: int, g1: int, s0: int, s1: int, k: int) -> list[tuple[int, int, int]]:
    """Matched runs (gold start, page start, length) from the gold windows unique in page[s0:s1].

    The runs are increasing and disjoint in both texts, lie inside the part, and are extended over
    equal characters as far as the neighbouring runs and the part's bounds allow.
    """
    where: dict[str, int] = {}
    for j in range(s0, s1 - k + 1):
        w = page[j : j + k]
        where[w] = -1 if w in where else j
    cand_g: list[int] = []
    cand_s: list[int] = []
    get = where.get
    for i in range(g0, g1 - k + 1):
        j = get(gold[i : i + k], -1)
        if j >= 0:
            cand_g.append(i)
            cand_s.append(j)
    if not cand_g:
        return []
    runs: list[list[int]] = []  # [gold start, page start, length]
    for c in _lis(cand_s):
        gi, sj = cand_g[c], cand_s[c]
        if runs:
            rg, rs, rl = runs[-1]
            if gi - rg == sj - rs and gi <= rg + rl:  # same diagonal, overlapping or touching
                runs[-1][2] = max(rl, gi + k - rg)
                continue
            if gi < rg + rl or sj < rs + rl:  # overlaps the previous run on another diagonal
                continue
        runs.append([gi, sj, k])
    # Extend each run over equal characters, bounded by its neighbours and the part.
    for r, run in enumerate(runs):
        g_lo, s_lo = (runs[r - 1][0] + runs[r - 1][2], runs[r - 1][1] + runs[r - 1][2]) if r else (g0, s0)
        g_hi, s_hi = (runs[r + 1][0], runs[r + 1][1]) if r + 1 < len(runs) else (g1, s1)
        gi, sj, ln = run
        while gi + ln < g_hi and sj + ln < s_hi and gold[gi + ln] == page[sj + ln]:
            ln += 1
        while gi > g_lo and sj > s_lo and gold[gi - 1] == page[sj - 1]:
            gi, sj, ln = gi - 1, sj - 1, ln + 1
        run[:] = [gi, sj, ln]
    return [(a, b, c) for a, b, c in runs]


def _dp_pairs(x: np.ndarray, y: np.ndarray, gap_open: int) -> list[tuple[int, int]]:
    """Matched index pairs of a global alignment of `x` (rows) with `y` (columns).

    Scores: +1 per match of equal codes, `-gap_open` per gap on either side, free gap extension.
    With H the best score, F the vertical-gap state and E the horizontal-gap state, row i is
    D = max(M, F) with M[j] = H[i-1][j-1] + 1 where x[i-1] == y[j-1], F[j] = max(F_prev[j],
    H[i-1][j] - gap_open), and E[j] = max_{k<j} D[k] - gap_open (a running maximum), H = max(D, E).
    """
    a, b = len(x), len(y)
    cols = np.arange(b + 1)
    h_src = np.empty((a + 1, b + 1), dtype=np.int8)
    d_src = np.empty((a + 1, b + 1), dtype=np.int8)
    f_open = np.empty((a + 1, b + 1), dtype=bool)
    k_best = np.empty((a + 1, b + 1), dtype=np.int32)

    def finish(i: int, d: np.ndarray) -> np.ndarray:
        cm = np.maximum.accumulate(d)
        kpos = np.maximum.accumulate(np.where(d == cm, cols, 0))
        e = np.full(b + 1, _NEG, dtype=np.int64)
        e[1:] = cm[:-1] - gap_open
        h = np.maximum(d, e)
        h_src[i] = np.where(e > d, _FROM_E, _FROM_D)
        k_best[i, 1:] = kpos[:-1]
        k_best[i, 0] = 0
        return h

    d = np.full(b + 1, _NEG, dtype=np.int64)
    d[0] = 0
    d_src[0] = _D_MATCH
    f_open[0] = False
    h = finish(0, d)
    f = np.full(b + 1, _NEG, dtype=np.int64)
    m = np.full(b + 1, _NEG, dtype=np.int64)
    for i in range(1, a + 1):
        opened = h - gap_open
        f_open[i] = opened > f
        f = np.maximum(f, opened)
        m[1:] = np.where(y == x[i - 1], h[:-1] + 1, _NEG)
        d_src[i] = np.where(m >= f, _D_MATCH, _D_F)
        d = np.maximum(m, f)
        h = finish(i, d)

    pairs: list[tuple[int, int]] = []
    i, j, state = a, b, "H"
    while i > 0:
        if state == "H":
            if h_src[i, j] == _FROM_E:
                j = int(k_best[i, j])
            state = "D"
        elif state == "D":
            if d_src[i, j] == _D_MATCH and j > 0:
                pairs.append((i - 1, j - 1))
                i, j, state = i - 1, j - 1, "H"
            else:
                state = "F"
        else:  # F: a vertical gap, i.e. x[i-1] is skipped
            state = "H" if f_open[i, j] else "F"
            i -= 1
    pairs.reverse()
    return pairs


def _greedy_runs(gold: str, page: str, g0: int, g1: int, s0: int, s1: int, k: int) -> list[tuple[int, int, int]]:
    """Greedy monotone alignment: first occurrence of the next k gold characters at or after the page pointer."""
    index: dict[str, list[int]] = {}
    for j in range(s0, s1 - k + 1):
        index.setdefault(page[j : j + k], []).append(j)
    runs: list[tuple[int, int, int]] = []
    i, j = g0, s0
    while i <= g1 - k and j <= s1 - k:
        starts = index.get(gold[i : i + k])
        p = -1
        if starts:
            at = bisect.bisect_left(starts, j)
            if at < len(starts):
                p = starts[at]
        if p < 0:
            i += 1
            continue
        ln = k
        while i + ln < g1 and p + ln < s1 and gold[i + ln] == page[p + ln]:
            ln += 1
        runs.append((i, p, ln))
        i, j = i + ln, p + ln
    return runs


def align_blocks(
    block_texts: Sequence[str],
    gold: str,
    *,
    snippet_length: int = SNIPPET_LENGTH,
    max_dp_cells: int = MAX_DP_CELLS,
    gap_open: int = GAP_OPEN,
) -> BlockAlignment:
    """Align a gold text with the texts of a page's blocks (Web2Text section 4.1), with statistics.

    Args:
        block_texts: the text of each block, in page order.
        gold: the cleaned text of the page.
        snippet_length: length of the gold windows checked for uniqueness.
        max_dp_cells: remaining pairs with more cells than this are aligned greedily.
        gap_open: DP cost of opening a gap (a match scores 1).

    Returns:
        A BlockAlignment with the per-block aligned shares and counts of how the work was done.
    """
    k = max(1, snippet_length)
    n_blocks = len(block_texts)
    # Normalised page text, with the block of each character.
    pieces = [normalise(t) for t in block_texts]
    total = [len(p) for p in pieces]
    page = "".join(pieces)  # == normalise(SEPARATOR.join(block_texts)): the separator is whitespace
    owner = np.repeat(np.arange(n_blocks, dtype=np.int64), total) if n_blocks else np.zeros(0, np.int64)
    g = normalise(gold)
    n, m = len(page), len(g)
    aligned = np.zeros(n, dtype=bool)
    runs_found = dp_pairs = dp_cells = fallbacks = 0
    truncated = False

    budget = MAX_SEARCH_FACTOR * (n + m) + 1
    stack: list[tuple[int, int, int, int]] = [(0, m, 0, n)] if n and m else []
    leaves: list[tuple[int, int, int, int]] = []
    while stack:
        g0, g1, s0, s1 = stack.pop()
        if g1 - g0 < k or s1 - s0 < k or budget <= 0:
            truncated = truncated or (budget <= 0 and g1 - g0 >= k and s1 - s0 >= k)
            leaves.append((g0, g1, s0, s1))
            continue
        budget -= (g1 - g0) + (s1 - s0)
        runs = _unique_runs(g, page, g0, g1, s0, s1, k)
        if not runs:
            leaves.append((g0, g1, s0, s1))
            continue
        runs_found += len(runs)
        pg, ps = g0, s0
        for rg, rs, rl in runs:
            aligned[rs : rs + rl] = True
            stack.append((pg, rg, ps, rs))
            pg, ps = rg + rl, rs + rl
        stack.append((pg, g1, ps, s1))

    for g0, g1, s0, s1 in leaves:
        a, b = g1 - g0, s1 - s0
        if a == 0 or b == 0:
            continue
        if a * b > max_dp_cells:
            fallbacks += 1
            for _, rs, rl in _greedy_runs(g, page, g0, g1, s0, s1, k):
                aligned[rs : rs + rl] = True
            continue
        dp_pairs += 1
        dp_cells += (a + 1) * (b + 1)
        x = np.array([ord(c) for c in g[g0:g1]], dtype=np.int64)
        y = np.array([ord(c) for c in page[s0:s1]], dtype=np.int64)
        if a <= b:
            pairs = _dp_pairs(x, y, gap_open)
            cols = [s0 + j for _, j in pairs]
        else:  # run along the shorter side; the scores are symmetric
            pairs = _dp_pairs(y, x, gap_open)
            cols = [s0 + i for i, _ in pairs]
        if cols:
            aligned[np.array(cols, dtype=np.int64)] = True

    counts = np.bincount(owner[aligned], minlength=n_blocks).tolist() if n_blocks else []
    shares = [c / t if t else 0.0 for c, t in zip(counts, total, strict=True)]
    return BlockAlignment(shares=shares, aligned_chars=counts, total_chars=total, anchor_runs=runs_found,
                          dp_pairs=dp_pairs, dp_cells=dp_cells, greedy_fallbacks=fallbacks,
                          search_truncated=truncated)


def align(block_texts: Sequence[str], gold: str) -> list[float]:
    """Per block, the share of its non-whitespace characters aligned to the gold text.

    Args:
        block_texts: the text of each block, in page order.
        gold: the cleaned text of the page.

    Returns:
        One float in [0, 1] per block (0.0 for a block without non-whitespace characters).
    """
    return align_blocks(block_texts, gold).shares


def label_blocks(block_texts: Sequence[str], gold: str, threshold: float = 2 / 3) -> list[bool]:
    """Web2Text labels: a block is content iff at least `threshold` of its text is aligned to the gold.

    Args:
        block_texts: the text of each block, in page order.
        gold: the cleaned text of the page.
        threshold: the least aligned share of a content block (2/3 in the paper).

    Returns:
        One bool per block, True for content.
    """
    res = align_blocks(block_texts, gold)
    return [t > 0 and c >= threshold * t - 1e-9 for c, t in zip(res.aligned_chars, res.total_chars, strict=True)]


MIN_SNIPPET_BLOCK = 4     # a block this short or shorter is not labelled from a passage it is part of ("a", "|")


def label_blocks_from_snippets(block_texts: Sequence[str], with_: Sequence[str],
                               without: Sequence[str]) -> tuple[list[float], list[float]]:
    """Labels and loss weights of blocks from snippet gold (passages that must / must not be in the main text).

    Snippet gold quotes a few passages of a page, not its whole main text, so only the blocks it quotes get a
    label: a block that holds a `with` passage, or whose text lies inside one, is content (1.0); the same with a
    `without` passage is boilerplate (0.0); each with weight 1. Every other block, and one matched by both
    kinds, gets weight 0 (no label). Text is compared with white-space runs folded to one space, case kept, as
    trafilatura's evaluation compares it; a block of `MIN_SNIPPET_BLOCK` characters or fewer is labelled only
    when it holds a whole passage.

    Returns:
        (labels, weights), one float per block each.
    """
    keep, drop = [p for p in map(fold_space, with_) if p], [p for p in map(fold_space, without) if p]

    def matches(block: str, passages: list[str]) -> bool:
        return any(p in block or (len(block) > MIN_SNIPPET_BLOCK and block in p) for p in passages)

    labels, weights = [], []
    for text in block_texts:
        block = fold_space(text)
        is_kept = bool(block) and matches(block, keep)
        is_dropped = bool(block) and matches(block, drop)
        labels.append(1.0 if is_kept and not is_dropped else 0.0)
        weights.append(1.0 if is_kept != is_dropped else 0.0)
    return labels, weights
