"""The page model: decoding evidence order, bad bytes, parsing limits, DOM helpers."""

import gzip

import pytest
from lxml import etree

from pagesieve.models.page import (
    COMMENT,
    END,
    SKIP,
    START,
    EmptyPageError,
    NotHtmlError,
    decode_body,
    hidden_chars,
    iter_text_chunks,
    looks_binary,
    page_title,
    parse_html,
    parse_page,
    tag_path,
    title_elements,
    visible_text,
    walk_tree,
    xpath_of,
    xpaths_of,
)

CAFE_1252 = "<html><body><p>Caf\xe9 cr\xe8me</p></body></html>".encode("cp1252")


def test_http_charset_wins_when_it_decodes():
    decoded = decode_body("<p>h\u00e9llo</p>".encode("utf-8"), "utf-8")
    assert (decoded.text, decoded.source) == ("<p>h\u00e9llo</p>", "http")


def test_bom_beats_a_wrong_http_label():
    decoded = decode_body(b"\xef\xbb\xbf<p>\xc3\xa9</p>", "iso-8859-1")
    assert (decoded.text, decoded.source) == ("<p>\u00e9</p>", "bom")


def test_meta_charset_used_when_http_label_is_missing():
    body = b'<meta charset="windows-1252"><p>caf\xe9</p>'
    decoded = decode_body(body, None)
    assert decoded.source == "meta" and "caf\u00e9" in decoded.text


def test_wrong_utf8_label_falls_through_to_detection():
    decoded = decode_body(CAFE_1252, "utf-8")
    assert "Caf\u00e9 cr\u00e8me" in decoded.text and decoded.source == "detected"


@pytest.mark.parametrize("label", ["no-such-charset", "utf-16", "", "x\x00y"])
def test_unknown_or_impossible_label_never_crashes(label):
    assert "Caf" in decode_body(CAFE_1252, label).text


def test_latin1_label_decodes_as_windows_1252_like_browsers():
    assert decode_body(b"\x93quoted\x94", "iso-8859-1").text == "\u201cquoted\u201d"


def test_invalid_bytes_under_every_candidate_are_replaced_not_raised():
    decoded = decode_body(b"<p>ok \x81\x8d\x8f\x90\x9d \xff\xfe\xfd</p>", "ascii")
    assert decoded.text.startswith("<p>ok")


def test_empty_and_whitespace_bodies_are_empty_pages():
    for body in (b"", b"  \n\t ", None):
        with pytest.raises(EmptyPageError):
            parse_page(body)


def test_whitespace_is_told_apart_from_text_as_strip_does():
    for body in (b"\x0b\x0c\r\n", b" " * 5000):                  # ASCII whitespace, as bytes.strip() strips
        with pytest.raises(EmptyPageError, match="empty body"):
            parse_page(body)
    for text in (" \u3000\x85\x1c\t", "\u2029" * 100):         # Unicode whitespace, as str.strip() strips
        with pytest.raises(EmptyPageError, match="empty document"):
            parse_html(text)
    root, _ = parse_html(" \u3000<p>x</p>")
    assert root.findtext(".//p") == "x"


def test_binary_junk_labelled_html_is_not_html():
    junk = bytes((i * 37 + 11) % 256 for i in range(3000))
    with pytest.raises(NotHtmlError):
        parse_page(junk, content_type="text/html")


def test_non_markup_media_type_is_not_html():
    with pytest.raises(NotHtmlError):
        parse_page(b"%PDF-1.4 ...", content_type="application/pdf")


def test_page_without_body_parses_with_root_as_body():
    page = parse_page(b"<html><head><title>x</title></head></html>")
    assert page.body.tag in ("html", "body") and visible_text(page.body) == ""


def test_comment_only_document_is_empty():
    with pytest.raises(EmptyPageError):
        parse_html("<!-- nothing here -->")


def test_external_entities_are_not_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    html = f'<!DOCTYPE x [<!ENTITY e SYSTEM "file://{secret}">]><html><body><p>&e;</p></body></html>'
    root, _ = parse_html(html)
    assert "TOPSECRET" not in "".join(root.itertext())


@pytest.mark.slow
def test_100000_deep_dom_keeps_all_text_without_recursion():
    depth = 100_000
    html = "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "<p>after</p></body></html>"
    page = parse_page(html.encode())
    assert page.flattened
    assert visible_text(page.body) == "deep text\n\nafter"
    assert sum(1 for _ in page.root.iter()) >= depth  # nothing dropped, only lifted


