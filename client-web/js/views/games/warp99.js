// Warp 99's table, drawn from the view (rules/warp99/views.py; docs/rules/warp99.md, whose
// compact wire form `decode` spells out first), on the contract of ./index.js: the rule cards,
// piles and your row in the middle, your hand in the tray, the step's buttons in the reserved
// moves slot, and a hint line that says why a card is playable. Every card shows its colour's
// name and symbol, never the colour alone.

import { h } from "../../dom.js";
import { button, who } from "../common.js";
import { SENDING, isSending, legalOf, sendingMark, withSending } from "./shared.js";
import * as motion from "../../motion.js";
import {
  PILES,
  RULES,
  RULE_SIDES,
  cardFace,
  cardLabel,
  cardOf,
  cardPicture,
  follows,
  ruleName,
  why,
} from "./warp99-cards.js";

export { howTo } from "./warp99-howto.js";
export { cardLabel };

const STEPS = [
  ["A", "Row"],
  ["B", "Piles"],
  ["C", "Draw"],
];

// -- the view on the wire, spelled out -------------------------------------------------------

const decoded = new WeakMap();

/** The view as the table draws it, from the compact wire form (docs/rules/warp99.md, "The view
 * on the wire"): every card id spelled out as a card (cardOf), one `players` entry per seat,
 * and each rule card's side and name beside its face-up rule. An open view (`open`: nothing
 * hidden, "The open view") also gives each player its `hand` (else null). Worked out once per
 * view. */
function decode(view) {
  if (decoded.has(view)) return decoded.get(view);
  const hands = view.open === true && Array.isArray(view.hands) ? view.hands : null;
  const players = (view.rows || []).map((row, seat) => ({
    seat,
    score: view.scores[seat],
    row: row.map(cardOf),
    hand_size: view.hand_sizes[seat],
    deck_size: view.deck_sizes[seat],
    deck_full: view.deck_full[seat],
    hand: hands && hands[seat] ? hands[seat].map(cardOf) : null,
  }));
  const full = {
    ...view,
    rules: (view.rules || []).map((rule, card) => ({ card, side: RULE_SIDES[card].indexOf(rule) + 1, rule, name: ruleName(rule) })),
    piles: (view.piles || []).map((pile) => ({ top: cardOf(pile.top), size: pile.size })),
    players,
    hand: view.hand ? view.hand.map(cardOf) : view.hand,
  };
  decoded.set(view, full);
  decoded.set(full, full);
  return full;
}

// -- what the view offers -------------------------------------------------------------------

/** The legal actions by type (legalOf): `L.adds`, `L.score`… */
const LEGAL = {
  all: { adds: "add_to_row", plays: "play_to_pile", flips: "flip_rule" },
  one: { score: "score_row", end: "end_step" },
};

function usable(L, id) {
  return L.adds.some((a) => a.card === id) || L.plays.some((a) => a.card === id);
}

/** The hand card the player tapped (playable or not: an unplayable one gets a hint why). */
function chosenCard(view, ctx) {
  // While a move is in flight its card stays chosen, so its button stays, marked "sending…".
  const pending = ctx.pending && ctx.pending.card;
  const id = pending !== undefined && pending !== null ? pending : ctx.ui.card;
  if (id === undefined || id === null || !view.hand) return null;
  return view.hand.find((c) => c.id === id) || null;
}

/** A control that refuses taps while a move is in flight without fading (the view is current). */
function guarded(ctx, fn) {
  return (event) => {
    if (event) event.stopPropagation();
    if (!ctx.busy) fn();
  };
}

function faceUp(view) {
  return view.rules.map((r) => r.rule);
}

/** The face-up rules `card` follows on pile `index` (the server listed the play as legal). */
function reasons(view, index, card) {
  const top = view.piles[index].top;
  return faceUp(view).filter((key) => follows(key, top, card));
}

function rowNeeds(row) {
  if (!row.length) return "any card";
  return `higher than ${row[row.length - 1].value}, new colour`;
}

// -- the middle: rule cards, piles, your row -----------------------------------------------

