// Short animations that explain a change on the table, driven by the server's events (never
// guessed from two snapshots). Every one lasts at most MAX_MS and none runs when the person
// asked for less motion (`prefers-reduced-motion: reduce`).
//
// How a game uses this (see ./views/games/index.js): elements that may move carry a stable
// `data-anim` name (a card's place: "discard", "grid-2-5", "hand-17", …). Right before the page
// is patched the frame takes `snapshot(root)`; after the patch it calls the game's
// `animate(entries, {root, before, ctx})`, which picks the elements the events name and calls
// the helpers below with their old positions.

export const MAX_MS = 250;
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";

const query = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** Whether animations are off for this person. */
export function reducedMotion() {
  return Boolean(query && query.matches);
}

/** Where every `[data-anim]` element inside `root` is now, by its name. */
export function snapshot(root) {
  const places = new Map();
  if (!root) return places;
  for (const el of root.querySelectorAll("[data-anim]")) {
    places.set(el.dataset.anim, el.getBoundingClientRect());
  }
  return places;
}

/** The element named `name` inside `root`, or null. */
export function find(root, name) {
  return root ? root.querySelector(`[data-anim="${CSS.escape(name)}"]`) : null;
}

/** Animate `el`. While it moves it takes no tap meant for what it passes over (pointer-events
 * is part of the animation, so a redraw of the page cannot take it away), and it passes under
 * the labels a player reads: app.css sets their z-index above any card's. */
function run(el, frames, ms) {
  if (!el || reducedMotion() || typeof el.animate !== "function") return null;
  const untouchable = frames.map((frame) => ({ ...frame, pointerEvents: "none" }));
  return el.animate(untouchable, { duration: Math.min(ms, MAX_MS), easing: EASE });
}

/** Slide `el` from the rectangle `from` (an old position, from `snapshot`) to where it is now. */
export function flyFrom(el, from, ms = 220) {
  if (!el || !from) return null;
  const to = el.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return null;
  const scale = to.width > 0 && from.width > 0 ? from.width / to.width : 1;
  return run(
    el,
    [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
    ms,
  );
}

/** A card turning face up (or over) in place. */
export function flip(el, ms = 220) {
  return run(el, [{ transform: "perspective(400px) rotateY(90deg)" }, { transform: "none" }], ms);
}

/** Something new appearing in place (a card dealt, a stack growing). */
export function pop(el, ms = 180) {
  return run(el, [{ transform: "scale(0.6)", opacity: 0 }, { transform: "none", opacity: 1 }], ms);
}

/** Draw the eye to `el` without moving it (a row scored, a rule flipped). */
export function pulse(el, ms = 240) {
  return run(el, [{ transform: "none" }, { transform: "scale(1.08)" }, { transform: "none" }], ms);
}

/** Something leaving the table (a cleared column, a scored row): a copy of how it looked, at
 * the rectangle `from`, fades away above the page. `look` is the old element or a fresh one. */
export function vanish(look, from, ms = 220) {
  if (!look || !from || reducedMotion()) return null;
  const ghost = look.cloneNode(true);
  ghost.removeAttribute("data-anim");
  ghost.setAttribute("aria-hidden", "true");
  Object.assign(ghost.style, {
    position: "fixed",
    left: `${from.left}px`,
    top: `${from.top}px`,
    width: `${from.width}px`,
    height: `${from.height}px`,
    margin: "0",
    pointerEvents: "none",
    // Above the table, below the toast (20), the sheets (30) and the results overlay (40).
    zIndex: "15",
  });
  document.body.appendChild(ghost);
  const animation = run(
    ghost,
    [{ opacity: 1, transform: "none" }, { opacity: 0, transform: "scale(0.7)" }],
    ms,
  );
  if (!animation) {
    ghost.remove();
    return null;
  }
  animation.onfinish = () => ghost.remove();
  animation.oncancel = () => ghost.remove();
  return animation;
}