def test_a_page_too_deep_for_libxml2_is_flattened_only_where_lexbor_nests_as_deep():
    # 3,000 unclosed <dd>: libxml2 nests them past its limit, lexbor (as a browser) closes each at the next;
    # nothing is lifted, so the page is not called flattened
    page = parse_page(("<html><body><dl>" + "<dd>x " * 3000 + "</dl></body></html>").encode())
    assert not page.flattened
    assert len(page.body.find("dl")) == 3000
    assert parse_page(("<html><body>" + "<b>x " * 3000 + "</body></html>").encode()).flattened


def test_visible_text_breaks_paragraphs_only_at_blocks():
    page = parse_page(b"<body><div>Hello <b>bold</b>\nworld<script>x()</script><p>Two</p>tail<br>end</div></body>")
    assert visible_text(page.body) == "Hello bold world\n\nTwo\n\ntail\n\nend"


def test_ruby_readings_are_not_text():
    # furigana over 漢字 (<rt>) and the parentheses around it (<rp>) would split the word they annotate
    page = parse_page("<body><p><ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>を読む</p></body>"
                      .encode())
    assert visible_text(page.body) == "漢字を読む"


def test_ruby_readings_on_a_real_page(shared_data):
    # NHK's news for learners: furigana over every kanji (trafilatura-eval's snippet gold quotes the text without)
    html = gzip.decompress((shared_data / "trafilatura-eval" / "input" / "nhk.or.jp.k100.html.gz").read_bytes())
    text = " ".join(visible_text(parse_page(html).body).split())
    assert "子どもへの虐待をなくすための法律ができて、親が子どもを教育するために、" in text
    assert "虐待ぎゃくたい" not in text


def test_a_formula_reads_as_its_latex_source():
    page = parse_page(b'<body><p>so <math alttext="a^2"><mi>a</mi><mn>2</mn></math>, <math display="block">'
                      b'<semantics><mi>b</mi><annotation encoding="application/x-tex">b_{i}\n + 1</annotation>'
                      b'</semantics></math>. Not <math><mi>c</mi></math>here.</p><p><span>x</span></p></body>')
    assert visible_text(page.body) == "so \\(a^2\\), \\[b_{i} + 1\\]. Not here.\n\nx"
    # the <math> elements stay, so the XPaths of the page's own elements do not move
    assert [xpath_of(e) for e in page.body.iter("math", "span")] == [
        "/html/body/p[1]/math[1]", "/html/body/p[1]/math[2]", "/html/body/p[1]/math[3]", "/html/body/p[2]/span"]


def test_formulas_on_a_real_page(shared_data):
    # Wikipedia's Hermitian matrix (Readability's test page): every formula carries its TeX in an annotation
    page = parse_page((shared_data / "readability" / "input" / "wikipedia-3.html").read_bytes())
    text = visible_text(page.body)
    assert "is denoted by \\({\\displaystyle A^{\\mathsf {H}}}\\), then the Hermitian property" in text
    assert text.count("\\({\\displaystyle") == 66 - text.count("\\[{\\displaystyle")


def test_hidden_chars_counts_the_text_walks_skip_in_noscript_and_buttons():
    page = parse_page(b"<body><p>shown</p><noscript><div> posted  <b>here</b> </div></noscript>"
                      b"<noscript><img src=x><button>in</button></noscript><button>Menu</button></body>")
    assert hidden_chars(page.root) == len("posted") + len("here") + len("in") + len("Menu")
    assert visible_text(page.body) == "shown"


def test_an_unclosed_button_holds_the_rest_of_the_page():
    # what hidden_chars is for: libxml2 keeps the button open past </button> (a browser closes it there)
    page = parse_page(b"<body><a>Skip</a><button><span>Menu</span><div></button><main><p>The article, all of "
                      b"it.</p></main></body>")
    assert visible_text(page.body) == "Skip"
    assert hidden_chars(page.root) == len("Menu") + len("The article, all of it.")


def test_markup_after_the_closing_html_goes_into_the_body():
    # a browser puts it there; libxml2 makes it a second top-level <html> that no method would read
    page = parse_page(b"<html><body><header>Menu</header></body></html><div><p>The article.</p></div>tail"
                      b"<html><body><p>More</p></body></html><!-- a comment -->")
    assert visible_text(page.body) == "Menu\n\nThe article.\n\ntail\n\nMore"
    assert page.root.xpath("//p")[0].getparent().getparent() is page.body


