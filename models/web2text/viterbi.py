"""Web2Text joint inference: Viterbi decoding of the unary and pairwise CNN potentials (section 3.5).

Equation (3) of the paper, for blocks b_0..b_n:

    p(l_0, ..., l_n) = (prod_{i=0}^{n} p_i(l_i)) * (prod_{i=0}^{n-1} p_{i(i+1)}(l_i, l_{i+1})) ** lambda

so the decoded labelling maximises its logarithm

    sum_{i=0}^{n} log p_i(l_i)  +  lambda * sum_{i=0}^{n-1} log p_{i(i+1)}(l_i, l_{i+1}),

with lambda = 0.1 (section 3.5): the unary terms are unweighted, only the pairwise terms carry lambda.
Labels: 1 = content, 0 = boilerplate; pairwise channel 2 * l_i + l_{i+1}, i.e. (00, 01, 10, 11).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["LAMBDA", "viterbi", "viterbi_one"]

LAMBDA = 0.1  # section 3.5: "We use lambda = 0.1 in our experiments"


def _numpy(x: np.ndarray | torch.Tensor, dtype: type) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=dtype)


def viterbi(unary_logp: np.ndarray | torch.Tensor, pair_logp: np.ndarray | torch.Tensor,
            lengths: np.ndarray | torch.Tensor | None = None, lam: float = LAMBDA) -> np.ndarray:
    """Most likely labelling under (3) for a padded batch; loops over positions, vectorised over the batch.

    Maximises sum_{i<L} log p_i(l_i) + lam * sum_{i<L-1} log p_{i,i+1}(l_i, l_{i+1}) per sequence of length L.
    Runs on the CPU whatever device made the potentials: a step is a handful of (B,)-sized operations, which a
    GPU would spend in kernel launches (the same loop in torch took 11 ms for one 150-block page). A batch of
    one goes to `viterbi_one` (0.16 ms there), a batch of several to numpy, vectorised over the batch.

    Args:
        unary_logp: (B, N, 2) log p_i(l_i), e.g. `UnaryCNN` output.
        pair_logp: (B, N-1, 4) log p_{i,i+1}(l_i, l_{i+1}), channel 2 * l_i + l_{i+1}, e.g. `PairwiseCNN` output.
        lengths: (B,) number of real blocks per sequence (0 <= L <= N); None means all N. Potentials at
            positions >= L (and pairs at positions >= L-1) are ignored.
        lam: the interpolation factor lambda, weighting the pairwise terms.

    Returns:
        (B, N) int64 labels, 1 = content; 0 at every padded position.
    """
    unary = _numpy(unary_logp, np.float64)                                  # (B, N, 2)
    B, N, _ = unary.shape
    pair = _numpy(pair_logp, np.float64)
    if pair.shape != (B, max(N - 1, 0), 4):
        raise ValueError(f"pair_logp has shape {pair.shape}, expected {(B, max(N - 1, 0), 4)}")
    lengths = np.full(B, N, dtype=np.int64) if lengths is None else _numpy(lengths, np.int64)   # (B,)
    if N == 0:
        return np.zeros((B, 0), dtype=np.int64)
    if B == 1:                                                              # one page: no batch to vectorise over
        labels = np.zeros((1, N), dtype=np.int64)
        L = int(lengths[0])
        labels[0, :L] = viterbi_one(unary[0, :L], pair[0, : max(L - 1, 0)], lam)
        return labels
    # step t adds lam * log p(l_{t-1}, l_t) + log p_t(l_t); laid out (prev, cur, t, B) so each step reads
    # contiguous (B,) rows: with two labels the max over prev is one comparison, no argmax/gather per step
    step = (lam * pair.reshape(B, N - 1, 2, 2) + unary[:, 1:, None, :]).transpose(2, 3, 1, 0).copy()
    active = np.arange(1, N)[:, None] < lengths[None, :]                  # (N-1, B) padding leaves scores as is
    s0, s1 = unary[:, 0, 0].copy(), unary[:, 0, 1].copy()                 # (B,) best prefix score ending in 0 / 1
    back = np.zeros((N, 2, B), dtype=bool)                                  # back[t, l]: previous label was 1
    for t in range(1, N):
        (a00, a01), (a10, a11), on = step[0, :, t - 1], step[1, :, t - 1], active[t - 1]
        c00, c10, c01, c11 = s0 + a00, s1 + a10, s0 + a01, s1 + a11
        b0, b1 = c10 > c00, c11 > c01                                       # ties keep the smaller label, as argmax
        back[t, 0], back[t, 1] = b0 & on, (b1 & on) | (~on)                 # padding carries the label through
        s0, s1 = np.where(on, np.where(b0, c10, c00), s0), np.where(on, np.where(b1, c11, c01), s1)
    rows = np.arange(B)
    labels = np.empty((B, N), dtype=np.int64)                               # (B, N)
    cur = (s1 > s0).astype(np.int64)                                        # (B,) label at the last real block
    for t in range(N - 1, -1, -1):
        labels[:, t] = cur
        cur = back[t, cur, rows].astype(np.int64)                           # (B,)
    labels[np.arange(N)[None, :] >= lengths[:, None]] = 0
    return labels


def viterbi_one(unary: np.ndarray, pair: np.ndarray, lam: float = LAMBDA) -> list[int]:
    """Viterbi for one unpadded sequence: unary (L, 2) and pair (L-1, 4) log-probabilities -> L labels.

    Plain Python floats: for a single page this is ~8x faster than numpy's per-step overhead. It adds the terms
    in the same order as `viterbi` (score + (lam * pair + unary)), so both give identical labels, ties included.
    """
    u = np.asarray(unary, dtype=np.float64).tolist()                        # L x [u0, u1]
    p = np.asarray(pair, dtype=np.float64).reshape(-1, 4).tolist()          # L-1 x [00, 01, 10, 11]
    if not u:
        return []
    s0, s1 = u[0]
    back: list[tuple[bool, bool]] = []
    for (p00, p01, p10, p11), (u0, u1) in zip(p, u[1:], strict=True):
        c00, c10 = s0 + (lam * p00 + u0), s1 + (lam * p10 + u0)
        c01, c11 = s0 + (lam * p01 + u1), s1 + (lam * p11 + u1)
        b0, b1 = c10 > c00, c11 > c01                                       # ties keep the smaller label
        s0, s1 = (c10 if b0 else c00), (c11 if b1 else c01)
        back.append((b0, b1))
    labels = [1 if s1 > s0 else 0]
    for b in reversed(back):
        labels.append(int(b[labels[-1]]))
    return labels[::-1]
