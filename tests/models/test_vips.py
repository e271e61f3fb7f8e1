"""VIPS on the real browser (Debian's Chromium, installed by scripts/setup.sh): hand-built layouts whose
segmentation is unambiguous, the block trees asserted; the renderer's isolation and recovery."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import signal
import threading
import time
import urllib.request

import pytest
import vips_layouts as layouts
from browsers import browser_pids

from pagesieve.models.page import PageInput, SubResource, build_runner, prepare, run_prepared
from pagesieve.models.page.words import count_words
from pagesieve.models.vips import VIPS, VIPSCleaner, VIPSSettings, segments_of
from pagesieve.models.vips.extraction import VisualTree, extract_blocks
from pagesieve.models.vips.render import Renderer, RenderOptions, with_base

pytestmark = pytest.mark.slow  # every test here renders pages in a real Chromium


@pytest.fixture(scope="module")
def vips():
    method = VIPS()
    yield method
    method.close()


def analysis(method: VIPS, html: str):
    return method.analyse_page(prepare(PageInput(html.encode(), url="http://example.test/page.html")).page)


def tree_xpaths(a, block) -> list[str]:
    return [a.tree.nodes[leaf.node].xpath for leaf in block.leaves()]


def test_figure7_rule8_background_cell_invalid_cells_cut_rule11_siblings(vips):
    a = analysis(vips, layouts.FIGURE7)
    body_area = a.visual.width * a.visual.height
    pool = extract_blocks(VisualTree(a.visual, vips.settings), [0], body_area)
    cells = [(a.tree.nodes[b.node].xpath, b.rule) for b in pool]
    row = "/html/body/table/tbody/tr"
    # td[2] and td[4] are empty (zero width): cut; td[1] has another background: rule 8; td[3], td[5]: rule 11
    assert cells == [(f"{row}/td[1]", 8), (f"{row}/td[3]", 11), (f"{row}/td[5]", 11)]
    assert 6 <= pool[0].doc <= 8
    # the background difference makes the separator after td[1] the heaviest: it is cut off first
    top = a.root.separators
    assert len(top) == 1 and not top[0].horizontal and top[0].cues["background"] > 0
    first, rest = a.root.children
    assert tree_xpaths(a, first) == [f"{row}/td[1]"]
    third, fifth = rest.children
    assert all(x.startswith(f"{row}/td[3]") for x in tree_xpaths(a, third))
    assert all(x.startswith(f"{row}/td[5]") for x in tree_xpaths(a, fifth))


def test_sidebar_is_cut_off_by_a_vertical_separator(vips):
    a = analysis(vips, layouts.SIDEBAR)
    assert [s.horizontal for s in a.root.separators] == [False]
    side, main = a.root.children
    assert tree_xpaths(a, side) == ["/html/body/div[1]/ul"]
    assert tree_xpaths(a, main) == ["/html/body/div[2]/h1"] + [f"/html/body/div[2]/p[{i}]" for i in (1, 2, 3)]
    assert side.box.x1 <= main.box.x0
    rows = {s.block_id: s for s in segments_of(a)}
    assert not rows["1.1"].is_main and rows["1.2"].is_main


def test_floats_in_a_wrapper_of_height_zero_are_still_blocks(vips):
    a = analysis(vips, layouts.FLOATS)
    wrapper = next(n for n in a.tree.nodes if n.xpath == "/html/body/div")
    assert wrapper.h == 0 and not a.tree.valid[wrapper.index]
    assert [s.horizontal for s in a.root.separators] == [False]
    side, main = a.root.children
    assert tree_xpaths(a, side) == ["/html/body/div/div[1]/ul"]
    assert tree_xpaths(a, main) == ["/html/body/div/div[2]/h1"] + [f"/html/body/div/div[2]/p[{i}]" for i in (1, 2, 3)]
    with VIPSCleaner() as cleaner:
        text = cleaner.process(prepare(PageInput(layouts.FLOATS.encode(), url="http://example.test/")).page).text
    assert text.split("\n\n") == ["A headline"] + [layouts.PARA] * 3


def test_hr_splits_sections(vips):
    a = analysis(vips, layouts.HR_SECTIONS)
    assert [s.cues.get("hr") for s in a.root.separators] == [3.0, 3.0]
    assert [tree_xpaths(a, c) for c in a.root.children] == [
        [f"/html/body/p[{i}]", f"/html/body/p[{i + 1}]"] for i in (1, 3, 5)]


def test_heading_font_makes_the_separator_above_it_heavier(vips):
    a = analysis(vips, layouts.HEADINGS)
    (cut,) = a.root.separators
    assert cut.cues["font_grows"] > 0 and cut.cues["font_size"] > 0
    first, second = a.root.children
    assert tree_xpaths(a, first) == ["/html/body/h2[1]", "/html/body/p[1]", "/html/body/p[2]"]
    assert tree_xpaths(a, second) == ["/html/body/h2[2]", "/html/body/p[3]", "/html/body/p[4]"]
    # inside a section the heading stands apart from its paragraphs, which are alike
    assert [tree_xpaths(a, c) for c in first.children] == [["/html/body/h2[1]"], ["/html/body/p[1]", "/html/body/p[2]"]]


def test_blocks_follow_the_visual_order_not_the_dom_order(vips):
    a = analysis(vips, layouts.VISUAL_ORDER)
    assert [tree_xpaths(a, c) for c in a.root.children] == [["/html/body/div[2]"], ["/html/body/div[3]"],
                                                            ["/html/body/div[1]"]]
    texts = [s.text.split()[1] for s in segments_of(a)[1:]]
    assert texts == ["A", "B", "C"]


def test_segments_are_a_tree_with_dotted_ids_and_coherence_never_falling(vips):
    result = vips.process(prepare(PageInput(layouts.SIDEBAR.encode(), url="http://example.test/")).page)
    assert result.status == "ok"
    rows = {s.block_id: s for s in result.segments}
    assert list(rows)[0] == "1" and rows["1"].parent_id is None
    for s in result.segments[1:]:
        parent = rows[s.parent_id]
        assert s.block_id.rsplit(".", 1)[0] == s.parent_id
        assert 1 <= parent.doc <= s.doc <= 10
        assert set(s.xpaths) <= set(parent.xpaths)
        assert s.bbox.w > 0 and s.bbox.h > 0


def test_cleaner_keeps_the_main_column_and_its_heading():
    with VIPSCleaner() as cleaner:
        result = cleaner.process(prepare(PageInput(layouts.SIDEBAR.encode(), url="http://example.test/")).page)
    assert result.status == "ok"
    assert result.text.split("\n\n")[0] == "A headline"
    assert "Home" not in result.text and result.text.count(layouts.PARA) == 3


def test_text_nodes_of_one_run_of_text_are_not_split_by_a_space():
    # `<a>Reuters</a>,` read "Reuters ," (every text node was joined with a space); list items stay apart
    page = (f"<html><body><p>{layouts.PARA} According to <a href='/r'>Reuters</a>, the <b>bold</b>face and "
            f"<i>it</i>alic stay whole.</p><p>{layouts.PARA}</p><p>{layouts.PARA}</p>"
            "<ul><li>first</li><li>second</li></ul></body></html>")
    with VIPSCleaner() as cleaner:
        result = cleaner.process(prepare(PageInput(page.encode(), url="http://example.test/")).page)
    assert "According to Reuters, the boldface and italic stay whole." in result.text


def test_chinese_paragraphs_are_content_and_the_spaced_footer_is_not():
    assert count_words(layouts.ZH_PARA) == len(layouts.ZH_PARA) and count_words("two words") == 2
    with VIPSCleaner() as cleaner:
        result = cleaner.process(prepare(PageInput(layouts.CJK.encode(), url="http://example.test/")).page)
    assert result.text.split("\n\n") == ["人工智能的新进展"] + [layouts.ZH_PARA] * 3


def _render_once(html: str, url: str, resources=None):
    """The visual DOM of one page from a browser of its own (closed after it)."""
    renderer = Renderer(RenderOptions(), resources=resources)
    try:
        return renderer.render(html, url)
    finally:
        renderer.close()


def test_renderer_serves_known_resources_and_blocks_every_other_request():
    asked: list[str] = []

    def lookup(url: str):
        asked.append(url)
        return (b"p { font-size: 31px }", "text/css") if url == "http://example.test/s.css" else None

    html = ('<html><head><link rel="stylesheet" href="s.css"></head><body><p>styled</p>'
            '<img src="http://elsewhere.test/i.png"><iframe src="/frame.html"></iframe></body></html>')
    page = _render_once(html, "http://example.test/dir/../page.html", lookup)
    text = next(n for n in page.nodes if n.text == "styled")
    assert text.font_size == 31
    assert set(asked) == {"http://example.test/s.css", "http://elsewhere.test/i.png"}   # frames load nothing


@contextlib.contextmanager
def _live_css_server():
    """A live server on this machine that answers every path with a stylesheet (29px paragraphs); yields its
    base URL and the paths it was asked for."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"p { font-size: 29px }")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    live = f"http://127.0.0.1:{server.server_port}"
    try:
        urllib.request.urlopen(f"{live}/control.css").read()    # the server answers a client that may reach it
        yield live, hits
    finally:
        server.shutdown()