def test_a_second_body_after_the_closing_html_keeps_its_own_text():
    page = parse_page(b"<html><body><p>a</p></body></html><head><title>t</title></head><body class=x>Loose words"
                      b"<p>b</p></body>")
    assert visible_text(page.body) == "a\n\nLoose words\n\nb"


def test_a_real_article_after_a_stray_closing_html(shared_data):
    # WCXB 0310: the site's template closes </body></html> after the header; the whole post comes after it
    html = gzip.decompress((shared_data / "wcxb" / "input" / "0310.html.gz").read_bytes())
    page = parse_page(html)
    assert "When defined in the simplest way possible, HR is about people." in visible_text(page.body)


def test_markup_after_a_stray_closing_body_goes_into_the_body(shared_data):
    # libxml2 puts it beside the body, under <html>; a browser puts it in the body
    page = parse_page(b"<html><body><p>a</p></body><!-- c -->after<div>more</div></html>")
    assert visible_text(page.body) == "a\n\nafter\n\nmore"
    # CleanEval 49: a stray </body> after the first table, the whole page after it
    page = parse_page((shared_data / "cleaneval" / "input" / "49.html").read_bytes())
    assert "Residential Long Distance" in visible_text(page.body)


def test_a_title_that_swallowed_the_page_is_closed():
    # a crawl lost the bytes of </title>: title text is raw text, so the whole page would be title
    lost = b"<html><head><title>News - Site<link rel=x />\n</head><body><p>" + b"The article. " * 100 + b"</p></body>"
    page = parse_page(lost)
    assert visible_text(page.body).startswith("The article.")
    assert page.root.find("head/title").text == "News - Site"
    long_title = b"<html><head><title>" + b"a <b> long title " * 80 + b"</title></head><body><p>x</p></body>"
    assert len(parse_page(long_title).root.find("head/title").text) > 1_000     # no <body> in it: left as it is


def test_real_pages_whose_title_swallowed_them(shared_data):
    # L3S-GN1's crawl lost </title> on six pages; their article is the gold
    for name, passage in (("2454a2b5-a0b6-44c9-8d57-0406afc93e01", "Dave Berry"),
                          ("cb5cb16c-9a2e-4a00-9480-43cb90faac9d", "President Bush is urging OPEC nations")):
        page = parse_page((shared_data / "l3s-gn1" / "input" / f"{name}.html").read_bytes())
        assert passage in visible_text(page.body)


def test_a_page_libxml2_gives_up_on_is_parsed_as_a_browser_does(shared_data):
    # L3S-GN1 ce6830ee: `<html xmogo.jpg" alt=...`, the html start tag runs into the page; libxml2 returns an empty
    # tree, lexbor (an HTML5 parser) the page
    page = parse_page((shared_data / "l3s-gn1" / "input" / "ce6830ee-9292-4855-be7b-c5fe64d347b2.html").read_bytes())
    assert "Secretary of State Condoleezza Rice congratulated Iraq" in visible_text(page.body)
    # a tree built from lexbor's has no source lines; libxml2's elements carry theirs
    assert page.body.sourceline is None
    little = parse_page(b"<html><body><p>A short notice.</p><script>var x = 1;</script></body></html>")
    assert visible_text(little.body) == "A short notice."                # nothing more to read: libxml2's tree kept
    assert little.body.sourceline == 1


def test_xpath_tag_path_and_title():
    page = parse_page(b"<html><head><title> A  title </title></head><body><div></div><div><p>x</p></div></body></html>")
    p = page.root.find(".//p")
    assert xpath_of(p) == "/html/body/div[2]/p"
    assert tag_path(p) == "html/body/div/p"
    assert page_title(page.root) == "A title"


def test_title_falls_back_to_h1():
    assert page_title(parse_page(b"<body><h1>Head  line</h1></body>").root) == "Head line"


def test_an_inline_svg_title_is_not_the_page_title():
    icon = b"<svg viewBox='0 0 8 8'><title>Search</title><path d='M0 0'/></svg>"
    assert page_title(parse_page(b"<body>" + icon + b"<h1>Head line</h1></body>").root) == "Head line"
    assert page_title(parse_page(b"<body>" + icon + b"<p>x</p></body>").root) is None
    page = parse_page(b"<html><head><title>Page</title></head><body>" + icon + b"<p>x</p></body></html>")
    assert [el.text for el in title_elements(page.root)] == ["Page"]


