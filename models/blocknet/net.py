"""BlockNet's network: per-block input layer, residual dilated 1-d convolutions over the block sequence, a page
summary, head.

(B, N, F) standardised inputs (clipped: BlockNetModel) -> Linear(F, width) + ReLU + dropout -> 5 residual layers
h <- h + ReLU(Conv1d(h, kernel 3, dilation 1, 2, 4, 8, 16)) -> concatenated with the input layer's output and
the page summary (the mean and the maximum of the last layer over the page's blocks) -> Linear(4 * width, 32) +
ReLU -> Linear(32, 1): one content logit per block. The receptive field is 1 + 2 * (1 + 2 + 4 + 8 + 16) = 63
blocks (31 on each side), so a block sees the section around it (a comment list, a menu) without a recurrent
pass, at the cost of one matrix product per layer; the summary tells it what the rest of the page holds (is
there a longer run of prose elsewhere?) at the cost of one vector product per page (training's windows of at
most 512 blocks are summarised alone). The summary took the out-of-fold F1 from 0.9189 to 0.9218 (mean of 4
seeds; docs/experiments.md#2026-11-23-tried-after-blocknet-shipped-on-the-validation-parts).

Training and CUDA run `forward` (padded batches, `nn.Conv1d`). On the CPU the method runs `page_logits`: the same
network one page at a time, each convolution one matrix product of the page with its three taps side by side. On
one thread `nn.Conv1d` with dilation > 1 takes ~2.3x the time of the undilated one and a padded batch computes its
padding; `page_logits` takes about half the time of `forward` per page (over the 474 benchmark pages, one thread:
0.49 against 0.90 ms/page). Its float sums run in another order, so its logits differ from `forward`'s by up to
~6e-6 (no label of the six pools' 1,815 pages changed: docs/experiments.md#2026-11-24-blocknet-speed-the-history).
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
        self.hidden = nn.Linear(4 * width, 32)           # [block, input layer, page mean, page max]
        self.out = nn.Linear(32, 1)
        self._inference: tuple[tuple, tuple] = ((), ())   # see _page_weights
        self._parameters_read = list(self.parameters())     # walking the module tree each time: 15 us a page

    def _page_weights(self) -> tuple:
        """The parameters laid out for `page_logits`: the input and head weights transposed (the head's in four
        parts, one per input), each convolution's (out, in, 3) weight as (in, 3 * out) (its three taps side by
        side, so that one matrix product gives every tap's output) with its bias in the middle tap's columns.
        Cached until a parameter is replaced or changed in place (an optimiser step, `load_state_dict`, the
        training script's moving average)."""
        key = tuple((p.data_ptr(), p._version) for p in self._parameters_read)
        if key != self._inference[0]:
            W = self.width
            with torch.no_grad():
                taps = tuple(c.weight.permute(1, 2, 0).reshape(W, 3 * W).contiguous() for c in self.convs)
                zeros = torch.zeros(W, dtype=self.inp.weight.dtype, device=self.inp.weight.device)
                biases = tuple(torch.cat([zeros, c.bias, zeros]) for c in self.convs)
                hidden = self.hidden.weight
                weights = (self.inp.weight.t().contiguous(), self.inp.bias.clone(), taps, biases,
                           hidden[:, :W].t().contiguous(), hidden[:, W : 2 * W].t().contiguous(),
                           hidden[:, 2 * W :].contiguous(), self.hidden.bias.clone(),
                           self.out.weight[0].clone(), self.out.bias.clone())
            self._inference = (key, weights)
        return self._inference[1]

    @torch.inference_mode()
    def page_logits(self, x: torch.Tensor) -> torch.Tensor:
        """(N, F) standardised inputs of one page -> (N,) logits: `forward` in eval mode, without padding.

        A dilation-d convolution with zero padding d is y[t] = W0 h[t - d] + W1 h[t] + W2 h[t + d] + b, h zero
        outside the page: one (N, W) x (W, 3W) product, then the first and last W columns added shifted by d.
        """
        if x.dim() != 2 or x.shape[-1] != self.in_features:
            raise ValueError(f"expected (blocks, {self.in_features}) inputs, got {tuple(x.shape)}")
        W, n = self.width, x.shape[0]
        if n == 0:
            return x.new_zeros(0)
        inp_w, inp_b, taps, biases, hidden_c, hidden_h, hidden_page, hidden_b, out_w, out_b = self._page_weights()
        h = torch.addmm(inp_b, x, inp_w).relu_()                                        # (N, W)
        c = h.clone()
        for d, tap_w, tap_b in zip(DILATIONS, taps, biases, strict=True):
            y = torch.addmm(tap_b, c, tap_w)                                              # (N, 3W)
            z = y[:, W : 2 * W]
            if d < n:                          # add_ on views: `z[d:] += ...` would also copy z[d:] onto itself
                z[d:].add_(y[:-d, :W])
                z[:-d].add_(y[d:, 2 * W :])
            c.add_(z.relu_())
        summary = torch.cat([c.mean(0), c.amax(0)])                                       # (2W,)
        page_b = torch.addmv(hidden_b, hidden_page, summary)                             # (32,) per page
        z = torch.addmm(page_b, c, hidden_c).addmm_(h, hidden_h).relu_()                 # (N, 32)
        return torch.addmv(out_b, z, out_w)                                              # (N,)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(B, N, F), lengths (B,) -> (B, N) logits; positions >= length are padding (outputs meaningless).

        Padding is zeroed before and after every convolution, so a page padded into a batch sees the same zeros
        past its end as alone, and its summary is taken over its own blocks (the layers' outputs are >= 0, so the
        zeros do not change the maximum): batched and one-by-one logits agree.
        """
        if x.shape[-1] != self.in_features:
            raise ValueError(f"expected {self.in_features} features, got {x.shape[-1]}")
        B, N, _ = x.shape
        keep = (torch.arange(N, device=x.device)[None, :] < lengths.to(x.device)[:, None]).unsqueeze(1).to(x.dtype)
        h = self.drop(F.relu(self.inp(x)))                        # (B, N, W)
        c = h.transpose(1, 2) * keep                              # (B, W, N)
        for conv in self.convs:
            c = (c + F.relu(conv(c))) * keep
        mean = c.sum(-1) / lengths.to(c.device, c.dtype).clamp(min=1)[:, None]
        summary = torch.cat([mean, c.amax(-1)], dim=-1)           # (B, 2W)
        z = torch.cat([c.transpose(1, 2), h, summary[:, None, :].expand(B, N, -1)], dim=-1)   # (B, N, 4W)
        return self.out(F.relu(self.hidden(z))).squeeze(-1)       # (B, N)
