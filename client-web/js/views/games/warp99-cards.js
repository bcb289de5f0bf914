// Warp 99's cards and rule cards as the table, the ticker and the "How to play" sheet draw and
// explain them. Colours always come with their name and symbol, never the colour alone.
//
// The rules below only *explain* a play the server listed as legal (which face-up rules it
// follows, for the hint line); what is legal is always the view's `legal` list.

import { h } from "../../dom.js";

// Index = colour number on the wire (a card id is colour × 11 + value, docs/rules/warp99.md).
export const COLOURS = [
  ["red", "Red", "♥"],
  ["orange", "Orange", "◆"],
  ["yellow", "Yellow", "★"],
  ["green", "Green", "♣"],
  ["light_blue", "Light blue", "●"],
  ["blue", "Blue", "▲"],
  ["purple", "Purple", "■"],
  ["pink", "Pink", "✿"],
  ["tan", "Tan", "♠"],
  ["gray", "Gray", "✚"],
];

export const PILES = ["left pile", "right pile"];

/** A card as the table draws it, from its id (views, actions and events name cards by id). */
export function cardOf(id) {
  const [colour, colour_name, symbol] = COLOURS[Math.floor(id / 11)];
  return { id, value: id % 11, colour, colour_name, symbol };
}

/** A card by colour key and value, for pictures in the explanations. */
export function make(colour, value) {
  return cardOf(COLOURS.findIndex(([key]) => key === colour) * 11 + value);
}

export function cardLabel(card) {
  return `${card.colour_name} ${card.value}`;
}

/** A card's face: big value, the colour's symbol, and its name (the name left out on minis). */
export function cardFace(card, { mini = false } = {}) {
  return [
    h("span", { class: "w-value" }, String(card.value)),
    h("span", { class: "w-symbol", "aria-hidden": "true" }, card.symbol),
    mini ? null : h("span", { class: "w-name", "aria-hidden": "true" }, card.colour_name),
  ];
}

/** A card that is only looked at (piles, rows, pictures): a labelled image. */
export function cardPicture(card, props = {}) {
  const size = props.size || "";
  return h(
    "span",
    {
      role: "img",
      "aria-label": cardLabel(card),
      ...props,
      size: null,
      class: ["card", "w-card", `c-${card.colour}`, size, props.class],
    },
    cardFace(card, { mini: size === "mini" }),
  );
}

// -- the rules ------------------------------------------------------------------------------

export const RULES = {
  same_colour: {
    flip: "Colour",
    name: "Same Colour",
    short: "Same Colour",
    text: "Your card has the same colour as the pile's top card.",
    example: [make("red", 3), make("red", 8), "Red 3 on Red 8"],
  },
  same_number: {
    flip: "Number",
    name: "Same Number",
    short: "Same Number",
    text: "Your card has the same number as the pile's top card, in any colour.",
    example: [make("blue", 7), make("red", 7), "Blue 7 on Red 7"],
  },
  plus_one: {
    flip: "Plus 1",
    name: "Plus 1",
    short: "Plus 1",
    text: "Your card is one higher than the pile's top (6 → 7). Impossible on a 10.",
    example: [make("yellow", 7), make("green", 6), "Yellow 7 on Green 6"],
  },
  minus_one: {
    flip: "Minus 1",
    name: "Minus 1",
    short: "Minus 1",
    text: "Your card is one lower than the pile's top (7 → 6). Impossible on a 0.",
    example: [make("green", 6), make("yellow", 7), "Green 6 on Yellow 7"],
  },
  total_ten: {
    flip: "Total 10",
    name: "Total 10",
    short: "Total 10",
    text: "Your card and the pile's top add up to 10 (4 on 6, 0 on 10).",
    example: [make("pink", 4), make("tan", 6), "Pink 4 on Tan 6"],
  },
  double_or_half: {
    flip: "× or ÷ 2",
    name: "Times or Divided by 2",
    short: "× or ÷ 2",
    text: "Your card is double or half the pile's top (3 → 6, 8 → 4; 0 on 0). On an odd top only doubling works.",
    example: [make("purple", 6), make("orange", 3), "Purple 6 on Orange 3"],
  },
};

// Rule card i has RULE_SIDES[i][side - 1] face up.
export const RULE_SIDES = [
  ["same_colour", "same_number"],
  ["plus_one", "minus_one"],
  ["total_ten", "double_or_half"],
];

export function ruleName(key) {
  return RULES[key] ? RULES[key].name : key;
}

/** Whether `card` on `top` follows the rule `key` (docs/rules/warp99.md, R10). */
export function follows(key, top, card) {
  const t = top.value;
  const c = card.value;
  if (key === "same_colour") return top.colour === card.colour;
  if (key === "same_number") return c === t;
  if (key === "plus_one") return c === t + 1;
  if (key === "minus_one") return c === t - 1;
  if (key === "total_ten") return c + t === 10;
  if (key === "double_or_half") return c === 2 * t || 2 * c === t;
  return false;
}

/** Why `card` fits on `top` in players' words: "Plus 1 (6 → 7)", "Total 10 (4 + 6)". */
export function why(key, top, card) {
  const t = top.value;
  const c = card.value;
  if (key === "plus_one" || key === "minus_one") return `${ruleName(key)} (${t} → ${c})`;
  if (key === "total_ten") return `Total 10 (${t} + ${c})`;
  if (key === "double_or_half") return `${c === 2 * t ? "Times 2" : "Divided by 2"} (${t} → ${c})`;
  return ruleName(key);
}