def test_without_resources_no_request_leaves_the_browser():
    """Offline context: a live server on this machine, named by IP in every kind of reference, sees nothing."""
    with _live_css_server() as (live, hits):
        html = (f'<html><head><link rel="stylesheet" href="{live}/s.css"><link rel="preconnect" href="{live}">'
                f'</head><body><p>plain</p><img src="{live}/i.png"><iframe src="{live}/f.html"></iframe>'
                f'<div style="background-image: url({live}/bg.png)">x</div></body></html>')
        page = _render_once(html, f"{live}/page.html")
    assert hits == ["/control.css"]
    assert next(n for n in page.nodes if n.text == "plain").font_size == 16


def test_each_page_is_served_its_own_archived_stylesheets_and_nothing_reaches_the_network():
    """One browser, pages with and without stylesheets in turn: the archived copy (31px) is served to the page
    that brings it, the next page gets none, and the live server (29px) never hears of either."""
    with _live_css_server() as (live, hits):
        html = (f'<html><head><link rel="stylesheet" href="{live}/s.css"></head><body><p>text</p>'
                f'<img src="{live}/i.png"></body></html>')
        archived = {f"{live}/s.css": (b"p { font-size: 31px }", "text/css")}.get
        renderer = Renderer(RenderOptions())
        try:
            sizes = [next(n for n in renderer.render(html, f"{live}/page.html", resources).nodes
                          if n.text == "text").font_size for resources in (archived, None, archived, None)]
        finally:
            renderer.close()
    assert sizes == [31, 16, 31, 16]
    assert hits == ["/control.css"]


