// Floor's "How to play" sheet: docs/rules/floor.md in players' words, short, with the table's
// own cards as pictures (built by ./floor-cards.js, so they look exactly like the real ones).

import { h } from "../../dom.js";
import { cardOf, cardPicture } from "./floor-cards.js";
import { shapeIcon } from "./shapes.js";

// Card ids (docs/rules/floor.md, "The cards"): Number = shape × 20 + value × 2.
const TRIANGLE_6 = 1 * 20 + 6 * 2;
const CIRCLE_3 = 3 * 2;
const STAR_4 = 3 * 20 + 4 * 2;
const SQUARE_1 = 2 * 20 + 1 * 2;

function pics(...ids) {
  return h("span", { class: "f-howto-cards" }, ids.map((id) => cardPicture(cardOf(id), { key: id })));
}

function floorPicture(shape, number) {
  return h(
    "span",
    { class: "f-howto-floor", role: "img", "aria-label": `A floor of ${shape} ${number}` },
    h("span", { class: ["f-floor-face", `s-${shape}`] }, shapeIcon(shape, { size: "100%" }), h("span", { class: ["f-floor-number", shape === "triangle" && "low"] }, String(number))),
  );
}

function item(picture, title, ...text) {
  return h("li", { class: "f-howto-item" }, picture, h("div", null, h("strong", null, title), " ", ...text));
}

export function howTo() {
  return h(
    "div",
    { class: "f-howto" },
    h("p", null, "Everybody holds 7 cards. Get rid of all of yours first to win. On your turn, play onto the floor, or draw one card (always allowed; it ends your turn)."),
    h(
      "ul",
      { class: "f-howto-list" },
      item(floorPicture("triangle", 4), "The floor", "has a shape and a number. An open part (“any shape”, “?”) matches anything."),
      item(pics(TRIANGLE_6), "One Number", "of the floor’s shape: its value becomes the Floor Number. Numbers match by shape, never by value."),
      item(pics(CIRCLE_3, SQUARE_1), "Two or three Numbers", "of any shapes whose values add up to exactly the Floor Number (3 + 1 = 4). You choose which of their shapes the floor takes."),
      item(
        pics(80, TRIANGLE_6),
        "An Operation",
        "(+, −, ×) changes the number, together with one Number of any shape: on a 4, + 6 makes 4 + 6 = 10 → 0. Only the last digit counts, and below 0 counts on from 10 (3 − 8 → 5). Numbers adding up to the result may ride along. An Operation is never your last card.",
      ),
      item(pics(92 + 1), "Freeze", "(same shape): the next player must play any Freeze (it goes back to you), discard 2 equal or 3 different Operations, or draw 1 and lose the turn."),
      item(pics(100 + 1), "Take +1 / +2", "(same shape): the next player stacks any Take — the stack grows and moves on — or draws the whole stack."),
      item(pics(104), "Swap", "reverses the direction. If the next player has exactly 2 cards it is charged: they may reverse it back at once. Never your last card: a lone Swap can be burnt for the bottom card."),
      item(pics(108), "Power", "sets any shape you name; the number stays. It may be your winning card."),
      item(pics(STAR_4), "Tap to play", "Highlighted cards are playable. Tap cards to build a play, then press the button under them. The line above the buttons says why a card fits."),
    ),
    h("p", { class: "muted" }, "Empty draw pile: the pile under the top card is shuffled into a new one. If nobody can play or draw for a whole round, the fewest cards win."),
  );
}
