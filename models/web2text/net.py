"""Web2Text unary and pairwise potential CNNs (Vogels, Ganea, Eickhoff, ECIR 2018, section 3.4).

Both nets are 5 one-dimensional convolutions over the sequence of text blocks (unary) or of neighbouring block
pairs (pairwise), stride 1, zero padding so every layer keeps the sequence length, ReLU and dropout 0.2 between
layers, and a softmax over the last layer's channels. We return log-probabilities (`log_softmax`), which is what
the cross-entropies (1), (2) and the Viterbi decoding of (3) consume.

Label convention (the paper's, and `label_blocks`'): label 1 = content, 0 = boilerplate, so the unary output
channel c is log p_i(l_i = c), and the pairwise output channel 2 * a + b is log p_{i,i+1}(l_i = a, l_{i+1} = b),
i.e. channels (00, 01, 10, 11).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["N_BLOCK_FEATURES", "N_EDGE_FEATURES", "KERNEL_SIZES", "UNARY_FILTERS", "PAIRWISE_FILTERS", "DROPOUT",
           "UnaryCNN", "PairwiseCNN"]

# section 3.3 / Appendix A: feature counts (models/web2text/features.py)
N_BLOCK_FEATURES = 128
N_EDGE_FEATURES = 25
# section 3.4: "filter sizes of (50, 50, 50, 10, 2) for the unary network and of (50, 50, 50, 10, 4) for the
# pairwise network. All filters have a stride of 1 and kernel sizes (1, 1, 3, 3, 3)"; "dropout ... rate 0.2"
KERNEL_SIZES = (1, 1, 3, 3, 3)
UNARY_FILTERS = (50, 50, 50, 10, 2)
PAIRWISE_FILTERS = (50, 50, 50, 10, 4)
DROPOUT = 0.2


class _SequenceCNN(nn.Module):
    """Conv1d stack over the sequence axis: (B, N, F) -> (B, N, C) log-softmax over the last layer's C channels."""

    def __init__(self, in_features: int, filters: tuple[int, ...], kernel_sizes: tuple[int, ...],
                 dropout: float) -> None:
        super().__init__()
        if len(filters) != len(kernel_sizes):
            raise ValueError(f"{len(filters)} filter counts but {len(kernel_sizes)} kernel sizes")
        if any(k % 2 == 0 for k in kernel_sizes):
            raise ValueError(f"'same' zero padding needs odd kernel sizes, got {kernel_sizes}")
        widths = (in_features, *filters)
        self.convs = nn.ModuleList(nn.Conv1d(c_in, c_out, k, stride=1, padding=k // 2)
                                   for c_in, c_out, k in zip(widths[:-1], widths[1:], kernel_sizes, strict=True))
        self.drop = nn.Dropout(dropout)
        self.in_features = in_features
        self.out_features = filters[-1]

    def forward(self, x: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        """(B, N, F) -> (B, N, C); `lengths` (B,) marks positions >= L as padding.

        Padding is zeroed after every layer, so a sequence padded into a batch sees the same zeros past its
        end as it would alone (the biases would otherwise leak into the last real positions through the
        width-3 kernels): batched and one-by-one outputs agree. Outputs at padded positions are meaningless.
        """
        B, N, n_feat = x.shape                                    # (B, N, F)
        if n_feat != self.in_features:
            raise ValueError(f"expected {self.in_features} features, got {n_feat}")
        if N == 0:                                                # no blocks / no edges (a 1-block page)
            return x.new_zeros(B, 0, self.out_features)           # (B, 0, C)
        keep = None
        if lengths is not None:
            positions = torch.arange(N, device=x.device)
            keep = (positions[None, :] < lengths.to(x.device)[:, None]).unsqueeze(1).to(x.dtype)  # (B, 1, N)
        h = x.transpose(1, 2)                                     # (B, F, N)
        if keep is not None:
            h = h * keep
        for conv in self.convs[:-1]:
            h = self.drop(F.relu(conv(h)))                        # (B, H, N)
            if keep is not None:
                h = h * keep
        logits = self.convs[-1](h)                                # (B, C, N)
        return F.log_softmax(logits, dim=1).transpose(1, 2)       # (B, N, C)


class UnaryCNN(_SequenceCNN):
    """Unary potentials: block features (B, N, 128) -> (B, N, 2) log p_i(l_i), channel 0 boilerplate, 1 content."""

    def __init__(self, in_features: int = N_BLOCK_FEATURES, dropout: float = DROPOUT) -> None:
        super().__init__(in_features, UNARY_FILTERS, KERNEL_SIZES, dropout)


class PairwiseCNN(_SequenceCNN):
    """Pairwise potentials: edge features (B, N-1, 25) -> (B, N-1, 4) log p_{i,i+1}(l_i, l_{i+1}).

    Channel 2 * l_i + l_{i+1}: (00, 01, 10, 11), 0 = boilerplate, 1 = content.
    """

    def __init__(self, in_features: int = N_EDGE_FEATURES, dropout: float = DROPOUT) -> None:
        super().__init__(in_features, PAIRWISE_FILTERS, KERNEL_SIZES, dropout)
