// Building DOM from data, and patching the page to match a freshly built tree.
//
// The views rebuild the whole page from the latest snapshot on every change; `morph` then
// updates the live page in place, keeping elements whose tag and key match. That keeps focus,
// caret position, scroll offsets and typed text, so keyboard and screen-reader users are not
// thrown back to the top each time a bot moves.

const SVG_NS = "http://www.w3.org/2000/svg";

function setProps(el, props) {
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) {
      el[name] = value;
      (el.__on ||= []).push(name);
    } else if (name === "value" || name === "checked") {
      el[name] = value;
      (el.__props ||= {})[name] = value;
    } else if (name === "class") {
      const cls = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
      if (cls) el.setAttribute("class", cls);
    } else if (name === "raw") {
      // Trusted markup only (the vendored QR code maker's SVG).
      el.innerHTML = value;
      el.__raw = value;
    } else if (name === "key") {
      el.setAttribute("data-key", String(value));
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false || child === "") continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** An HTML element: h("button", {class: "x", onclick}, "text", child, [more]). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** An SVG element (same conventions as h). */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

function keyOf(node) {
  return node.nodeType === 1 ? node.getAttribute("data-key") : null;
}

function same(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
}

// Unkeyed siblings are paired by tag and first class, so a panel that appears above another
// of the same tag does not swallow it (and the focus inside it).
function kind(node) {
  if (node.nodeType !== 1) return node.nodeName;
  const cls = node.getAttribute("class");
  return `${node.nodeName}.${cls ? cls.split(" ")[0] : ""}`;
}

/** Make the live node `from` look like the fresh node `to`; returns the node now in the page. */
export function morph(from, to) {
  if (!same(from, to)) {
    from.replaceWith(to);
    return to;
  }
  if (from.nodeType !== 1) {
    if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
    return from;
  }
  for (const attr of [...from.attributes]) {
    if (!to.hasAttribute(attr.name)) from.removeAttribute(attr.name);
  }
  for (const attr of to.attributes) {
    if (from.getAttribute(attr.name) !== attr.value) from.setAttribute(attr.name, attr.value);
  }
  for (const name of from.__on || []) if (!(to.__on || []).includes(name)) from[name] = null;
  for (const name of to.__on || []) from[name] = to[name];
  from.__on = to.__on;
  for (const [name, value] of Object.entries(to.__props || {})) {
    // Never overwrite what the user is typing.
    const typing = name === "value" && from === document.activeElement;
    if (from[name] !== value && !typing) from[name] = value;
  }
  from.__props = to.__props;
  if (to.__raw !== undefined || from.__raw !== undefined) {
    if (from.__raw !== to.__raw) {
      from.innerHTML = to.__raw ?? "";
      from.__raw = to.__raw;
    }
    return from;
  }
  morphChildren(from, to);
  return from;
}

function morphChildren(from, to) {
  const old = [...from.childNodes];
  const keyed = new Map();
  const loose = [];
  for (const node of old) {
    const key = keyOf(node);
    if (key !== null) keyed.set(key, node);
    else loose.push(node);
  }
  const used = new Set();
  let looseAt = 0;
  const pairs = [...to.childNodes].map((fresh) => {
    let match = null;
    const key = keyOf(fresh);
    if (key !== null) {
      const candidate = keyed.get(key);
      if (candidate && same(candidate, fresh) && !used.has(candidate)) match = candidate;
    } else {
      for (let at = looseAt; at < loose.length; at += 1) {
        const candidate = loose[at];
        if (!used.has(candidate) && same(candidate, fresh) && kind(candidate) === kind(fresh)) {
          match = candidate;
          looseAt = at + 1;
          break;
        }
      }
    }
    if (match) used.add(match);
    return [fresh, match];
  });
  // Drop the old nodes that stay unmatched first: while one of them still stood before a kept
  // node, placing that node would move it, and moving an element blurs whatever inside it has
  // the keyboard focus (a replaced ticker line would steal the focus from the tapped card).
  for (const node of old) if (!used.has(node) && node.parentNode === from) node.remove();
  pairs.forEach(([fresh, match], index) => {
    const node = match ? morph(match, fresh) : fresh;
    const here = from.childNodes[index];
    if (here !== node) from.insertBefore(node, here || null);
  });
}

/** Replace the contents of `root` with `tree` (a node or a list of nodes), patching in place. */
export function patch(root, tree) {
  const fresh = document.createElement(root.nodeName);
  append(fresh, Array.isArray(tree) ? tree : [tree]);
  morphChildren(root, fresh);
}