function stepTrack(view, ctx) {
  return h(
    "ol",
    { class: "w-steps", "aria-label": `${ctx.names(view.turn)}'s turn, step ${view.step}` },
    STEPS.map(([step, name]) =>
      h(
        "li",
        { key: step, class: step === view.step && "now", "aria-current": step === view.step ? "step" : null },
        h("strong", null, step),
        ` ${name}`,
      ),
    ),
  );
}

function explanation(view, ctx, index) {
  const rule = view.rules[index];
  const info = RULES[rule.rule];
  const other = RULE_SIDES[rule.card][2 - rule.side];
  const [card, top, caption] = info.example;
  const close = () => {
    ctx.setUi({ explain: null });
    // The "Got it" button is gone now: back to the rule card it explained.
    document.querySelector(`#app .w-rule-face[data-rule="${index}"]`)?.focus();
  };
  return h(
    "div",
    {
      class: "w-explain",
      id: "w-explain",
      role: "dialog",
      "aria-label": `Rule: ${info.name}`,
      key: `explain${index}`,
    },
    h(
      "div",
      { class: "w-explain-head" },
      h("strong", { class: "w-explain-title" }, `Rule card ${rule.card + 1} · ${rule.side === 1 ? "gold side" : "side 2"}`),
      button("Got it", close, { class: "w-explain-close", "data-explain-close": "" }),
    ),
    h("p", { class: "w-explain-text" }, `${info.name}: ${info.text[0].toLowerCase()}${info.text.slice(1)}`),
    h(
      "div",
      { class: "w-example", role: "img", "aria-label": `Example: ${caption}` },
      cardPicture(top, { role: null, "aria-label": null }),
      h("span", { class: "w-arrow", "aria-hidden": "true" }, "←"),
      cardPicture(card, { role: null, "aria-label": null }),
      h(
        "span",
        { class: "w-example-caption" },
        `${caption}. Other side of this card: ${ruleName(other)}. Two rules at once: a bonus card.`,
      ),
    ),
  );
}

function ruleCards(view, ctx) {
  const L = legalOf(view, LEGAL);
  const open = ctx.ui.explain;
  return h(
    "div",
    {
      class: "w-rules-wrap",
      // Escape closes an open explanation, from the rule card or from inside it.
      onkeydown: (e) => {
        if (e.key === "Escape" && open !== undefined && open !== null) {
          e.stopPropagation();
          ctx.setUi({ explain: null });
          document.querySelector(`#app .w-rule-face[data-rule="${open}"]`)?.focus();
        }
      },
    },
    h(
      "div",
      { class: "w-rules", role: "group", "aria-label": "Rule cards (tap one to read it)" },
      view.rules.map((rule) => {
        const flip = L.flips.find((a) => a.rule === rule.card);
        const expanded = open === rule.card;
        const next = ruleName(RULE_SIDES[rule.card][2 - rule.side]);
        return h(
          "div",
          {
            class: ["w-rule", `side-${rule.side}`, flip && "flippable"],
            key: `rule${rule.card}`,
            "data-anim": `rule-${rule.card}`,
          },
          h(
            "button",
            {
              type: "button",
              class: "w-rule-face",
              "data-rule": String(rule.card),
              "aria-expanded": expanded ? "true" : "false",
              "aria-controls": expanded ? "w-explain" : null,
              "aria-label": `Rule card ${rule.card + 1}: ${rule.name}. Tap to read the rule.`,
              onclick: () => ctx.setUi({ explain: expanded ? null : rule.card }),
            },
            h("strong", { class: "w-rule-name" }, RULES[rule.rule] ? RULES[rule.rule].short : rule.name),
            h(
              "span",
              { class: "w-rule-foot" },
              h("span", { class: "w-rule-side" }, rule.side === 1 ? "gold side" : "side 2"),
              h("span", { class: "w-rule-help", "aria-hidden": "true" }, "?"),
            ),
          ),
          flip
            ? h(
                "button",
                {
                  type: "button",
                  class: ["w-flip", "legal", isSending(ctx, flip) && SENDING],
                  "data-legal": "flip",
                  onclick: guarded(ctx, () => ctx.act(flip)),
                  "aria-label": `Flip rule card ${rule.card + 1}: ${rule.name} becomes ${next}`,
                },
                withSending(`Flip → ${RULES[RULE_SIDES[rule.card][2 - rule.side]].flip}`, isSending(ctx, flip)),
              )
            : null,
        );
      }),
    ),
    open !== undefined && open !== null && view.rules[open] ? explanation(view, ctx, open) : null,
  );
}

