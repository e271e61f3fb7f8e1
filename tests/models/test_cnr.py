"""CNR on hand-checked pages: Algorithm 1's numbers, Algorithm 2's fixpoint, the adjust knob."""

import pytest

from pagesieve.models.cnr import CNR, CNRSettings, compute_cnr, select_blocks
from pagesieve.models.page import parse_page

# Example 3.2 of the paper (Wikipedia, "Information retrieval"), as printed.
EXAMPLE_3_2 = b"""<html><body>
  <h1 id="firstHeading" class="firstHeading"> Information retrieval</h1>
  <div id="content">
    <p><b>Information retrieval</b>
      (IR) is the science of searching for documents, for information within documents,
      and for metadata about documents (...)</p>
  </div>
  <div class="portal" id="p-lang">
    <h5>Languages</h5> (...)</div>
  <div id="footer">
    <li id="footer-info-lastmod"> This page was last modified on 15 April 2011 at 23:32.</li>
    <li id="footer-info-copyright">Text is available under the
      <a rel="license"> Creative Commons Attribution-ShareAlike License</a>
      additional terms may apply. See Terms of Use for (...)</li>
  </div>
</body></html>"""

ARTICLE = b"""<html><head><title>Tides</title></head><body>
<div id="menu"><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li>Sports desk</li></ul></div>
<div id="main">
 <h2>Why the sea rises twice a day</h2>
 <p>The moon pulls the ocean toward it, and the water on the far side bulges away as well.</p>
 <p>As the earth turns beneath both bulges, every coast sees two high tides in a little over a day.</p>
 <p>The sun adds its own smaller pull, which is why spring tides and neap tides alternate.</p>
</div>
<div id="footer"><p>Copyright 2024 Example Media. All rights reserved.</p></div>
</body></html>"""


def cnr(**overrides) -> CNR:
    return CNR(CNRSettings.load(overrides))


def test_algorithm_1_weights_and_lengths_on_a_small_tree():
    page = parse_page(b"<body><div><p>abc de</p><script>var x;</script></div>xy z</body>")
    t = compute_cnr(page.body, frozenset({"script"}))
    # nodes: body, div, p, "abc de", script, "xy z"  (spaces are not characters)
    assert t.weight == [6, 4, 2, 1, 1, 1]
    assert t.text_length == [8, 5, 5, 5, 0, 3]
    assert t.cnr(0) == pytest.approx(8 / 6) and t.cnr(2) == pytest.approx(2.5)


def test_non_content_subtree_is_one_node_with_no_text():
    page = parse_page(b"<body><nav><ul><li>a long menu entry</li><li>another</li></ul></nav><p>x</p></body>")
    t = compute_cnr(page.body, frozenset({"nav"}))
    assert [t.weight[1], t.text_length[1]] == [1, 0]
    assert t.text_length[0] == 1


def test_algorithm_2_merges_siblings_up_to_a_fixpoint():
    page = parse_page(b"<body><div><p>aaaa</p><p>bbbb</p></div><div><span>cccccccc</span></div></body>")
    t = compute_cnr(page.body, frozenset())
    by_tag = {t.elements[i].tag + str(i): i for i in range(len(t)) if not t.is_text(i)}
    p1, p2, span = by_tag["p2"], by_tag["p4"], by_tag["span7"]
    # p1 and p2 are brothers -> their div; that div and the span's div are not brothers of the span
    blocks = select_blocks(t, {p1, p2, span})
    assert {t.elements[b].tag for b in blocks} == {"div", "span"}
    # adding the second div makes both divs brothers -> body
    assert select_blocks(t, {p1, p2, span, t.parent[span]}) == {0}


def test_example_3_2_keeps_the_article_and_drops_the_footer():
    result = cnr().process(parse_page(EXAMPLE_3_2))
    assert result.status == "ok"
    assert "(IR) is the science of searching for documents" in result.text
    assert "last modified" not in result.text and "Creative Commons" not in result.text
    assert result.content_xpaths[0].startswith("/html/body/div[1]")
    assert result.title == "Information retrieval"


def test_article_block_is_chosen_over_menu_and_footer():
    result = cnr().process(parse_page(ARTICLE))
    assert result.content_xpaths == ("/html/body/div[2]",)
    assert result.text.split("\n\n")[0] == "Why the sea rises twice a day"
    assert "spring tides and neap tides alternate" in result.text
    assert "Sports desk" not in result.text and "Copyright" not in result.text


def test_increase_information_moves_to_the_parent():
    result = cnr(adjust=1).process(parse_page(ARTICLE))
    assert result.content_xpaths == ("/html/body",)
    assert "Copyright 2024" in result.text


def test_decrease_information_moves_to_the_child_with_highest_cnr():
    result = cnr(adjust=-1).process(parse_page(ARTICLE))
    assert result.content_xpaths[0].startswith("/html/body/div[2]/p")
    assert "\n\n" not in result.text


def test_page_with_no_text_is_empty_not_an_error():
    result = cnr().process(parse_page(b"<html><body><img src=x><script>1</script></body></html>"))
    assert result.status == "empty" and result.text == ""


@pytest.mark.slow
def test_deep_page_is_processed_iteratively():
    html = "<body>" + "<div>" * 50_000 + "<p>" + "word " * 50 + "</p>" + "</div>" * 50_000 + "</body>"
    result = cnr().process(parse_page(html.encode()))
    assert result.status == "ok" and result.n_words == 50


def test_process_batch_equals_process():
    method = cnr()
    pages = [parse_page(EXAMPLE_3_2), parse_page(ARTICLE)]
    assert method.process_batch(pages) == [method.process(p) for p in pages]


def test_bad_settings_fail_before_any_page():
    with pytest.raises(ValueError):
        cnr(top_fraction=0)
    with pytest.raises(ValueError, match="unknown setting"):
        cnr(no_such_key=1)
    with pytest.raises(ValueError, match="expected int"):
        cnr(top_min="three")


def test_text_after_a_comment_is_counted():
    page = parse_page(b"<body><p>abc <!-- note --> de</p></body>")
    t = compute_cnr(page.body, frozenset())
    assert t.text_length[0] == 5 and t.weight == [4, 3, 1, 1]   # body, p, "abc", "de"