def test_unlabelled_cp1252_that_detection_misreads_still_decodes():
    # CleanEval page 27's shape: curly quotes in an unlabelled page
    decoded = decode_body(b"<p>\x93Hello,\x94 she said \x96 twice.</p>")
    assert decoded.text == "<p>\u201cHello,\u201d she said \u2013 twice.</p>" and not decoded.lossy


def test_uniform_random_bytes_are_binary():
    import random

    rng = random.Random(7)
    assert looks_binary(bytes(rng.randrange(256) for _ in range(4096)))


def test_text_after_comments_and_processing_instructions_is_kept():
    page = parse_page(b"<body><p>alpha <!-- x --> beta</p><!-- y --> gamma<script>1</script> delta</body>")
    assert visible_text(page.body) == "alpha beta\n\ngamma delta"


def test_xpaths_of_equals_libxml2_getpath_on_every_element_of_real_pages(shared_data):
    from pagesieve.eval import iter_gold_pages

    gold = list(iter_gold_pages(shared_data / "scrapinghub"))[:6] + list(iter_gold_pages(shared_data / "cleaneval"))[:6]
    for g in gold:
        root = parse_page(g.html).root
        elements = [e for e in root.iter() if isinstance(e.tag, str)]
        order = elements[::-1][::3] + elements          # any order, repeats, parents before and after children
        assert xpaths_of(order) == [xpath_of(e) for e in order], g.page_id


def test_xpaths_of_numbers_many_same_tag_siblings():
    body = b"<html><body>" + b"<div><p>x</p><p>y</p></div>" * 3000 + b"<span>z</span></body></html>"
    root = parse_page(body).root
    elements = list(root.iter("p", "span"))
    assert xpaths_of(elements) == [xpath_of(e) for e in elements]
    assert xpaths_of(elements)[-3:] == ["/html/body/div[3000]/p[1]", "/html/body/div[3000]/p[2]", "/html/body/span"]


def _events(root, skip=frozenset()):
    kinds = {START: "start", END: "end", SKIP: "skip", COMMENT: "comment"}
    names = {etree.Comment: "#comment", etree.ProcessingInstruction: "#pi"}
    return [(kinds[kind], names.get(node.tag, node.tag), text) for kind, node, text in walk_tree(root, skip)]


def test_walk_tree_keeps_the_tails_of_comments_and_processing_instructions():
    root = etree.fromstring("<div>a<!--x-->b<p>c</p><?pi data?>d</div>")
    assert _events(root) == [("start", "div", "a"), ("comment", "#comment", "b"), ("start", "p", "c"),
                             ("end", "p", None), ("comment", "#pi", "d"), ("end", "div", None)]


def test_walk_tree_skips_subtrees_whole_but_keeps_their_tails():
    root = etree.fromstring("<div>a<script>s<!--c-->t<b>u</b>v</script>w<Style>x<!--d-->z</Style>y<i/></div>")
    assert _events(root, frozenset({"script", "style"})) == [
        ("start", "div", "a"), ("skip", "script", "w"), ("skip", "Style", "y"),
        ("start", "i", None), ("end", "i", None), ("end", "div", None)]


def test_walk_tree_leaves_out_the_root_tail_and_never_skips_the_root():
    doc = etree.fromstring("<div><p>in<!--c-->side</p>tail<script>x</script>more</div>")
    p, script = doc
    assert _events(p) == [("start", "p", "in"), ("comment", "#comment", "side"), ("end", "p", None)]
    assert _events(script, frozenset({"script"})) == [("start", "script", "x"), ("end", "script", None)]
    assert list(iter_text_chunks(p)) == ["\n", "in", "side", "\n"]
    assert visible_text(script) == ""        # visible_text, not the walker, treats a hidden root as hidden


@pytest.mark.slow
def test_walk_tree_is_iterative_on_100000_levels():
    depth = 100_000
    # every element keeps its proxy: lxml frees a dropped proxy by climbing to the nearest ancestor that
    # has one, which would make building the chain quadratic
    chain = [etree.Element("div")]
    for i in range(depth):
        chain.append(etree.SubElement(chain[-1], "script" if i == depth // 2 else "span"))
    root = chain[0]
    chain[-1].text = "deep"
    root[0].tail = "after"
    events = list(walk_tree(root))
    assert len(events) == 2 * (depth + 1)
    assert [text for _, _, text in events if text] == ["deep", "after"]
    skipped = list(walk_tree(root, frozenset({"script"})))
    assert len(skipped) == 2 * (depth // 2 + 1) + 1
    assert [(kind, text) for kind, _, text in skipped if kind == SKIP] == [(SKIP, None)]
    assert visible_text(root) == "after"