function pileView(view, ctx, index, chosen, L) {
  const pile = view.piles[index];
  const play = chosen ? L.plays.find((a) => a.card === chosen.id && a.pile === index) : null;
  const inner = [
    h("span", { class: "pile-label" }, `${PILES[index][0].toUpperCase()}${PILES[index].slice(1)} · ${pile.size}`),
    cardPicture(pile.top, {
      role: null,
      "aria-label": null,
      key: `top${pile.top.id}`,
      class: "top",
      "data-anim": `pile-${index}`,
    }),
    sendingMark(isSending(ctx, play)),
  ];
  if (play) {
    return h(
      "button",
      {
        type: "button",
        class: ["w-pile", "legal", isSending(ctx, play) && SENDING],
        key: `pile${index}`,
        "data-legal": "pile",
        "data-pile": String(index),
        onclick: guarded(ctx, () => ctx.act(play)),
        "aria-label": `Play ${cardLabel(chosen)} on the ${PILES[index]} (top: ${cardLabel(pile.top)})`,
      },
      inner,
    );
  }
  return h(
    "div",
    {
      class: "w-pile",
      key: `pile${index}`,
      "data-pile": String(index),
      role: "img",
      "aria-label": `The ${PILES[index]}: ${cardLabel(pile.top)} on top, ${pile.size} cards`,
    },
    inner,
  );
}

function piles(view, ctx) {
  const L = legalOf(view, LEGAL);
  const chosen = chosenCard(view, ctx);
  return h(
    "div",
    { class: "w-piles" },
    pileView(view, ctx, 0, chosen, L),
    pileView(view, ctx, 1, chosen, L),
    h(
      "div",
      { class: "w-supply", "aria-label": `Reserve: ${view.reserve_size} cards; scored pile: ${view.scored_size} cards` },
      h("span", { class: "w-stack", "data-anim": "reserve" }, h("strong", null, String(view.reserve_size)), " reserve"),
      h("span", { class: "w-stack", "data-anim": "scored" }, h("strong", null, String(view.scored_size)), " scored"),
    ),
  );
}

/** The row in the middle: yours, or (watching) that of the player whose turn it is. */
function rowView(view, ctx) {
  const seat = ctx.spectator ? view.turn : ctx.you;
  const player = view.players[seat];
  if (!player) return null;
  const n = player.row.length;
  const mine = !ctx.spectator;
  return h(
    "section",
    { class: "w-myrow", "aria-label": mine ? "Your row" : `${ctx.names(seat)}'s row` },
    h(
      "div",
      { class: "w-row-head" },
      h("strong", null, mine ? "Your row" : `${ctx.names(seat)}'s row`),
      h("span", { class: "w-row-worth" }, n ? `${n} card${n === 1 ? "" : "s"} = ${n * n} point${n === 1 ? "" : "s"}` : "empty"),
      h("span", { class: "w-row-score" }, `${player.score} / ${view.target}`),
    ),
    h(
      "div",
      { class: "w-row", role: "list" },
      n
        ? player.row.map((card) =>
            cardPicture(card, { role: "listitem", key: `r${card.id}`, size: "small", "data-anim": `row-${seat}-${card.id}` }),
          )
        : h("span", { class: "w-row-empty" }, mine ? "Step A: add a card here" : "no cards yet"),
    ),
    // An open view (a replay, everything revealed): the hand of the player whose row this is.
    !mine && player.hand
      ? h(
          "div",
          { class: "w-row w-open-hand", role: "list", "aria-label": `${ctx.names(seat)}'s hand: ${player.hand.map(cardLabel).join(", ") || "empty"}` },
          h("span", { class: "w-open-label", "aria-hidden": "true" }, "hand"),
          player.hand.length
            ? player.hand.map((card) => cardPicture(card, { role: "listitem", key: `oh${card.id}`, size: "small" }))
            : h("span", { class: "w-row-empty" }, "hand empty"),
        )
      : null,
  );
}

