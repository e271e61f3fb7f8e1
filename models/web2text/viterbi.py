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


@torch.inference_mode()
def viterbi(unary_logp: torch.Tensor, pair_logp: torch.Tensor, lengths: torch.Tensor | None = None,
            lam: float = LAMBDA) -> torch.Tensor:
    """Most likely labelling under (3) for a padded batch; loops over positions, vectorised over the batch.

    Maximises sum_{i<L} log p_i(l_i) + lam * sum_{i<L-1} log p_{i,i+1}(l_i, l_{i+1}) per sequence of length L.

    Args:
        unary_logp: (B, N, 2) log p_i(l_i), e.g. `UnaryCNN` output.
        pair_logp: (B, N-1, 4) log p_{i,i+1}(l_i, l_{i+1}), channel 2 * l_i + l_{i+1}, e.g. `PairwiseCNN` output.
        lengths: (B,) number of real blocks per sequence (0 <= L <= N); None means all N. Potentials at
            positions >= L (and pairs at positions >= L-1) are ignored.
        lam: the interpolation factor lambda, weighting the pairwise terms.

    Returns:
        (B, N) int64 labels, 1 = content; 0 at every padded position.
    """
    B, N, _ = unary_logp.shape                                               # (B, N, 2)
    if pair_logp.shape != (B, max(N - 1, 0), 4):
        raise ValueError(f"pair_logp has shape {tuple(pair_logp.shape)}, expected {(B, max(N - 1, 0), 4)}")
    device = unary_logp.device
    if lengths is None:
        lengths = torch.full((B,), N, dtype=torch.long, device=device)      # (B,)
    lengths = lengths.to(device=device, dtype=torch.long)                     # (B,)
    if N == 0:
        return torch.zeros(B, 0, dtype=torch.long, device=device)           # (B, 0)
    trans = lam * pair_logp.reshape(B, N - 1, 2, 2)                          # (B, N-1, 2 prev, 2 cur)
    stay = torch.arange(2, device=device).expand(B, 2)                       # (B, 2) identity back-pointers
    score = unary_logp[:, 0]                                                 # (B, 2) best prefix score ending in l
    back = torch.zeros(B, N, 2, dtype=torch.long, device=device)            # (B, N, 2) back-pointers
    back[:, 0] = stay
    for t in range(1, N):
        cand = score[:, :, None] + trans[:, t - 1] + unary_logp[:, t, None, :]  # (B, 2 prev, 2 cur)
        best, arg = cand.max(dim=1)                                          # (B, 2), (B, 2)
        active = (t < lengths)[:, None]                                      # (B, 1)
        score = torch.where(active, best, score)                             # (B, 2) padding leaves it as is
        back[:, t] = torch.where(active, arg, stay)                          # (B, 2) padding carries the label
    labels = torch.empty(B, N, dtype=torch.long, device=device)             # (B, N)
    cur = score.argmax(dim=1)                                                # (B,) label at the last real block
    for t in range(N - 1, -1, -1):
        labels[:, t] = cur
        cur = back[:, t].gather(1, cur[:, None]).squeeze(1)                  # (B,)
    pad = torch.arange(N, device=device)[None, :] >= lengths[:, None]        # (B, N)
    return labels.masked_fill(pad, 0)                                        # (B, N)


def viterbi_one(unary: np.ndarray, pair: np.ndarray, lam: float = LAMBDA) -> list[int]:
    """Reference Viterbi for one unpadded sequence: unary (L, 2) and pair (L-1, 4) log-probabilities -> L labels."""
    unary = np.asarray(unary, dtype=np.float64)                              # (L, 2)
    pair = np.asarray(pair, dtype=np.float64).reshape(-1, 2, 2)              # (L-1, 2, 2)
    L = len(unary)
    if L == 0:
        return []
    score = unary[0].copy()                                                  # (2,)
    back = []
    for t in range(1, L):
        cand = score[:, None] + lam * pair[t - 1] + unary[t][None, :]        # (2 prev, 2 cur)
        back.append(cand.argmax(axis=0))                                     # (2,)
        score = cand.max(axis=0)                                             # (2,)
    labels = [int(score.argmax())]
    for bp in reversed(back):
        labels.append(int(bp[labels[-1]]))
    return labels[::-1]
