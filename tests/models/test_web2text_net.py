import itertools
import math

import numpy as np
import pytest
import torch

from pagesieve.models.web2text.features import EDGE_FEATURE_NAMES, FEATURE_NAMES
from pagesieve.models.web2text.net import N_BLOCK_FEATURES, N_EDGE_FEATURES, PairwiseCNN, UnaryCNN
from pagesieve.models.web2text.viterbi import viterbi, viterbi_one


def _random_logp(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.log_softmax(3 * torch.randn(*shape, generator=gen, dtype=torch.float64), dim=-1)


def _brute_force(unary: torch.Tensor, pair: torch.Tensor, lam: float) -> list[int]:
    L = unary.shape[0]
    best, best_labels = -math.inf, None
    for labels in itertools.product((0, 1), repeat=L):
        s = sum(unary[i, labels[i]].item() for i in range(L))
        s += lam * sum(pair[i, 2 * labels[i] + labels[i + 1]].item() for i in range(L - 1))
        if s > best:
            best, best_labels = s, list(labels)
    return best_labels


def test_feature_counts_match_features_module():
    assert N_BLOCK_FEATURES == len(FEATURE_NAMES) == 128
    assert N_EDGE_FEATURES == len(EDGE_FEATURE_NAMES) == 25


@pytest.mark.parametrize("n", [1, 2, 17])
def test_net_output_shapes_are_log_probabilities(n):
    torch.manual_seed(0)
    unary, pairwise = UnaryCNN().eval(), PairwiseCNN().eval()
    with torch.inference_mode():
        u = unary(torch.randn(3, n, 128))
        p = pairwise(torch.randn(3, n - 1, 25))
    assert u.shape == (3, n, 2) and p.shape == (3, n - 1, 4)
    torch.testing.assert_close(u.exp().sum(-1), torch.ones(3, n))
    torch.testing.assert_close(p.exp().sum(-1), torch.ones(3, n - 1))


def test_nets_match_the_paper_layers():
    for net, filters in ((UnaryCNN(), [50, 50, 50, 10, 2]), (PairwiseCNN(), [50, 50, 50, 10, 4])):
        assert [c.out_channels for c in net.convs] == filters
        assert [c.kernel_size[0] for c in net.convs] == [1, 1, 3, 3, 3]
        assert all(c.stride == (1,) for c in net.convs)
        assert net.drop.p == 0.2


def test_eval_mode_is_deterministic_and_train_mode_uses_dropout():
    torch.manual_seed(1)
    net = UnaryCNN()
    x = torch.randn(3, 17, 128)
    with torch.inference_mode():
        net.eval()
        a, b = net(x), net(x)
        net.train()
        c = net(x)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_init_is_deterministic_under_manual_seed():
    torch.manual_seed(7)
    a = PairwiseCNN().state_dict()
    torch.manual_seed(7)
    b = PairwiseCNN().state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_zero_padding_keeps_blocks_far_apart_independent():
    # receptive field is 1 + 3 * 2 = 7 blocks: block 0 cannot see block 10
    torch.manual_seed(2)
    net = UnaryCNN().eval()
    x = torch.randn(1, 11, 128)
    y = x.clone()
    y[0, 10] += 5
    with torch.inference_mode():
        assert torch.equal(net(x)[0, 0], net(y)[0, 0])
        assert not torch.equal(net(x)[0, 7], net(y)[0, 7])


def test_viterbi_equals_brute_force_on_random_padded_batches():
    gen = torch.Generator().manual_seed(3)
    for case in range(50):
        B, N = 4, 1 + case % 8
        unary, pair = _random_logp(gen, B, N, 2), _random_logp(gen, B, N - 1, 4)
        lengths = torch.randint(1, N + 1, (B,), generator=gen)
        lam = [0.1, 1.0, 5.0][case % 3]
        got = viterbi(unary, pair, lengths, lam=lam)
        for b in range(B):
            L = int(lengths[b])
            expected = _brute_force(unary[b, :L], pair[b, : L - 1], lam)
            assert got[b].tolist() == expected + [0] * (N - L)
            assert viterbi_one(unary[b, :L].numpy(), pair[b, : L - 1].numpy(), lam) == expected


def test_padding_does_not_change_results():
    gen = torch.Generator().manual_seed(4)
    B, N = 6, 12
    unary, pair = _random_logp(gen, B, N, 2), _random_logp(gen, B, N - 1, 4)
    lengths = torch.tensor([12, 1, 5, 2, 11, 0])
    # garbage in the padding must not matter
    mask = torch.arange(N)[None, :] >= lengths[:, None]
    unary = unary.masked_fill(mask[:, :, None], 100.0)
    pair = pair.masked_fill((torch.arange(N - 1)[None, :] >= (lengths[:, None] - 1))[:, :, None], -100.0)
    got = viterbi(unary, pair, lengths)
    for b in range(B):
        L = int(lengths[b])
        alone = viterbi(unary[b : b + 1, :L], pair[b : b + 1, : max(L - 1, 0)])
        assert got[b, :L].tolist() == alone[0].tolist() == viterbi_one(unary[b, :L], pair[b, : max(L - 1, 0)])
        assert got[b, L:].tolist() == [0] * (N - L)


def test_single_block_sequences_take_the_unary_argmax():
    unary = torch.log(torch.tensor([[[0.3, 0.7]], [[0.8, 0.2]], [[0.4, 0.6]]]))
    assert viterbi(unary, torch.zeros(3, 0, 4)).tolist() == [[1], [0], [1]]
    assert viterbi(torch.zeros(2, 0, 2), torch.zeros(2, 0, 4)).shape == (2, 0)


def test_lambda_zero_gives_unary_argmax():
    gen = torch.Generator().manual_seed(5)
    unary, pair = _random_logp(gen, 5, 9, 2), _random_logp(gen, 5, 8, 4)
    assert np.array_equal(viterbi(unary, pair, lam=0.0), unary.argmax(-1).numpy())


def test_pairwise_term_flips_a_label():
    # block 0 is clearly content; block 1 leans boilerplate (0.55) on its own, but "content -> content" is very
    # likely: 0.1 * (log 0.97 - log 0.01) = 0.457 > log 0.55 - log 0.45 = 0.201, so block 1 becomes content.
    unary = torch.log(torch.tensor([[[0.1, 0.9], [0.55, 0.45]]], dtype=torch.float64))
    pair = torch.log(torch.tensor([[[0.01, 0.01, 0.01, 0.97]]], dtype=torch.float64))
    assert unary.argmax(-1).tolist() == [[1, 0]]
    assert viterbi(unary, pair, lam=0.1).tolist() == [[1, 1]]
    assert viterbi_one(unary[0].numpy(), pair[0].numpy(), lam=0.1) == [1, 1]
    # with a smaller lambda the pairwise pull is too weak: 0.04 * 4.575 = 0.183 < 0.201
    assert viterbi(unary, pair, lam=0.04).tolist() == [[1, 0]]


def test_viterbi_one_reference_matches_on_numpy_input():
    rng = np.random.default_rng(6)
    u = np.log(rng.dirichlet([1, 1], size=6))
    p = np.log(rng.dirichlet([1, 1, 1, 1], size=5))
    assert viterbi_one(u, p) == _brute_force(torch.from_numpy(u), torch.from_numpy(p), 0.1)