function middle(view, ctx) {
  return h(
    "div",
    { class: "w-table", "data-step": view.step },
    h(
      "div",
      { class: "w-status" },
      view.over ? null : stepTrack(view, ctx),
      view.over
        ? h("span", { class: "w-target" }, `First to ${view.target} won`)
        : h(
            "span",
            { class: "w-flip-note", title: "Once a turn, if nothing fits right after step A, you may flip a rule card" },
            view.flip_used ? "Stuck flip: used" : "Stuck flip: ready",
          ),
    ),
    ruleCards(view, ctx),
    piles(view, ctx),
    rowView(view, ctx),
  );
}

// -- the tray: your hand ---------------------------------------------------------------------

function hand(view, ctx) {
  const L = legalOf(view, LEGAL);
  const chosen = chosenCard(view, ctx);
  const mine = view.turn === ctx.you && !view.over;
  return h(
    "div",
    {
      class: ["w-hand", `n${view.hand.length}`],
      role: "group",
      tabindex: "-1",
      "aria-label": `Your hand, ${view.hand.length} card${view.hand.length === 1 ? "" : "s"}`,
      style: `--n: ${Math.max(view.hand.length, 1)}`,
    },
    view.hand.length
      ? view.hand.map((card) => {
          const ok = usable(L, card.id);
          const on = chosen !== null && chosen.id === card.id;
          const inFlight =
            ctx.pending && ctx.pending.card === card.id && (ctx.pending.type === "add_to_row" || ctx.pending.type === "play_to_pile");
          return h(
            "button",
            {
              type: "button",
              key: `h${card.id}`,
              class: ["card", "w-card", `c-${card.colour}`, ok && "legal", on && "selected", inFlight && SENDING],
              "data-anim": `hand-${card.id}`,
              "data-card": String(card.id),
              "data-legal": ok ? (on ? "chosen" : "card") : null,
              "aria-disabled": ok ? null : "true",
              "aria-pressed": on ? "true" : "false",
              "aria-label": `${cardLabel(card)}${ok ? ", playable" : ""}`,
              // Any card may be tapped: a playable one to play it, another to read why not.
              onclick: () => {
                if (!mine) return;
                ctx.setUi({ card: on ? null : card.id, explain: null });
              },
            },
            cardFace(card),
            sendingMark(inFlight),
          );
        })
      : h("p", { class: "w-hand-empty" }, "Your hand is empty."),
  );
}

// -- the moves slot and the hint ----------------------------------------------------------

function moveButton(ctx, text, action, props = {}) {
  const sending = isSending(ctx, action);
  return button(withSending(text, sending), guarded(ctx, () => ctx.act(action)), {
    ...props,
    class: [props.class, sending && SENDING],
  });
}

function moves(view, ctx) {
  if (view.over || view.turn !== ctx.you) return null;
  const L = legalOf(view, LEGAL);
  const chosen = chosenCard(view, ctx);
  const items = [];
  if (chosen) {
    const add = L.adds.find((a) => a.card === chosen.id);
    if (add) {
      items.push(
        moveButton(ctx, "Add to my row", add, {
          class: "primary",
          "data-legal": "move",
          key: "add",
          "aria-label": `Add ${cardLabel(chosen)} to my row`,
        }),
      );
    }
    for (const play of L.plays.filter((a) => a.card === chosen.id)) {
      items.push(
        moveButton(ctx, play.pile === 0 ? "Left pile" : "Right pile", play, {
          class: "primary",
          "data-legal": "move",
          key: `play${play.pile}`,
          "aria-label": `Play ${cardLabel(chosen)} on the ${PILES[play.pile]}`,
        }),
      );
    }
  }
  if (L.score) {
    const n = view.players[ctx.you].row.length;
    items.push(
      moveButton(ctx, `Score my row +${n * n}`, L.score, {
        "data-legal": "score",
        key: "score",
        class: L.adds.length ? null : "primary",
        "aria-label": `Score my row: ${n} card${n === 1 ? "" : "s"}, ${n * n} points`,
      }),
    );
  }
  if (L.end) {
    const label = view.step === "C" ? "Draw up to 6" : view.step === "B" ? "End step B" : "End step A";
    items.push(
      moveButton(ctx, label, L.end, {
        "data-legal": "end",
        key: "end",
        class: view.step === "C" || (!L.plays.length && !L.flips.length) ? "primary" : null,
        "aria-label": view.step === "C" ? "Draw up to six and end my turn" : `End step ${view.step}`,
      }),
    );
  }
  return items.length ? h("div", { class: "w-moves" }, items) : null;
}

