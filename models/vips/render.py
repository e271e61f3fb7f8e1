"""Rendering archived pages in headless Chromium, with no live network: the visual DOM VIPS reads.

One `Renderer` per Python worker owns one browser (Debian's `/usr/bin/chromium` driven by Playwright; never
`playwright install`), one context and one tab, reused page after page. The browser is started on first use
and restarted after `restart_after_pages` pages, after it crashes, and after any failure or interruption in
the middle of a page (a timeout, the runner's alarm), because a tab that stopped half-way cannot be trusted.

How a page is shown (docs/stack.md#chromium-and-playwright):
- the archived HTML is served from memory with `set_content`, a `<base href=URL>` put first in its head so
  that relative URLs resolve as on the live site; `set_content` + one evaluate measured 6x faster than a
  `goto` answered by a route (16 ms vs 109 ms a page here);
- nothing reaches the network (docs/reliability.md, ## VIPS, has what each layer stopped): the context is
  offline, so the browser fails every request itself; with resources to serve (a lookup by URL given to the
  renderer, or the archived stylesheets a page comes with, `render(..., resources=)`) a route answers first:
  a resource found is fulfilled from memory, anything else is aborted. Below that, every connection the
  browser makes (preconnects, speculative prefetch and prerender, which neither offline mode nor a route
  sees) goes to a dead proxy, WebRTC may not use UDP, service workers are blocked, popups are closed as they
  open, and with JavaScript on a script's WebSocket is answered in the page and closed;
- the tab never leaves the page: every navigation request after the document `set_content` writes (a meta
  refresh, `location =`, a form) is refused as aborted, and a navigation that needs no request (to
  about:blank) gives a `RenderError` instead of another document's boxes (`_read`);
- JavaScript is off by default (the archived DOM as served; nothing can loop). With `javascript = true`
  scripts run for at most `js_budget_ms` after the DOM is parsed, then script execution is switched off
  and the DOM is read. A script already spinning by then blocks the tab: run such pages under
  `guard = "process"`, which kills the worker's child (and with it its browser);
- a fixed viewport (`viewport_width` x `viewport_height`), scale 1; `page_timeout_s` bounds loading.

One JavaScript call (`visual_dom.js`) returns the visual DOM: every element under `<body>` in document order
with its tag, XPath, box, font size and weight, own background colour, display and visibility, and every
non-blank text node with its own box (a Range). `display: none` subtrees stop at their root.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources as package_files
from typing import Any

from pagesieve.models.page import PageError, SubResource, resource_key

__all__ = ["RenderOptions", "Renderer", "RenderError", "RenderTimeout", "VisualNode", "VisualPage",
           "ResourceLookup", "FLAGS", "MAX_SHOT_PX", "archived_lookup", "with_base"]

log = logging.getLogger(__name__)

# docs/stack.md#chromium-and-playwright: no sandbox (containers), no GPU, and nothing in the background that calls home.
# Site isolation off: every cross-site iframe of a page would start a renderer process of its own, a third
# of the loading time of real pages on one core (scripts/bench/bench_vips.py); the pages are archived, offline
# and scriptless by default, so there is no live site for one frame to attack another's data in.
# What keeps a page off the network is below (`_start`): a dead proxy for every connection the browser makes,
# with loopback not exempt (`<-loopback>`; by default 127.0.0.1 and localhost bypass any proxy); WebRTC kept
# off UDP (`disable_non_proxied_udp`: no STUN packet leaves, WebRTC may only use the proxy); no hyperlink
# auditing pings. docs/reliability.md (## VIPS) has what each one stopped, measured on Chromium 156.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
         "--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process",
         "--proxy-bypass-list=<-loopback>", "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--no-pings"]
# The largest picture `screenshot` takes, in CSS px each way: the usual GPU texture limit. A taller page
# failed with "Unable to capture screenshot" after using 8.4 GB (an 800,000 px page); the picture keeps its top.
MAX_SHOT_PX = 16_384
# A page with no URL still needs a base that no request can reach.
NO_URL = "http://pagesieve.invalid/"

# url -> (body, content type), or None to block the request
ResourceLookup = Callable[[str], "tuple[bytes, str] | None"]


class RenderError(PageError):
    """The browser failed on the page (crashed, closed, refused it)."""

    status = "error"


class RenderTimeout(PageError):
    status = "timeout"


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How pages are rendered (the VIPS settings' render keys; see conf/vips.toml)."""

    executable_path: str = "/usr/bin/chromium"
    viewport_width: int = 1280
    viewport_height: int = 800
    javascript: bool = False
    js_budget_ms: int = 500
    page_timeout_s: float = 20.0
    restart_after_pages: int = 1000
    max_nodes: int = 50_000


