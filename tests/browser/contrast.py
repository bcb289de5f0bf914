"""The WCAG 2 contrast of the text on a page, measured in the page itself.

``page.evaluate(CONTRAST_JS, selector)`` lists, for every visible element matching ``selector``
that has text of its own: the text, its class, the contrast ratio of its colour over the colours
actually behind it (the backgrounds of its ancestors, blended as drawn), and its font size in px.
"""

CONTRAST_JS = """
(selector) => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const parts = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const behind = (el) => {
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const bg = parse(getComputedStyle(n).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let colour = [255, 255, 255, 1];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden") continue;
    const bg = behind(el);
    const fg = over(parse(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    out.push({
      text: el.textContent.trim().slice(0, 40),
      cls: el.className,
      ratio: (hi + 0.05) / (lo + 0.05),
      px: parseFloat(style.fontSize),
    });
  }
  return out;
}
"""