// Hints are one short line (the frame's hint line does not wrap): what to do, and why a card
// is playable.
function cardHint(view, ctx, card, L) {
  const row = view.players[ctx.you].row;
  if (view.step === "A") {
    if (L.adds.some((a) => a.card === card.id)) return `${cardLabel(card)} → your row (${row.length ? rowNeeds(row) : "starts it"})`;
    return `${cardLabel(card)} won't fit: your row needs ${rowNeeds(row)}`;
  }
  if (view.step === "B") {
    const plays = L.plays.filter((a) => a.card === card.id);
    if (!plays.length) return `${cardLabel(card)} fits neither pile (${view.piles.map((p) => cardLabel(p.top)).join(", ")})`;
    const parts = plays.map((play) => {
      const rules = reasons(view, play.pile, card);
      const text = rules.map((r) => why(r, view.piles[play.pile].top, card)).join(" + ");
      const pile = plays.length > 1 ? PILES[play.pile].split(" ")[0] : PILES[play.pile];
      // With the last card in hand, emptying the hand is what counts (rulings 7 and 12).
      const extra = view.hand.length === 1 ? " (last card: 6 new ones)" : rules.length >= 2 ? ", bonus card!" : "";
      return `${pile}: ${text}${extra}`;
    });
    return `${cardLabel(card)} → ${parts.join(" · ")}`;
  }
  return null;
}

export function hint(view, ctx) {
  view = decode(view);
  if (view.over || ctx.spectator || view.turn !== ctx.you) return null;
  const L = legalOf(view, LEGAL);
  const chosen = chosenCard(view, ctx);
  const row = view.players[ctx.you].row;
  if (chosen) {
    const text = cardHint(view, ctx, chosen, L);
    if (text) return text;
  }
  if (view.step === "A") {
    if (L.adds.length && !row.length) return "Tap a glowing card to start your row";
    if (L.adds.length) return `Your row needs ${rowNeeds(row)}${L.score ? ` · or score +${row.length ** 2}` : ""}`;
    if (L.score) return `Nothing fits after ${cardLabel(row[row.length - 1])}: score your row +${row.length ** 2}`;
    return "Your hand is empty: end step A";
  }
  if (view.step === "B") {
    if (L.flips.length) return "Stuck: nothing fits. Flip a rule card, or end step B";
    if (L.plays.length) {
      const cards = new Set(L.plays.map((a) => a.card)).size;
      return `${cards} card${cards === 1 ? "" : "s"} fit${cards === 1 ? "s" : ""} a pile: tap one, then a pile`;
    }
    return "Nothing more fits the piles: end step B";
  }
  const short = 6 - view.hand.length;
  return short > 0 ? `Draw ${short} card${short === 1 ? "" : "s"} to end your turn` : "End your turn";
}

export function table(view, ctx) {
  view = decode(view);
  const mine = !ctx.spectator && view.hand;
  return {
    middle: middle(view, ctx),
    tray: mine ? hand(view, ctx) : null,
    moves: mine ? moves(view, ctx) : null,
    hint: mine ? hint(view, ctx) : null,
  };
}

// -- the top strip ---------------------------------------------------------------------------

/** `cards` in lines of at most `per` (the last ones shorter): the strip never grows sideways. */
function lines(cards, per) {
  const count = Math.max(1, Math.ceil(cards.length / per));
  const size = Math.ceil(cards.length / count);
  return Array.from({ length: count }, (_, i) => cards.slice(i * size, (i + 1) * size));
}