@dataclass(slots=True)
class VisualNode:
    """One element or text node of the rendered page. `tag` is "#text" for a text node."""

    index: int
    parent: int                 # -1 for the root (<body>)
    tag: str
    xpath: str
    x: float
    y: float
    w: float
    h: float
    font_size: float
    font_weight: int
    background: str | None      # own computed background colour; None when transparent
    display: str
    visibility: str
    text: str | None
    in_link: bool
    children: list[int]

    @property
    def is_text(self) -> bool:
        return self.tag == "#text"

    @property
    def area(self) -> float:
        return self.w * self.h


@dataclass(frozen=True, slots=True)
class VisualPage:
    """The visual DOM of one page: nodes[0] is the root; times in milliseconds."""

    nodes: tuple[VisualNode, ...]
    title: str
    width: float
    height: float
    truncated: bool
    render_ms: float
    extract_ms: float


_HEAD = re.compile(r"<head(\s[^>]*)?>", re.IGNORECASE)
# An iframe's document is no part of the page's visual DOM (the script reads the top document), but loading
# one is not free: even offline each gets a frame, a failed navigation and an error page. An empty `srcdoc`
# put first takes precedence over `src` (HTML's rule; the first of two equal attributes wins), so nothing is
# asked for, while the box and the `src` a stylesheet may select on stay as they were. Only real iframe tags
# get it: the scan steps over comments, raw-text elements and whole tags with their quoted attribute values,
# where "<iframe" is text (an embed code in an <input value>, a <textarea>, an unclosed <title>).
_TAGS = re.compile(r"""<!--.*?(?:-->|\Z)
    | <(script|style|title|textarea|xmp|noembed|noframes)\b(?:"[^"]*"|'[^']*'|[^>])*>.*?(?:</\1\s*>|\Z)
    | <(iframe)\b(?=[\s/>])
    | <[a-zA-Z][^\s/>]*(?:"[^"]*"|'[^']*'|[^>'"])*>?""", re.I | re.S | re.X)


def _empty_iframe(match: re.Match) -> str:
    return '<iframe srcdoc=""' if match.group(2) else match.group(0)


def with_base(markup: str, url: str) -> str:
    """The markup with `<base href=url>` first in its head (or first of all when it has no head tag), and with
    an empty `srcdoc` first in every iframe (nothing to load). A meta refresh stays: the browser refuses to
    leave the page (`Renderer._refuse_navigation`), which no pattern over the markup could promise."""
    markup = _TAGS.sub(_empty_iframe, markup)
    base = f'<base href="{escape(url, quote=True)}">'
    match = _HEAD.search(markup, 0, 20_000)
    if match is None:
        return base + markup
    return markup[:match.end()] + base + markup[match.end():]