def test_the_segmenter_lays_a_page_out_with_the_stylesheets_it_comes_with():
    html = (f'<html><head><link rel="stylesheet" href="/site.css"></head><body><div class="ad">Buy now</div>'
            f'{"<p>" + layouts.PARA + "</p>" * 3}</body></html>').encode()
    css = SubResource("http://example.test/site.css", b".ad { display: none }", "text/css")
    texts = []
    for resources in ((), (css,)):
        with VIPS() as vips:
            page = prepare(PageInput(html, url="http://example.test/a.html", resources=resources)).page
            texts.append([s.text or "" for s in vips.process(page).segments])
    assert any("Buy now" in t for t in texts[0])
    assert not any("Buy now" in t for t in texts[1]) and any(layouts.PARA in t for t in texts[1])


def test_frames_keep_their_box_and_load_nothing():
    asked: list[str] = []

    def lookup(url: str):
        asked.append(url)

    html = ('<html><body style="margin:0"><p style="margin:0;height:20px">above</p>'
            '<iframe src="http://example.test/frame.html" style="width:400px;height:200px;border:0;display:block">'
            '</iframe><IFRAME SRC="/other.html"></IFRAME><p>below</p></body></html>')
    page = _render_once(html, "http://example.test/page.html", lookup)
    frames = [n for n in page.nodes if n.tag == "iframe"]
    assert [(f.y, f.w, f.h) for f in frames[:1]] == [(20, 400, 200)] and len(frames) == 2
    assert next(n for n in page.nodes if n.text == "below").y > 220
    assert asked == []   # neither frame asked for its document


def test_iframe_written_as_text_stays_text():
    html = ('<html><head><title>Embed: <iframe src="x"></title></head><body>'
            '<input value="<iframe src=&quot;/player&quot;></iframe>" style="width:600px">'
            '<textarea><iframe src="/t"></textarea><!-- <iframe src="/c"> -->'
            '<iframe src="/real"></iframe></body></html>')
    out = with_base(html, "http://example.test/")
    assert out.count('srcdoc=""') == 1 and '<iframe srcdoc="" src="/real">' in out
    assert out.replace(' srcdoc=""', "") == html.replace("<head>", '<head><base href="http://example.test/">')