/** An open view's hand in the strip: mini cards in up to two lines that overlap to fit. */
function seatHand(p, seatIndex, ctx) {
  return h(
    "span",
    { class: "w-seat-hand", role: "list", "aria-label": `${ctx.names(seatIndex)}'s hand: ${p.hand.length ? p.hand.map(cardLabel).join(", ") : "empty"}` },
    p.hand.length
      ? lines(p.hand, 5).map((line, i) =>
          h(
            "span",
            { class: "w-seat-line", key: `l${i}` },
            line.map((card) => cardPicture(card, { size: "mini", role: "listitem", key: `h${card.id}`, "data-anim": `mini-hand-${seatIndex}-${card.id}` })),
          ),
        )
      : h("span", { class: "w-seat-empty" }, "hand empty"),
  );
}

export function seat(view, seatIndex, ctx) {
  view = decode(view);
  const p = view.players[seatIndex];
  if (!p) return null;
  return h(
    "div",
    { class: "w-seat", "data-anim": `seat-${seatIndex}` },
    h(
      "span",
      { class: "w-seat-facts" },
      h("strong", { class: "w-seat-score" }, `${p.score} point${p.score === 1 ? "" : "s"}`),
    ),
    h("span", { class: "w-seat-counts", "aria-label": `${p.hand_size} cards in hand, ${p.deck_size} in deck` }, `hand ${p.hand_size} · deck ${p.deck_size}`),
    h(
      "span",
      { class: "w-seat-row", role: "list", "aria-label": `${ctx.names(seatIndex)}'s row: ${p.row.length ? p.row.map(cardLabel).join(", ") : "empty"}` },
      p.row.length
        ? p.row.map((card) =>
            cardPicture(card, { size: "mini", role: "listitem", key: `m${card.id}`, "data-anim": `mini-${seatIndex}-${card.id}` }),
          )
        : h("span", { class: "w-seat-empty" }, "row empty"),
    ),
    p.hand ? seatHand(p, seatIndex, ctx) : null,
  );
}

// -- the ticker and the log ---------------------------------------------------------------------

function whose(seat, ctx) {
  return seat === ctx.you ? "your" : `${ctx.names(seat)}'s`;
}

function their(seat, ctx) {
  return seat === ctx.you ? "your" : "their";
}

export function eventText(event, moverSeat, ctx) {
  const s = event.seat !== undefined && event.seat !== null ? event.seat : moverSeat;
  switch (event.type) {
    case "pile_card": {
      const card = cardOf(event.card);
      const rules = (event.rules || []).map(ruleName).join(" + ");
      const text = `${who(s, ctx)} played ${cardLabel(card)} on the ${PILES[event.pile] || "pile"}${rules ? ` (${rules})` : ""}`;
      return event.bonus ? `${text}: bonus card!` : text;
    }
    case "row_card":
      return `${who(s, ctx)} added ${cardLabel(cardOf(event.card))} to ${their(s, ctx)} row`;
    case "row_scored": {
      const n = (event.cards || []).length;
      return `${who(s, ctx)} scored a row of ${n}: +${n * n}`;
    }
    case "scored":
      // A row's points are told with the row; the deck's here (with or without the bonus field
      // on deck_emptied, the points always come as this event).
      if (event.reason === "deck_emptied") return `+${event.points}: ${whose(s, ctx)} deck emptied`;
      if (event.reason === "row") return null;
      return `${who(s, ctx)} scored +${event.points}`;
    case "deck_emptied":
      // Ruling 11: a short deck (not a full 15) scores nothing when it runs out.
      if ("bonus" in event && !event.bonus) return `${whose(s, ctx)[0].toUpperCase()}${whose(s, ctx).slice(1)} short deck ran out: no points`;
      return null;
    case "new_deck":
      return `${who(s, ctx)} got a new deck of ${event.size}`;
    case "drew":
      if (event.why === "bonus") return event.count ? `Bonus card! ${who(s, ctx)} drew 1` : "Bonus card, but the deck is empty";
      if (!event.count) return `${who(s, ctx)} had nothing to draw`;
      return `${who(s, ctx)} drew ${event.count}`;
    case "hand_emptied":
      return `${who(s, ctx)} emptied ${their(s, ctx)} hand: 6 new cards and another go!`;
    case "rule_flipped":
      return `Rule flipped: ${event.name || ruleName(event.now)}${s === ctx.you ? "" : ` (${ctx.names(s)} was stuck)`}`;
    case "step_ended":
      if (event.step === "B") return `${who(s, ctx)} finished with the piles`;
      return null;
    case "reserve_rebuilt":
      return `The reserve was reshuffled from the piles (${event.size} cards)`;
    case "game_won":
      return `${who(s, ctx)} reached ${event.score} points and ${s === ctx.you ? "win" : "wins"}!`;
    case "game_over":
      return event.move_bound ? `The move bound of ${event.move_bound} moves was reached` : "The game is over";
    default:
      return null;
  }
}