class _Driver:
    """Playwright's driver, one per process: the sync API refuses a second one in the same thread, and a
    worker may hold two VIPS methods (the segmenter and the cleaner), each with its own browser. Counted,
    so the last browser closed stops it; a forked child never reuses its parent's (its event loop and pipes
    belong to the parent)."""

    handle: Any = None
    users = 0
    pid = 0

    @classmethod
    def acquire(cls) -> Any:
        from playwright.sync_api import sync_playwright

        if cls.handle is not None and cls.pid != os.getpid():
            cls.handle, cls.users = None, 0
        if cls.handle is None:
            cls.handle, cls.pid = sync_playwright().start(), os.getpid()
        cls.users += 1
        return cls.handle

    @classmethod
    def release(cls) -> None:
        if cls.handle is None or cls.pid != os.getpid():
            return
        cls.users -= 1
        if cls.users <= 0:
            handle, cls.handle, cls.users = cls.handle, None, 0
            handle.stop()


def _visual_dom_script() -> str:
    return package_files.files("pagesieve.models.vips").joinpath("visual_dom.js").read_text("utf-8")


class Renderer:
    """One browser, reused across pages. Not thread-safe; one per worker process.

    Args:
        options: viewport, JavaScript, timeouts, restart period.
        resources: looks up a sub-resource by absolute URL; None (the default) blocks every sub-resource.
    """

    def __init__(self, options: RenderOptions | None = None, resources: ResourceLookup | None = None) -> None:
        self.options = options or RenderOptions()
        self.resources = resources
        self.starts = 0
        self._script = _visual_dom_script()
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None
        self._cdp: Any = None
        self._dead_port: socket.socket | None = None
        self._routed = False
        self._page_resources: ResourceLookup | None = None
        self._served: dict[str, bytes] = {}   # URL -> body served since the tab last held a fresh document
        self._pages_since_start = 0

    # -- browser lifecycle -------------------------------------------------------------------------------

    def _start(self) -> None:
        o = self.options
        self._playwright = _Driver.acquire()
        # The proxy every connection goes to: a port on 127.0.0.1 bound and never listened on, so a connection
        # is refused at once, and no other process can listen there while the browser lives (127.0.0.1:9 may).
        self._dead_port = socket.socket()
        self._dead_port.bind(("127.0.0.1", 0))
        proxy = f"--proxy-server=http://127.0.0.1:{self._dead_port.getsockname()[1]}"
        try:
            self._browser = self._playwright.chromium.launch(executable_path=o.executable_path, headless=True,
                                                             args=[*FLAGS, proxy], timeout=60_000)
        except Exception as exc:
            self._stop()
            raise RenderError(f"cannot start {o.executable_path} (scripts/setup.sh installs it): {exc}") from None
        # Offline for good: the browser fails every request itself, and a route answers the ones a page has
        # copies of (`_serve`) before the network is asked. Without anything to serve there is no route: it
        # would cost a round trip to this process per image and stylesheet (~40 ms a real page,
        # scripts/bench/bench_vips.py).
        context = self._browser.new_context(viewport={"width": o.viewport_width, "height": o.viewport_height},
                                            device_scale_factor=1, java_script_enabled=o.javascript,
                                            service_workers="block", accept_downloads=False, offline=True)
        self._page = context.new_page()
        self._routed = False
        self._page.set_default_timeout(o.page_timeout_s * 1000)
        context.on("page", self._close_popup)
        if o.javascript:
            # Playwright answers a script's WebSocket inside the page and closes it: no connection is tried
            context.route_web_socket(re.compile(""), lambda ws: ws.close())
        self._cdp = context.new_cdp_session(self._page)
        # The page's one document is the one `set_content` writes. Every navigation request after it (a meta
        # refresh, `location =`, a form, a frame a script adds) is paused here and failed as *aborted*, which
        # leaves the document where it is; any other failure would put the browser's error page in its place.
        self._cdp.on("Fetch.requestPaused", self._refuse_navigation)
        self._cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*", "resourceType": "Document"}]})
        self._pages_since_start = 0
        self.starts += 1
        log.info("chromium started (%d time(s) in this worker, JavaScript %s)", self.starts,
                 "on" if o.javascript else "off")

    def _stop(self) -> None:
        try:
            if self._browser is not None:
                self._browser.close()
        except Exception as exc:  # noqa: BLE001 - a dead browser cannot be closed politely
            log.debug("while closing chromium: %s", exc)
        try:
            if self._playwright is not None:
                _Driver.release()
        except Exception as exc:  # noqa: BLE001
            log.debug("while stopping playwright: %s", exc)
        if self._dead_port is not None:
            self._dead_port.close()
        self._playwright = self._browser = self._page = self._cdp = self._dead_port = None
        self._routed = False
        self._served = {}

    def close(self) -> None:
        """Shut the browser (idempotent); the next page starts a new one."""
        self._stop()

    def _ready(self) -> Any:
        if self._page is not None and (self._pages_since_start >= self.options.restart_after_pages
                                       or self._page.is_closed()):
            self._stop()
        if self._page is None:
            self._start()
        self._pages_since_start += 1
        return self._page

    def _close_popup(self, page: Any) -> None:
        """A window the page opens (`window.open`, a link to a new tab) is no part of it: closed at once."""
        if page is not self._page:
            with contextlib.suppress(Exception):   # it may be gone already
                page.close()

    def _refuse_navigation(self, event: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):   # the browser may be closing
            self._cdp.send("Fetch.failRequest", {"requestId": event["requestId"], "errorReason": "Aborted"})

    def _serve(self, resources: ResourceLookup | None) -> None:
        """Route the next page's requests through `_route` when there is anything to serve it, else leave them
        to the offline browser to fail (a route costs a round trip to this process per request)."""
        self._page_resources = resources
        routed = resources is not None or self.resources is not None
        if routed == self._routed:
            return
        context = self._page.context
        if routed:
            context.route("**/*", self._route)
        else:
            context.unroute("**/*", self._route)
        self._routed = routed

    def _find(self, url: str) -> tuple[bytes, str] | None:
        """What to serve for `url`: the page's own copy first, then the renderer's; None blocks it."""
        found = self._page_resources(url) if self._page_resources is not None else None
        if found is None and self.resources is not None:
            found = self.resources(url)
        return found

    def _route(self, route: Any) -> None:
        url = route.request.url
        found = self._find(url)
        if found is None:
            route.abort("aborted")   # for a navigation, as in `_refuse_navigation`: no error page
        else:
            body, content_type = found
            self._served[url] = body
            route.fulfill(status=200, body=body, content_type=content_type)

    def _forget_served(self, markup: str) -> None:
        """Give the tab a fresh document when an earlier page's stylesheet could reach this one.

        `set_content` keeps the tab's document, and the document keeps what it loaded by URL (the CDP switch
        that disables the cache does not reach it): a page naming a stylesheet served to an earlier page gets
        that copy, even with nothing to serve it, so the layout would depend on the order of the pages. A
        navigation to about:blank (about 25 ms) starts a new document; it is paid only when a stylesheet
        served earlier is not this page's own copy and its file name appears in this page.
        """
        stale = [url for url, body in self._served.items() if (found := self._find(url)) is None or found[0] != body]
        if any(url.rstrip("/").rsplit("/", 1)[-1] in markup for url in stale):
            self._page.goto("about:blank", wait_until="commit")
            self._served.clear()

    # -- pages -------------------------------------------------------------------------------------------

    def _load(self, markup: str, url: str | None, resources: ResourceLookup | None = None) -> Any:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        page = self._ready()
        self._serve(resources)
        if self._served:
            self._forget_served(markup)
        html = with_base(markup, url if url and url.startswith(("http://", "https://")) else NO_URL)
        try:
            if self.options.javascript:
                self._cdp.send("Emulation.setScriptExecutionDisabled", {"value": False})
                page.set_content(html, wait_until="domcontentloaded")
                with contextlib.suppress(PlaywrightTimeout):   # the budget is spent: read the DOM as it is now
                    page.wait_for_load_state("load", timeout=self.options.js_budget_ms)
                self._cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
            else:
                page.set_content(html, wait_until="load")
        except PlaywrightTimeout:
            self._stop()
            raise RenderTimeout(f"page not loaded within {self.options.page_timeout_s:g} s") from None
        return page

    def _read(self, page: Any) -> dict[str, Any]:
        """The visual DOM script's answer, from the page's own document only.

        A navigation that needs no request (to about:blank: a refresh, a script) is not refused, and the
        document it leaves has no `<base href>`: its boxes would be read as the page's.
        """
        data = json.loads(page.evaluate(self._script, self.options.max_nodes))
        if not data["base"]:
            raise RenderError(f"the page replaced its own document with {page.url}")
        return data

    def _guarded(self, work: Callable[[], Any]) -> Any:
        """Run browser work; any failure or interruption restarts the browser before it propagates."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            return work()
        except PageError:
            raise
        except PlaywrightError as exc:
            self._stop()
            if "Execution context was destroyed" in str(exc):   # a navigation `_read` could not see coming
                raise RenderError("the page replaced its own document while it was read") from None
            raise RenderError(f"chromium: {exc}") from None
        except BaseException:
            self._stop()   # the runner's deadline (or ^C) interrupted a call half-way
            raise

    def render(self, markup: str, url: str | None = None, resources: ResourceLookup | None = None) -> VisualPage:
        """The visual DOM of a page.

        Args:
            markup: the decoded HTML.
            url: the page's URL (the base for its relative URLs); None or a non-HTTP URL: no base.
            resources: this page's own sub-resources by URL (its archived stylesheets), looked up before the
                renderer's; None: only the renderer's.

        Raises:
            RenderTimeout: the page did not load within `page_timeout_s` (the browser is restarted).
            RenderError: the browser crashed or refused the page (restarted on the next page).
        """
        def work() -> VisualPage:
            start = time.perf_counter()
            page = self._load(markup, url, resources)
            loaded = time.perf_counter()
            data = self._read(page)
            done = time.perf_counter()
            return VisualPage(_nodes(data["nodes"]), data["title"], float(data["width"]), float(data["height"]),
                              bool(data["truncated"]), (loaded - start) * 1000, (done - loaded) * 1000)

        return self._guarded(work)

    def screenshot(self, markup: str, url: str | None, path: str) -> VisualPage:
        """Render a page, write a full-page PNG to `path` (its top-left `MAX_SHOT_PX` square at most), and return
        its visual DOM (the whole page's boxes)."""
        def work() -> VisualPage:
            page = self._load(markup, url)
            data = self._read(page)
            width, height = float(data["width"]), float(data["height"])
            clip = None
            if max(width, height) > MAX_SHOT_PX:
                clip = {"x": 0, "y": 0, "width": min(width, MAX_SHOT_PX), "height": min(height, MAX_SHOT_PX)}
            page.screenshot(path=path, full_page=True, clip=clip)
            return VisualPage(_nodes(data["nodes"]), data["title"], float(data["width"]), float(data["height"]),
                              bool(data["truncated"]), 0.0, 0.0)

        return self._guarded(work)


def archived_lookup(resources: Sequence[SubResource]) -> ResourceLookup | None:
    """A page's archived sub-resources by the URL the browser asks for (`resource_key` on both sides); None
    when it has none."""
    if not resources:
        return None
    served = {resource_key(r.url): (r.body, r.content_type) for r in resources}
    return lambda url: served.get(resource_key(url))


def _nodes(rows: list[list[Any]]) -> tuple[VisualNode, ...]:
    nodes = tuple(VisualNode(i, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                             r[13], []) for i, r in enumerate(rows))
    for node in nodes:
        if node.parent >= 0:
            nodes[node.parent].children.append(node.index)
    return nodes