def test_moving_boxes_are_read_where_they_are_laid_out_whenever_the_dom_is_read():
    """A marquee scrolls and a CSS animation runs from the load on: read 0 and 0.5 s after loading, the boxes are
    the same, the marquee's text where it is laid out before it moves."""
    html = ('<html><head><style>@keyframes grow { from { width: 10px } to { width: 900px } }</style></head>'
            '<body style="margin:0"><marquee>breaking news ticker</marquee>'
            '<div style="animation: grow 1s infinite; background: #eee">growing</div></body></html>')
    renderer = Renderer(RenderOptions())
    reads = []
    try:
        for delay in (0.0, 0.5):
            page = renderer._load(html, "http://example.test/")
            time.sleep(delay)
            reads.append(json.loads(page.evaluate(renderer._script, 1000))["nodes"])
    finally:
        renderer.close()
    assert reads[0] == reads[1]
    ticker = next(n for n in reads[0] if n[12] == "breaking news ticker")
    assert ticker[3] < 10   # at the left edge, not scrolled in from the right
    grown = next(n for n in reads[0] if n[1] == "div")
    assert grown[5] == 1280   # the un-animated width: the whole line


def test_a_meta_refresh_does_not_take_the_tab_off_the_page():
    renderer = Renderer(RenderOptions())
    try:
        for refresh in ('<META http-equiv="Refresh" content="0;URL=http://elsewhere.test/cookies.html">',
                        "<meta http-equiv=refresh content='0; url=/upgrade.html' />"):
            page = renderer.render(f"<html><head>{refresh}</head><body><p>archived text</p></body></html>",
                                   "http://example.test/a.html")
            assert [n.text for n in page.nodes if n.is_text] == ["archived text"]
    finally:
        renderer.close()


def test_javascript_is_off_unless_asked_for():
    html = "<html><body><p id=x>archived</p><script>document.getElementById('x').textContent='scripted'</script>"
    for javascript, expected in ((False, "archived"), (True, "scripted")):
        renderer = Renderer(RenderOptions(javascript=javascript))
        try:
            texts = [n.text for n in renderer.render(html, None).nodes if n.is_text]
        finally:
            renderer.close()
        assert texts == [expected]


def test_renderer_restarts_after_n_pages():
    renderer = Renderer(RenderOptions(restart_after_pages=2))
    try:
        for _ in range(5):
            renderer.render("<p>x</p>", None)
        assert renderer.starts == 3
    finally:
        renderer.close()


def test_the_settings_render_with_the_renderers_own_defaults():
    # the render keys are written twice, in VIPSSettings (conf/vips.toml) and in RenderOptions (a Renderer built
    # without settings); this keeps the two from drifting apart
    assert VIPSSettings().render_options() == RenderOptions()
    assert VIPSSettings.load({}).render_options() == RenderOptions()


def test_a_hanging_page_times_out_and_the_worker_goes_on():
    settings = VIPSSettings.load({"javascript": True, "js_budget_ms": 100})
    runner = build_runner(VIPS, settings, timeout_s=8, guard="process")
    spin = b"<html><body><p>spin</p><script>setTimeout(() => { while (true) {} }, 0)</script></body></html>"
    fine = b"<html><body><p>fine page</p></body></html>"
    try:
        outcomes = runner.run([PageInput(spin, url="http://example.test/a"), PageInput(fine, url="http://example.test/b")])
    finally:
        runner.close()
    assert [o.result.status for o in outcomes] == ["timeout", "ok"]
    assert outcomes[1].result.segments[0].text == "fine page"


def test_a_killed_browser_gives_an_error_row_and_the_next_page_a_new_browser():
    fine = prepare(PageInput(f"<html><body><p>{layouts.PARA}</p></body></html>".encode(), url="http://example.test/"))
    others = set(browser_pids())    # the module's VIPS fixture may hold one
    with VIPSCleaner() as cleaner:
        assert run_prepared(cleaner, fine).result.status == "ok"
        (browser,) = set(browser_pids()) - others
        os.kill(browser, signal.SIGKILL)
        time.sleep(0.5)    # Playwright notices the closed pipe
        statuses = [run_prepared(cleaner, fine).result.status for _ in range(2)]
        starts = cleaner.renderer().starts
    assert statuses == ["error", "ok"] and starts == 2
