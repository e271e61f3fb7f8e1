"""Hand-built layouts whose VIPS segmentation is unambiguous (issue 21, item 6), shared by the VIPS tests."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pagesieve.schemas import PAGES, RESOURCES

PARA = "This paragraph has enough plain words in it to count as real content for the reader of the page."

# Figure 7: a table row whose first cell has another background (rule 8), two empty cells that are not
# valid (cut), and two cells kept whole because their previous valid sibling was (rule 11).
FIGURE7 = f"""<html><body style="margin:0"><table cellspacing="0" cellpadding="0"><tr>
<td style="background:#c0d0e0;width:200px;vertical-align:top"><a href="/a">Auctions</a><br><a href="/b">Books</a>
  <br><a href="/c">Comics</a></td>
<td></td>
<td style="width:500px;vertical-align:top"><div style="height:400px"><p>{PARA}</p></div><p>{PARA}</p></td>
<td></td>
<td style="width:400px;vertical-align:top"><div style="height:400px"><p>{PARA}</p></div><p>{PARA}</p></td>
</tr></table></body></html>"""

# A sidebar of links beside the main column: the heaviest separator is the vertical one between them.
SIDEBAR = f"""<html><body style="margin:0">
<div id="side" style="float:left;width:220px;background:#eeeeee">
  <ul><li><a href="/1">Home</a></li><li><a href="/2">World</a></li><li><a href="/3">Sport</a></li></ul></div>
<div id="main" style="margin-left:300px;width:700px">
  <h1>A headline</h1><p>{PARA}</p><p>{PARA}</p><p>{PARA}</p></div>
</body></html>"""

# Three sections split by <hr>: the <hr> makes those separators the heaviest.
HR_SECTIONS = f"""<html><body>
<p>{PARA} one</p><p>{PARA} two</p><hr>
<p>{PARA} three</p><p>{PARA} four</p><hr>
<p>{PARA} five</p><p>{PARA} six</p>
</body></html>"""

# Two sections told apart only by their headings' font: the separator above a heading (small font above,
# big below) is heavier than the one below it, so each heading goes with the paragraphs that follow it.
HEADINGS = f"""<html><body>
<h2>First section</h2><p>{PARA} a</p><p>{PARA} b</p>
<h2>Second section</h2><p>{PARA} c</p><p>{PARA} d</p>
</body></html>"""

# DOM order C, A, B; the flexbox shows A, B, C from top to bottom.
VISUAL_ORDER = """<html><body style="display:flex;flex-direction:column;margin:0">
<div style="order:3;margin:40px 0">Block C comes last on the screen although it is first in the markup.</div>
<div style="order:1;margin:40px 0">Block A comes first on the screen although it is second in the markup.</div>
<div style="order:2;margin:40px 0">Block B comes second on the screen and is last in the markup.</div>
</body></html>"""

# The sidebar layout with both columns floated inside a wrapper that is never cleared: the wrapper's box has
# height 0 (not a valid node), yet both columns are drawn, and must still be blocks.
FLOATS = f"""<html><body style="margin:0"><div id="wrap">
<div id="side" style="float:left;width:220px;background:#eeeeee">
  <ul><li><a href="/1">Home</a></li><li><a href="/2">World</a></li><li><a href="/3">Sport</a></li></ul></div>
<div id="main" style="float:left;margin-left:80px;width:700px">
  <h1>A headline</h1><p>{PARA}</p><p>{PARA}</p><p>{PARA}</p></div>
</div></body></html>"""

# A Chinese article (no spaces between words) above a spaced English footer of links: every paragraph is one
# whitespace token, the footer a dozen.
ZH_PARA = "谷歌在二零一四年收购的人工智能公司开发出一款能够用自己的记忆学习新知识并利用这些知识来回答问题的计算机。"
CJK = f"""<html><body style="margin:0"><div style="width:800px">
<h1>人工智能的新进展</h1><p>{ZH_PARA}</p><p>{ZH_PARA}</p><p>{ZH_PARA}</p></div>
<div style="margin-top:40px;width:800px;background:#eeeeee"><p><a href="/a">About Tencent</a> |
<a href="/t">Terms of Service</a> | <a href="/p">Privacy Policy</a> | <a href="/j">Jobs at Tencent</a> |
<a href="/h">Help Centre</a> Copyright 1998 - 2016 Tencent</p></div></body></html>"""


# A page whose archived stylesheet hides its advertisement: laid out without it, the advertisement shows.
STYLED = f"""<html><head><link rel="stylesheet" href="/site.css"></head><body><div class="ad">Buy now</div>
<p>{PARA}</p><p>{PARA}</p></body></html>"""
STYLESHEET = {"url": "http://styled.test/site.css", "content_type": "text/css", "http_status": 200,
              "body": b".ad { display: none }"}


def write_pages(shared_data: Path, dragnet_ids: list[str], folder: Path, *, styled: bool = False) -> list[dict]:
    """A `pages` table in `folder` for the Spark tests of VIPS: real Dragnet pages, the sidebar layout and an
    empty page, and with `styled` the STYLED page and its stylesheet in `_resources/`; returns its rows."""
    rows = [{"page_id": f"dragnet/{i}", "url": f"http://dragnet.test/{i}.html", "content_type": "text/html",
             "body": (shared_data / "dragnet" / "input" / f"{i}.html").read_bytes(), "ingest_status": "ok"}
            for i in dragnet_ids]
    rows += [{"page_id": "layout/sidebar", "url": "http://example.test/", "content_type": "text/html",
              "body": SIDEBAR.encode(), "ingest_status": "ok"},
             {"page_id": "bad/empty", "body": b"", "content_type": "text/html", "ingest_status": "ok"}]
    if styled:
        rows.append({"page_id": "layout/styled", "url": "http://styled.test/a.html", "content_type": "text/html",
                     "body": STYLED.encode(), "ingest_status": "ok"})
        (folder / "_resources").mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist([STYLESHEET], schema=RESOURCES), folder / "_resources" / "part-0.parquet")
    folder.mkdir(exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=PAGES), folder / "part-0.parquet")
    return rows