// -- motion -------------------------------------------------------------------------------------

export function animate(entries, { root, before, ctx }) {
  if (!root || !entries || !entries.length) return;
  const flown = new Set();
  for (const entry of entries) {
    for (const event of entry.events || []) {
      const s = event.seat !== undefined && event.seat !== null ? event.seat : entry.seat;
      const fromSeat = before.get(`seat-${s}`);
      if (event.type === "pile_card") {
        const el = motion.find(root, `pile-${event.pile}`);
        const from = before.get(`hand-${event.card}`) || fromSeat;
        if (from) motion.flyFrom(el, from);
        else motion.pop(el);
      } else if (event.type === "row_card") {
        const el = motion.find(root, `row-${s}-${event.card}`) || motion.find(root, `mini-${s}-${event.card}`);
        const from = before.get(`hand-${event.card}`) || fromSeat;
        if (from && el) motion.flyFrom(el, from);
        else if (el) motion.pop(el);
        else motion.pulse(motion.find(root, `seat-${s}`));
      } else if (event.type === "row_scored") {
        for (const id of event.cards || []) {
          const big = before.get(`row-${s}-${id}`);
          const rect = big || before.get(`mini-${s}-${id}`);
          if (rect) motion.vanish(cardPicture(cardOf(id), { size: big ? "small" : "mini" }), rect);
        }
        motion.pulse(motion.find(root, "scored"));
      } else if (event.type === "rule_flipped") {
        motion.flip(motion.find(root, `rule-${event.rule}`));
      } else if (event.type === "drew" && event.count) {
        if (s === ctx.you) {
          // The cards that were not in the hand before are the new ones.
          for (const el of root.querySelectorAll(".w-hand [data-anim]")) {
            if (!before.has(el.dataset.anim) && !flown.has(el.dataset.anim)) {
              flown.add(el.dataset.anim);
              motion.pop(el);
            }
          }
        } else {
          motion.pulse(motion.find(root, `seat-${s}`));
        }
      } else if (event.type === "scored") {
        motion.pulse(motion.find(root, `seat-${s}`));
      }
    }
  }
}

// -- words for the frame --------------------------------------------------------------------

/** What to do now, for the turn banner: short (two banner lines on a 320 px phone). Warp 99's
 * needs only the view (the contract's ctx is not read). */
export function prompt(view) {
  view = decode(view);
  const L = legalOf(view, LEGAL);
  if (view.step === "A") {
    if (L.adds.length && L.score) return "Step A: add a card to your row, or score it.";
    if (L.adds.length) return "Step A: add a card to your row.";
    if (L.score) return "Step A: no card fits your row, so score it.";
    return "Step A: your hand is empty: end this step.";
  }
  if (view.step === "B") {
    if (L.flips.length) return "Stuck: flip a rule card, or end step B.";
    if (L.plays.length) return "Step B: play onto the piles, or end step B.";
    return "Step B: nothing fits the piles: end step B.";
  }
  return "Step C: draw back up to six to end your turn.";
}

export const scoreName = "Points";

export function facts(view, seatIndex) {
  view = decode(view);
  const p = view.players[seatIndex];
  return p ? `${p.score} point${p.score === 1 ? "" : "s"} · hand ${p.hand_size}` : "";
}

export function waiting(view, ctx) {
  view = decode(view);
  if (view.over) return "";
  const name = STEPS.find(([step]) => step === view.step);
  return `${ctx.names(view.turn)} is playing step ${view.step}${name ? ` (${name[1].toLowerCase()})` : ""}.`;
}
