"""FreeDOM's relation stage: candidates and pairs as the patent counts them (equation 14), the decision rule,
the model files with a pair network, and a site's pages together == each page alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pagesieve.models.freedom.features import FLAG_NAMES, TAGS
from pagesieve.models.freedom.model import FreeDOMModel
from pagesieve.models.freedom.net import NodeNet
from pagesieve.models.freedom.nodes import TextNode
from pagesieve.models.freedom.relation import (
    PAIR_LABELS,
    RelationNet,
    candidate_pairs,
    decide,
    page_candidates,
    position_ids,
    xpath_tag_ids,
)

K = 5


def _probs(best: list[int], n: int = 30, seed: int = 0) -> np.ndarray:
    """n nodes; node i of `best` has its argmax at field i; every other node's argmax is none (K)."""
    rng = np.random.default_rng(seed)
    p = rng.random((n, K + 1)) * 0.1
    p[:, K] = 1.0
    for field, node in enumerate(best):
        if node >= 0:
            p[node, field] = 2.0
    return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("certain", [0, 1, 3, 5])
def test_pairs_are_the_patents_equation_14(certain):
    m = 4
    candidates = page_candidates(_probs(list(range(certain)) + [-1] * (K - certain)), K, m)
    assert candidates.certain.tolist() == [k < certain for k in range(K)]
    head, tail = candidate_pairs(candidates)
    t = certain
    assert len(head) == t * (t - 1) + 2 * t * m * (K - t) + m * m * (K - t) * (K - t - 1)
    assert (candidates.field[head] != candidates.field[tail]).all()


def test_candidates_are_the_node_level_choice_and_the_top_m_of_uncertain_fields():
    probs = _probs([3, -1, -1, -1, -1])
    candidates = page_candidates(probs, K, m=2)
    assert candidates.node[candidates.field == 0].tolist() == [3]
    for k in range(1, K):
        assert candidates.node[candidates.field == k].tolist() == np.argsort(-probs[:, k])[:2].tolist()
    forced = page_candidates(probs, K, m=2, uncertain=np.array([True, False, False, False, False]))
    assert not forced.certain[0] and (forced.field == 0).sum() == 2


def test_an_uncertain_field_takes_the_candidate_labelled_value_in_most_pairs():
    probs = _probs([0, -1, -1, -1, -1], n=10)
    candidates = page_candidates(probs, K, m=2)
    head, tail = candidate_pairs(candidates)
    labels = np.zeros(len(head), dtype=np.int64)                  # none-none everywhere ...
    field1 = np.flatnonzero(candidates.field == 1)
    a, b = candidates.node[field1]
    labels[(head == field1[1]) & (candidates.field[tail] == 0)] = PAIR_LABELS.index("value-none")
    labels[(tail == field1[1]) & (candidates.field[head] == 2)] = PAIR_LABELS.index("none-value")
    labels[(head == field1[0]) & (candidates.field[tail] == 3)] = PAIR_LABELS.index("value-value")
    decided = decide(candidates, head, tail, labels, probs)
    assert decided[1] == b                                         # two "value" verdicts beat one
    assert 0 not in decided                                        # a certain field is left to the node stage
    assert set(decided) == {1, 3}                                  # field 3's tail side of the value-value pair


def test_xpath_tags_and_positions():
    ids, lengths = xpath_tag_ids(["/html/body/div[2]/table/tr[3]/td[2]/text()[1]", "/html/body/blink/text()"])
    assert lengths.tolist() == [7, 4]
    assert ids[0, :7].tolist()[:3] == [2, 3, 4] and ids[1, 2] == 1 and ids[0, 7:].sum() == 0
    assert position_ids(np.array([0, 49, 99]), 100).tolist() == [0, 49, 99]
    assert position_ids(np.array([0, 2]), 3).tolist() == [0, 66]


def _model(seed: int = 0) -> FreeDOMModel:
    torch.manual_seed(seed)
    vocab = ["<pad>", "<unk>", "dune", "by"]
    glove = torch.randn(len(vocab), 50).half().float()
    net = NodeNet(K, glove, len(TAGS), len(FLAG_NAMES), hidden=8)
    fields = ["author", "isbn_13", "publication_date", "publisher", "title"]
    return FreeDOMModel(net, vocab, fields, "book", {"seed": seed}, RelationNet(net.node_dim, K))


def _site(n_pages: int) -> list[list[TextNode]]:
    return [[TextNode(f"/html/body/div/p[{j}]/text()[1]", f"text {i} {j}", "p", "by") for j in range(1, 13)]
            for i in range(n_pages)]


def test_model_files_keep_the_pair_network_and_pages_together_equal_pages_alone(tmp_path):
    model = _model()
    model.save(tmp_path / "m")
    again = FreeDOMModel.load(tmp_path / "m")
    assert again.relation is not None
    for a, b in zip(model.relation.state_dict().values(), again.relation.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    pages = _site(6)
    inputs = [model.encode(p) for p in pages]
    probs = [model.probabilities(i) for i in inputs]
    together = again.relation_decisions(model.encode([n for p in pages for n in p]), pages, probs, m=3)
    alone = [again.relation_decisions(i, [p], [pr], m=3)[0] for i, p, pr in zip(inputs, pages, probs, strict=True)]
    small_chunks = again.relation_decisions(model.encode([n for p in pages for n in p]), pages, probs, m=3,
                                            max_pairs=50)
    assert together == alone == small_chunks
    assert any(together)                                     # an untrained network still labels some pairs
