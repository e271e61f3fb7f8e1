"""BlockNet's network: per-block input layer, residual dilated 1-d convolutions over the block sequence, head.

(B, N, F) standardised inputs -> Linear(F, width) + ReLU + dropout -> 5 residual layers
h <- h + ReLU(Conv1d(h, kernel 3, dilation 1, 2, 4, 8, 16)) -> concatenated with the input layer's output ->
Linear(2 * width, 32) + ReLU -> Linear(32, 1): one content logit per block. The receptive field is
1 + 2 * (1 + 2 + 4 + 8 + 16) = 63 blocks (31 on each side), so a block sees the section around it (a comment
list, a menu) without a recurrent pass, at the cost of one matrix product per layer.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["BlockCNN", "DILATIONS"]

DILATIONS = (1, 2, 4, 8, 16)


class BlockCNN(nn.Module):
    def __init__(self, in_features: int, width: int = 64, dropout: float = 0.3) -> None:
        super().__init__()
        self.in_features = in_features
        self.width = width
        self.inp = nn.Linear(in_features, width)
        self.drop = nn.Dropout(dropout)
        self.convs = nn.ModuleList(nn.Conv1d(width, width, 3, padding=d, dilation=d) for d in DILATIONS)
        self.hidden = nn.Linear(2 * width, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(B, N, F), lengths (B,) -> (B, N) logits; positions >= length are padding (outputs meaningless).

        Padding is zeroed before and after every convolution, so a page padded into a batch sees the same zeros
        past its end as alone: batched and one-by-one logits agree.
        """
        if x.shape[-1] != self.in_features:
            raise ValueError(f"expected {self.in_features} features, got {x.shape[-1]}")
        B, N, _ = x.shape
        keep = (torch.arange(N, device=x.device)[None, :] < lengths.to(x.device)[:, None]).unsqueeze(1).to(x.dtype)
        h = self.drop(F.relu(self.inp(x)))                        # (B, N, W)
        c = h.transpose(1, 2) * keep                              # (B, W, N)
        for conv in self.convs:
            c = (c + F.relu(conv(c))) * keep
        z = torch.cat([c.transpose(1, 2), h], dim=-1)             # (B, N, 2W)
        return self.out(F.relu(self.hidden(z))).squeeze(-1)       # (B, N)
