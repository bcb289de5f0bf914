// Warp 99's "How to play" sheet: docs/rules/warp99.md in players' words, short, with pictures
// drawn with the table's own card elements.

import { h } from "../../dom.js";
import { RULES, cardLabel, cardPicture, make } from "./warp99-cards.js";

function cards(list, caption) {
  return h(
    "div",
    { class: "w-howto-cards", role: "img", "aria-label": caption },
    list.map((card) =>
      typeof card === "string"
        ? h("span", { class: "w-arrow", "aria-hidden": "true" }, card)
        : cardPicture(card, { size: "small", role: null, "aria-label": null }),
    ),
    h("span", { class: "w-howto-caption", "aria-hidden": "true" }, caption),
  );
}

function ruleLine(key) {
  const rule = RULES[key];
  const [card, top, caption] = rule.example;
  return h(
    "li",
    { class: "w-howto-rule" },
    h("strong", null, rule.name),
    ": ",
    rule.text,
    cards([top, "←", card], caption),
  );
}

export function howTo() {
  const row = [make("purple", 1), make("green", 3), make("blue", 5)];
  return h(
    "div",
    { class: "w-howto" },
    h("h2", null, "Warp 99 — how to play"),
    h(
      "p",
      null,
      h("strong", null, "First to 99 points wins"),
      " — at once, even in the middle of a turn. Later seats start with a small head start (1, 2, … points).",
    ),
    h("p", null, "Your turn has three steps, always A, B, C:"),
    h("h3", null, "A · Your row"),
    h(
      "p",
      null,
      "Add exactly one card from your hand to your row. It must be higher than the last card and of a colour not yet in the row.",
    ),
    cards(row, `A row: ${row.map(cardLabel).join(", ")}. Next: higher than 5, not purple, green or blue.`),
    h(
      "p",
      null,
      "Before adding, you may score the row: cards × cards points (4 cards → 16). If no card fits, you must score it, then start a new row with any card.",
    ),
    h("h3", null, "B · The two piles"),
    h(
      "p",
      null,
      "Play as many cards as you like onto the two shared piles, one at a time. Each card must follow at least one of the three face-up rule cards with the pile's top card. Tap a rule card on the table to read it.",
    ),
    cards([make("red", 6), "←", make("red", 4)], "Red 4 on Red 6: Same Colour and Total 10 — two rules, so a bonus card!"),
    h(
      "ul",
      null,
      h("li", null, h("strong", null, "Bonus card: "), "a card that follows two or three rules at once draws you one card from your deck."),
      h("li", null, h("strong", null, "Empty hand: "), "play your last card on a pile and you draw six new cards and play A, B, C again."),
      h(
        "li",
        null,
        h("strong", null, "Stuck? "),
        "If right after step A nothing fits either pile, you may flip one rule card over (once a turn) and go on.",
      ),
    ),
    h("h3", null, "C · Draw"),
    h("p", null, "Draw from your own deck back up to six cards. The next player begins."),
    h("h3", null, "Your deck: +15"),
    h("p", null, "Everyone draws from their own deck of 15. When a full deck runs out you score 15 points and get a new one."),
    h("h3", null, "The rules on the rule cards"),
    h("p", null, "Each rule card has two sides; the gold side starts face up."),
    h(
      "ul",
      { class: "w-howto-rules" },
      ["same_colour", "same_number", "plus_one", "minus_one", "total_ten", "double_or_half"].map(ruleLine),
    ),
  );
}
