"""The VIPS renderer's isolation in the real browser (hostile-pass issue, items 3 and 4): a page is shown its own
archived stylesheets and nothing else. A listener on 127.0.0.1 (TCP for every kind of request and connection,
UDP for WebRTC's STUN) must hear nothing from a page that tries every way out, and a page that tries to leave
its own document must still give its own text."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

import pytest
import vips_layouts as layouts
from browsers import assert_no_chromium_left, chromium_pids

from pagesieve.models.page import PageInput, prepare
from pagesieve.models.vips import VIPS, VIPSCleaner, VIPSSettings
from pagesieve.models.vips.render import Renderer, RenderError, RenderOptions

pytestmark = pytest.mark.slow   # real Chromium, a few seconds a test


@pytest.fixture(autouse=True)
def no_chromium_left():
    before = set(chromium_pids())
    yield
    assert_no_chromium_left(before)


class Listener:
    """A TCP socket and a UDP socket on 127.0.0.1 that record every contact: each TCP connection (with the first
    line it sends, empty for a bare preconnect) and each datagram (its first 4 bytes: STUN's type and length)."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp.settimeout(0.1)
        self.udp.settimeout(0.1)
        self.port, self.udp_port = self.tcp.getsockname()[1], self.udp.getsockname()[1]
        self.contacts: list[tuple[str, str]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=f, daemon=True) for f in (self._accept, self._receive)]
        for t in self._threads:
            t.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(0.3)
                try:
                    first = conn.recv(300).split(b"\r\n", 1)[0].decode("latin-1")
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    first = ""
            self.contacts.append(("tcp", first))

    def _receive(self) -> None:
        while not self._stop.is_set():
            try:
                data, _ = self.udp.recvfrom(2048)
            except OSError:
                continue
            self.contacts.append(("udp", data[:4].hex()))

    def check(self) -> None:
        """A client that may reach the listener does (TCP and UDP), so silence below means something."""
        urllib.request.urlopen(f"http://127.0.0.1:{self.port}/control").read()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"ctrl", ("127.0.0.1", self.udp_port))
        deadline = time.monotonic() + 2
        while len(self.contacts) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sorted(self.contacts) == [("tcp", "GET /control HTTP/1.1"), ("udp", b"ctrl".hex())]
        self.contacts.clear()

    def close(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self.tcp.close()
        self.udp.close()


@pytest.fixture
def listener():
    listen = Listener()
    listen.check()
    yield listen
    listen.close()


def hostile_page(port: int, udp_port: int) -> str:
    """Every way out a page has, each aimed at the listener by IP (no name to resolve)."""
    live, ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    rules = json.dumps({"prefetch": [{"source": "list", "urls": [f"{live}/speculation-prefetch"]}],
                        "prerender": [{"source": "list", "urls": [f"{live}/speculation-prerender"]}]})
    return f"""<html><head><link rel="stylesheet" href="{live}/s.css">
<link rel="prefetch" href="{live}/prefetch"><link rel="preconnect" href="{live}">
<link rel="dns-prefetch" href="{live}"><link rel="preload" href="{live}/preload.js" as="script">
<script type="speculationrules">{rules}</script>
<meta name="a>b" http-equiv=refresh content="0;url={live}/meta-refresh">
<meta http-equiv="&#82;efresh" content="1;url={live}/meta-refresh-late">
<style>div.bg {{ background: url({live}/background.png) }}</style>
</head><body><p>own text</p><div class="bg">x</div>
<img src="{live}/img.png"><script src="{live}/script.js"></script>
<object data="{live}/object.html" width="300" height="100"></object>
<embed src="{live}/embed.html" width="300" height="100"><iframe src="{live}/iframe.html"></iframe>
<script>
const tries = [
  () => fetch("{live}/fetch"),
  () => {{ const x = new XMLHttpRequest(); x.open("GET", "{live}/xhr"); x.send() }},
  () => new WebSocket("{ws}/websocket"),
  () => new EventSource("{live}/event-source"),
  () => navigator.sendBeacon("{live}/beacon", "x"),
  () => {{ const pc = new RTCPeerConnection({{iceServers: [{{urls: "stun:127.0.0.1:{udp_port}"}}]}});
          pc.createDataChannel("d"); pc.createOffer().then(o => pc.setLocalDescription(o)) }},
  () => window.open("{live}/popup"),
  () => navigator.serviceWorker.register("{live}/service-worker.js"),
  () => {{ const f = document.createElement("iframe"); f.src = "{live}/script-iframe"; document.body.append(f) }},
  () => setTimeout(() => {{ location = "{live}/location" }}, 100),
];
for (const t of tries) {{ try {{ Promise.resolve(t()).catch(() => null) }} catch (e) {{}} }}
</script></body></html>"""


@pytest.mark.parametrize("javascript", [False, True], ids=["js-off", "js-on"])
@pytest.mark.parametrize("stylesheet", [False, True], ids=["no-stylesheet", "archived-stylesheet"])
def test_no_request_socket_or_popup_reaches_a_listener(listener, javascript, stylesheet):
    live = f"http://127.0.0.1:{listener.port}"
    html = hostile_page(listener.port, listener.udp_port)
    own = {f"{live}/s.css": (b"p { font-size: 31px }", "text/css")}.get if stylesheet else None
    renderer = Renderer(RenderOptions(javascript=javascript))
    try:
        page = renderer.render(html, f"{live}/page.html", own)
        time.sleep(1.5)   # late ones: STUN retries, the refresh of 1 s, prerendering
        after = renderer.render(f"<html><body><p>{layouts.PARA}</p></body></html>", f"{live}/next.html")
        assert renderer._page.context.pages == [renderer._page]   # the popup was closed as it opened
    finally:
        renderer.close()
    text = next(n for n in page.nodes if n.text == "own text")
    assert text.font_size == (31 if stylesheet else 16)      # the archived copy is served, and only it
    assert [n.text for n in after.nodes if n.is_text] == [layouts.PARA]
    time.sleep(0.3)
    assert listener.contacts == []


LEAVERS = [
    '<meta name="a>b" http-equiv=refresh content="0;url=http://elsewhere.test/">',
    '<meta http-equiv="&#114;efresh" content="0;url=/moved.html">',
    '<meta http-equiv="ref&#x72;esh" content="0; url=http://127.0.0.1:9/">',
    '<meta content="0;url=/moved.html" http-equiv="Re&#102;resh" name="x>">',
]
SCRIPT_LEAVERS = [
    '<script>addEventListener("DOMContentLoaded", () => { location = "/moved.html" })</script>',
    '<script>setTimeout(() => location.replace("http://elsewhere.test/"), 50)</script>',
    '<script>addEventListener("load", () => { const f = document.createElement("form");'
    ' f.action = "/post"; f.method = "post"; document.body.append(f); f.submit() })</script>',
]


@pytest.mark.parametrize("javascript", [False, True], ids=["js-off", "js-on"])
def test_a_page_that_tries_to_leave_its_document_gives_its_own_text(javascript):
    """Meta refreshes the markup hides from a pattern, and (with scripts on) scripts that navigate: the tab stays
    on the archived document, and the cleaner and the segmenter read the page's own text."""
    settings = VIPSSettings.load({"javascript": javascript})
    leavers = LEAVERS + (SCRIPT_LEAVERS if javascript else [])
    with VIPSCleaner(settings) as cleaner, VIPS(settings) as segmenter:
        for leaver in leavers:
            html = layouts.SIDEBAR.replace("<body", f"<head>{leaver}</head><body", 1)
            page = prepare(PageInput(html.encode(), url="http://example.test/a.html")).page
            cleaned = cleaner.process(page)
            assert (cleaned.status, cleaned.text.count(layouts.PARA)) == ("ok", 3), leaver
            assert "Sport" not in cleaned.text
            segments = segmenter.process(page).segments
            assert segments[0].text.count(layouts.PARA) == 3 and "Sport" in segments[0].text, leaver
            time.sleep(0.3)   # a navigation that would land late lands on the next page: the loop checks it too


@pytest.mark.parametrize(("javascript", "leaver"), [
    (False, '<meta http-equiv="&#114;efresh" content="0;url=about:blank">'),
    (True, '<script>addEventListener("DOMContentLoaded", () => { location = "about:blank" })</script>'),
], ids=["refresh-js-off", "script-js-on"])
def test_a_navigation_with_no_request_to_refuse_is_an_error_not_another_page(javascript, leaver):
    """about:blank needs no request, so nothing refuses it: the page is an error when the blank document came
    before the page was read (a refresh's timer may also fire after), never the blank document read as the
    page; the next page is fine."""
    html = layouts.SIDEBAR.replace("<body", f"<head>{leaver}</head><body", 1)
    renderer = Renderer(RenderOptions(javascript=javascript))
    try:
        for _ in range(3):
            try:
                page = renderer.render(html, "http://example.test/a.html")
            except RenderError as exc:   # read after the blank document came, or while it came
                assert str(exc) in ("the page replaced its own document with about:blank",
                                    "the page replaced its own document while it was read")
            else:
                assert sum(n.text == layouts.PARA for n in page.nodes) == 3
            time.sleep(0.2)
            after = renderer.render(layouts.SIDEBAR, "http://example.test/b.html")
            assert sum(n.text == layouts.PARA for n in after.nodes) == 3
    finally:
        renderer.close()
