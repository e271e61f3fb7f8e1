"""FreeDOM's node-level network (patent, "node encoder"): word vectors + a character CNN per word, a BiLSTM over
the words mean-pooled, the same for the preceding text, discrete features through embedding matrices, then an
MLP with a softmax over K fields + none.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

__all__ = ["TextEncoder", "NodeNet"]

N_CHARS = 97               # PAD, UNK, printable ASCII (features.char_ids)


class TextEncoder(nn.Module):
    """(N, W) word ids + (N, W, C) char ids -> (N, 2H) mean of a BiLSTM over [GloVe ; char CNN] per word."""

    def __init__(self, words: nn.Embedding, chars: nn.Embedding, char_cnn: nn.Conv1d, hidden: int) -> None:
        super().__init__()
        self.words, self.chars, self.char_cnn = words, chars, char_cnn
        self.lstm = nn.LSTM(words.embedding_dim + char_cnn.out_channels, hidden, batch_first=True,
                            bidirectional=True)

    def forward(self, word_ids: torch.Tensor, char_ids: torch.Tensor) -> torch.Tensor:
        n, w, c = char_ids.shape
        chars = self.chars(char_ids.view(n * w, c)).transpose(1, 2)        # (N*W, E_c, C)
        char_vec = self.char_cnn(chars).amax(dim=2).view(n, w, -1)         # (N, W, 50): max-pool over chars
        x = torch.cat([self.words(word_ids), char_vec], dim=2)             # (N, W, 50 + 50)
        lengths = (word_ids != 0).sum(dim=1).clamp(min=1)                  # (N,) an empty text reads one PAD
        packed = pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True, total_length=w)  # (N, W, 2H)
        return out.sum(dim=1) / lengths.unsqueeze(1).to(out.dtype)        # (N, 2H) mean over the real words


class NodeNet(nn.Module):
    """Logits over K fields + none (index K) for each node."""

    def __init__(self, n_fields: int, embeddings: torch.Tensor, n_tags: int, n_flags: int, hidden: int = 32,
                 char_dim: int = 16, char_filters: int = 50, mlp: int = 64, label_bag: bool = False,
                 label_dropout: float = 0.0) -> None:
        super().__init__()
        self.config = {"hidden": hidden, "char_dim": char_dim, "char_filters": char_filters, "mlp": mlp}
        # the label as the mean of its frozen word vectors (`TextNode.label`): a label no seed site used lands
        # near its synonyms, which a BiLSTM fitted to a few labels does not promise; off in older models
        # label_dropout: in training, the share of nodes whose label bag is zeroed, so that the other features
        # still decide where a site's labels say nothing (a title's "label" is whatever text precedes it)
        self.label_bag, self.label_dropout = label_bag, label_dropout
        if label_bag:
            self.config |= {"label_bag": True, "label_dropout": label_dropout}
        # GloVe stays frozen: words unseen in the seed sites keep their meaning on a new site (transfer)
        words = nn.Embedding.from_pretrained(embeddings.float(), freeze=True, padding_idx=0)
        chars = nn.Embedding(N_CHARS, char_dim, padding_idx=0)
        char_cnn = nn.Conv1d(char_dim, char_filters, kernel_size=3, padding=1)
        self.node = TextEncoder(words, chars, char_cnn, hidden)
        self.preceding = TextEncoder(words, chars, char_cnn, hidden)
        self.tags = nn.Embedding(n_tags, 8)
        self.flags = nn.Linear(n_flags, 16, bias=False)     # = the sum of the embeddings of the flags that are on
        label_dim = words.embedding_dim if label_bag else 0
        self.mlp = nn.Sequential(nn.Linear(4 * hidden + 8 + 16 + label_dim, mlp), nn.ReLU(), nn.Dropout(0.2),
                                 nn.Linear(mlp, n_fields + 1))

    @property
    def node_dim(self) -> int:
        """Width of `represent`'s vectors."""
        return self.mlp[0].in_features

    def represent(self, words: torch.Tensor, chars: torch.Tensor, prev_words: torch.Tensor, prev_chars: torch.Tensor,
                  tags: torch.Tensor, flags: torch.Tensor, label_words: torch.Tensor | None = None) -> torch.Tensor:
        """(N, 4H + 24 [+ E]): the patent's comprehensive node vector n, which the MLP classifies and the relation
        stage pairs; with `label_bag`, the label's mean word vector (E) too."""
        parts = [self.node(words, chars), self.preceding(prev_words, prev_chars),   # (N, 2H), (N, 2H)
                 self.tags(tags), self.flags(flags)]                                # (N, 8), (N, 16)
        if self.label_bag:
            if label_words is None:
                raise ValueError("this model reads node labels: pass label_words")
            known = (label_words > 1).unsqueeze(2).to(parts[0].dtype)               # PAD and UNK add nothing
            bag = (self.node.words(label_words) * known).sum(dim=1) / known.sum(dim=1).clamp(min=1)
            if self.training and self.label_dropout:
                bag = bag * (torch.rand(len(bag), 1, device=bag.device) >= self.label_dropout).to(bag.dtype)
            parts.append(bag)                                                       # (N, E)
        return torch.cat(parts, dim=1)

    def forward(self, words: torch.Tensor, chars: torch.Tensor, prev_words: torch.Tensor, prev_chars: torch.Tensor,
                tags: torch.Tensor, flags: torch.Tensor, label_words: torch.Tensor | None = None) -> torch.Tensor:
        return self.mlp(self.represent(words, chars, prev_words, prev_chars, tags, flags, label_words))  # (N, K+1)
