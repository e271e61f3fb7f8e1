// The visual DOM of the rendered page in one call (models/vips/render.py), as JSON text: a flat list, parents before
// children, in document order, each node [parent, tag, xpath, x, y, w, h, fontSize, fontWeight, background, display, visibility,
// text, inLink]. Elements have text null; text nodes have tag "#text" and their own box (a Range over the
// node). Boxes are in CSS pixels of the document (the viewport's origin, no scrolling). Iterative: a page
// 100,000 elements deep must not overflow the stack.
(maxNodes) => {
  // Boxes that move with time would make the tree depend on when it is read: marquees start again from where
  // they are laid out (a fresh copy, not yet scrolled) and CSS animations and transitions are cancelled (the
  // un-animated style).
  for (const m of document.querySelectorAll("marquee")) m.replaceWith(m.cloneNode(true));
  for (const a of document.getAnimations()) a.cancel();
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK", "BASE"]);
  // drawn as one picture or control: their inner nodes are not text a reader sees as such
  const LEAF = new Set(["svg", "math", "iframe", "object", "video", "audio", "canvas", "select", "textarea"]);
  const sx = window.scrollX, sy = window.scrollY;
  const nodes = [];
  const range = document.createRange();
  const body = document.body || document.documentElement;
  const rootPath = body === document.body ? "/html/body" : "/html";
  const stack = [[body, -1, rootPath, null]];
  let truncated = false;
  const num = (v) => Math.round(v * 100) / 100;
  while (stack.length) {
    const [el, parent, xpath, inherited] = stack.pop();
    if (nodes.length >= maxNodes) { truncated = true; break; }
    if (inherited !== null) {   // a text node: the font and visibility of its element
      range.selectNodeContents(el);
      const tr = range.getBoundingClientRect();
      nodes.push([parent, "#text", xpath, num(tr.left + sx), num(tr.top + sy), num(tr.width), num(tr.height),
                  inherited[0], inherited[1], null, "inline", inherited[2], el.nodeValue, inherited[3]]);
      continue;
    }
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const bg = s.backgroundColor;
    const index = nodes.length;
    const fontSize = parseFloat(s.fontSize) || 0, fontWeight = parseInt(s.fontWeight, 10) || 400;
    nodes.push([parent, el.tagName.toLowerCase(), xpath, num(r.left + sx), num(r.top + sy), num(r.width),
                num(r.height), fontSize, fontWeight, (bg === "rgba(0, 0, 0, 0)" || bg === "transparent") ? null : bg,
                s.display, s.visibility, null, false]);
    if (s.display === "none" || LEAF.has(el.tagName.toLowerCase())) continue;
    // xpath steps as lxml writes them: an index only where siblings share the tag
    const counts = {}, seen = {};
    for (const c of el.childNodes) {
      if (c.nodeType === 1) counts[c.tagName] = (counts[c.tagName] || 0) + 1;
    }
    const textInfo = [fontSize, fontWeight, s.visibility, !!el.closest("a")];
    const children = [];
    let textCount = 0;
    for (const c of el.childNodes) {
      if (c.nodeType === 3) {
        textCount += 1;
        if (c.nodeValue && c.nodeValue.trim()) children.push([c, index, xpath + "/text()[" + textCount + "]", textInfo]);
      } else if (c.nodeType === 1 && !SKIP.has(c.tagName)) {
        seen[c.tagName] = (seen[c.tagName] || 0) + 1;
        const tag = c.tagName.toLowerCase();
        children.push([c, index, xpath + "/" + (counts[c.tagName] > 1 ? tag + "[" + seen[c.tagName] + "]" : tag), null]);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);   // popped in document order
  }
  const de = document.documentElement;
  // one JSON string: Playwright serialises a returned object value by value (4x slower on real pages)
  // the first <base>: the renderer's while this is still the page's document (about:blank, which a refresh
  // may replace it with, has none, though its baseURI is the page's)
  const base = document.querySelector("base[href]");
  return JSON.stringify({nodes, truncated, title: document.title || "", base: base ? base.href : "",
                         width: Math.max(de.scrollWidth, body.scrollWidth || 0),
                         height: Math.max(de.scrollHeight, body.scrollHeight || 0)});
}
