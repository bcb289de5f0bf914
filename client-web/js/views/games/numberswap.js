// Number Swap's table, drawn from the view (rules/numberswap seat_views; docs/rules/numberswap.md,
// whose compact wire form `decode` spells out first) on the game-module contract of
// ./index.js: the piles in the middle, your 3×4 grid in the tray,
// the choice of the current step in the moves slot, one hint line; a mini grid per player in the
// strip; a ticker line per event; motion from the events; the round-end reveal; How to play.
// Grid positions run down each column: 0, 1, 2 are the first column.

import { h } from "../../dom.js";
import { find, flip, flyFrom, pop, pulse, vanish } from "../../motion.js";
import { countdown, listNames, who } from "../common.js";
import { SENDING, isSending, legalOf, sendingMark, withSending } from "./shared.js";

const ROWS = 3;

function valueClass(value) {
  if (value < 0) return "v-neg";
  if (value === 0) return "v-zero";
  if (value <= 4) return "v-low";
  if (value <= 8) return "v-mid";
  return "v-high";
}

/** A card value as printed: a real minus sign for negatives. */
export function numeral(value) {
  return value < 0 ? `−${-value}` : String(value);
}

/** "a 7", "an 8", "an 11", "a −2". */
function aCard(value) {
  return `${value === 8 || value === 11 ? "an" : "a"} ${numeral(value)}`;
}

function columnOf(pos) {
  return Math.floor(pos / ROWS) + 1;
}

function where(pos) {
  return `column ${columnOf(pos)}, row ${(pos % ROWS) + 1}`;
}

function cellLabel(cell, pos) {
  if (cell.cleared) return `${where(pos)}: cleared`;
  if (cell.up) return `${where(pos)}: ${numeral(cell.card)}`;
  if (cell.peek) return `${where(pos)}: face down, ${numeral(cell.card)}`;
  return `${where(pos)}: face down`;
}

/** The classes of a card's face: the same look wherever the card is drawn (grid, pile, strip,
 * the reveal, How to play), so a card never changes colour between places or states. A face-down
 * card of an open view (`peek`) shows its value's face, framed and corner-marked as face down. */
function look(c) {
  if (c.cleared) return ["card", "ns-card", "cleared"];
  if (c.up) return ["card", "ns-card", "up", valueClass(c.card)];
  if (c.peek) return ["card", "ns-card", "peek", valueClass(c.card)];
  return ["card", "ns-card", "down"];
}

function face(c) {
  return (c.up || c.peek) && !c.cleared ? h("span", { class: "ns-value" }, numeral(c.card)) : null;
}

/** A card as a picture (not a control). */
function picture(c, props = {}) {
  return h("span", { role: "img", ...props, class: [...look(c), props.class] }, face(c));
}

function upCard(value) {
  return { card: value, up: true, cleared: false };
}

const DOWN = { card: null, up: false, cleared: false };

// -- the view on the wire, spelled out ----------------------------------------------------------

/** A grid cell as the server sends it (docs/rules/numberswap.md, "The view on the wire"): the
 * card's value when face up, null when face down, false when its column was cleared. */
function cellOf(wire) {
  if (wire === false) return { card: null, up: false, cleared: true };
  if (wire === null) return DOWN;
  return upCard(wire);
}

const decoded = new WeakMap();

/** An open view's face-down cells (docs/rules/numberswap.md, "The open view"): `down` is the
 * seat's `down_cards`, the values of its face-down cells in position order. Each face-down cell
 * keeps `up: false` and gets its `card`, marked `peek`. */
function peekAt(grid, down) {
  const values = [...(down || [])];
  return grid.map((c) => (!c.up && !c.cleared && values.length ? { card: values.shift(), up: false, cleared: false, peek: true } : c));
}

/** The view as the table draws it, from the compact wire form: one `players` entry per seat
 * with its cells spelled out, how many are face down and what the face-up ones add up to;
 * `last_turns`; the last round's grids with null for a cleared slot. An open view (`open`:
 * nothing hidden) also fills in each face-down cell's card (`peek`). Worked out once per view. */
function decode(view) {
  if (decoded.has(view)) return decoded.get(view);
  const grids = view.grids || [];
  const open = view.open === true && Array.isArray(view.down_cards);
  const players = grids.map((cells, seat) => {
    const grid = open ? peekAt(cells.map(cellOf), view.down_cards[seat]) : cells.map(cellOf);
    return {
      seat,
      grid,
      face_down: grid.filter((c) => !c.up && !c.cleared).length,
      showing: grid.reduce((sum, c) => sum + (c.up ? c.card : 0), 0),
      chosen: Boolean(view.chosen && view.chosen[seat]),
      total: view.totals ? view.totals[seat] : 0,
    };
  });
  const last = view.last_round;
  const full = {
    ...view,
    players,
    last_turns: view.ender !== null && view.ender !== undefined && view.phase === "turn",
    last_round: last ? { ...last, grids: last.grids.map((cells) => cells.map((c) => (c === false ? null : c))) } : last,
  };
  decoded.set(view, full);
  decoded.set(full, full);
  return full;
}

// -- what may be done now ---------------------------------------------------------------------

/** The legal actions by type (legalOf): `L.flips`, `L.draw`… */
const LEGAL = {
  all: { flips: "flip_initial", picks: "pick_flips", takes: "take_discard", swaps: "swap_drawn", discards: "discard_drawn" },
  one: { draw: "draw", undo: "undo", next: "next_round" },
};

/** Played by text (docs/rules/numberswap.md, "By text"): the view then has `picks`. */
function byText(view) {
  return Array.isArray(view.picks);
}

/** The pairs of cards I may choose now: the opening flips, or (by text) my pick. */
function pairsOf(L) {
  return L.flips.length ? L.flips : L.picks;
}

/** Whether my pick now is the blind one of a last turn (for next round), not the round
 * ender's pair to turn up at once (its `chosen` is still false). */
function blindPick(view, ctx) {
  const me = view.players[ctx.you];
  return Boolean(me && me.chosen);
}

/** The step I am at, from the legal actions and the choice in progress. */
function stepOf(view, ctx) {
  const L = legalOf(view, LEGAL);
  const ui = ctx.ui || {};
  if (L.next) return "next";
  if (L.flips.length) return ui.first === undefined || ui.first === null ? "flip-first" : "flip-second";
  if (L.picks.length) {
    const kind = blindPick(view, ctx) ? "pick" : "pick-up";
    return ui.first === undefined || ui.first === null ? `${kind}-first` : `${kind}-second`;
  }
  if (L.takes.length) return ui.mode === "take" ? "take" : "start";
  if (L.swaps.length || L.discards.length) {
    return ui.mode === "flip" || !L.swaps.length ? "discard" : "swap";
  }
  if (L.undo) return "undo";
  return "wait";
}

/** Whether `pos` is a cell the move in flight names (it gets the "sending…" mark). */
function sendingAt(ctx, pos) {
  const p = ctx.pending;
  if (!p) return false;
  if (p.type === "flip_initial" || p.type === "pick_flips") return p.positions.includes(pos);
  if (p.type === "take_discard" || p.type === "swap_drawn") return p.position === pos;
  if (p.type === "discard_drawn") return p.flip === pos;
  return false;
}

/** What a tap on each of my cells does now: {action | onclick, selected, hint} or null. */
function myChoices(view, ctx) {
  const L = legalOf(view, LEGAL);
  const step = stepOf(view, ctx);
  const first = ctx.ui ? ctx.ui.first : null;
  // The opening flips and (by text) the picks are chosen alike: a first card, then a second.
  const pairs = pairsOf(L);
  const blind = step === "pick-first" || step === "pick-second";
  const verb = blind ? "turn up next round" : "turn up";
  if (step === "flip-first" || step === "pick-first" || step === "pick-up-first") {
    return (pos) =>
      pairs.some((a) => a.positions.includes(pos))
        ? { hint: verb, onclick: () => ctx.setUi({ first: pos }) }
        : null;
  }
  if (step === "flip-second" || step === "pick-second" || step === "pick-up-second") {
    return (pos) => {
      if (pos === first) {
        return { selected: true, hint: "chosen; tap again to unchoose", legal: "chosen", onclick: () => ctx.setUi({ first: null }) };
      }
      const pair = pairs.find((a) => a.positions.includes(first) && a.positions.includes(pos));
      return pair ? { hint: `${verb} as the second card`, onclick: () => ctx.act(pair) } : null;
    };
  }
  if (step === "take") {
    return (pos) => {
      const take = L.takes.find((a) => a.position === pos);
      return take ? { hint: `put the ${numeral(view.discard_top)} here`, onclick: () => ctx.act(take) } : null;
    };
  }
  if (step === "discard") {
    return (pos) => {
      const d = L.discards.find((a) => a.flip === pos);
      return d ? { hint: "turn this card up", onclick: () => ctx.act(d) } : null;
    };
  }
  if (step === "swap") {
    return (pos) => {
      const swap = L.swaps.find((a) => a.position === pos);
      return swap ? { hint: `put the ${numeral(view.drawn)} here`, onclick: () => ctx.act(swap) } : null;
    };
  }
  return () => null;
}

// -- the tray: my grid ------------------------------------------------------------------------------

/** One of my cells. Always a button, so the grid never changes shape and a tapped card keeps
 * the keyboard focus after the move (a card that cannot be chosen now is aria-disabled, not
 * disabled: a disabled button would drop the focus to the page). */
function myCell(c, pos, seat, choice, ctx) {
  const can = Boolean(choice) && !ctx.busy;
  const sending = sendingAt(ctx, pos);
  return h(
    "button",
    {
      type: "button",
      key: `c${pos}`,
      class: [...look(c), choice && "legal", choice && choice.selected && "selected", sending && SENDING],
      "data-anim": `grid-${seat}-${pos}`,
      "data-legal": can ? choice.legal || "cell" : null,
      "data-pos": pos,
      "data-up": c.up && !c.cleared ? "" : null,
      "aria-disabled": can ? null : "true",
      "aria-pressed": choice && choice.selected ? "true" : null,
      tabindex: can ? 0 : -1,
      "aria-label": `${cellLabel(c, pos)}${choice && choice.hint ? ` — ${choice.hint}` : ""}`,
      onclick: can ? choice.onclick : null,
      onkeydown: can ? null : tabToTheStep,
    },
    face(c),
    sendingMark(sending),
  );
}

/** Tab on a card of my grid that cannot be chosen now (the focus stays on a card after the
 * move it made) goes straight to what this step offers, the piles or the move buttons, rather
 * than through the rest of the page first. From a card that can be chosen, Tab is as usual. */
function tabToTheStep(event) {
  if (event.key !== "Tab" || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
  const next = document.querySelector(
    "#app .table-middle [data-legal]:not([aria-disabled]), #app .tray-moves button:not([aria-disabled])",
  );
  if (!next) return;
  event.preventDefault();
  next.focus();
}

function myGrid(view, ctx) {
  const seat = ctx.you;
  const player = view.players[seat];
  const choices = myChoices(view, ctx);
  return h(
    "div",
    // "ns-player mine": the name the room tests (test_room.py, test_takeover.py) know my grid by.
    { class: "ns-tray ns-player mine", key: "ns-tray" },
    h(
      "div",
      { class: "ns-grid large", role: "group", "aria-label": "Your grid of twelve cards" },
      player.grid.map((c, pos) => myCell(c, pos, seat, choices(pos), ctx)),
    ),
  );
}

// -- the middle: piles, drawn card, the round-end reveal ----------------------------------------------

function pileLabel(text) {
  return h("span", { class: "pile-label" }, text);
}

function drawPile(view, ctx) {
  const L = legalOf(view, LEGAL);
  const can = Boolean(L.draw) && !ctx.busy;
  const sending = isSending(ctx, { type: "draw" });
  return h(
    "button",
    {
      type: "button",
      key: "draw",
      class: ["ns-pile", "draw", L.draw && "legal-pile", sending && SENDING],
      "data-legal": can ? "draw" : null,
      "aria-disabled": can ? null : "true",
      tabindex: can ? 0 : -1,
      onclick: can ? () => ctx.act(L.draw) : null,
      "aria-label": can ? `Draw a card (${view.draw_size} in the draw pile)` : `Draw pile: ${view.draw_size} cards`,
    },
    h("span", { class: [...look(DOWN), L.draw && "legal"], "data-anim": "draw" }, sendingMark(sending)),
    pileLabel(`Draw · ${view.draw_size}`),
  );
}

function discardPile(view, ctx) {
  const L = legalOf(view, LEGAL);
  const top = view.discard_top;
  const taking = stepOf(view, ctx) === "take";
  const can = L.takes.length > 0 && !ctx.busy;
  const topCard =
    top === null
      ? h("span", { class: "card ns-card empty", "data-anim": "discard" })
      : h("span", { class: [...look(upCard(top)), L.takes.length && "legal", taking && "selected"], "data-anim": "discard" }, face(upCard(top)));
  return h(
    "button",
    {
      type: "button",
      key: "discard",
      class: ["ns-pile", "discard", L.takes.length && "legal-pile"],
      "data-legal": can ? "take" : null,
      "aria-disabled": can ? null : "true",
      "aria-pressed": L.takes.length ? (taking ? "true" : "false") : null,
      tabindex: can ? 0 : -1,
      onclick: can ? () => ctx.setUi({ mode: taking ? null : "take" }) : null,
      "aria-label": !L.takes.length
        ? top === null
          ? "Discard pile: empty"
          : `Discard pile: ${numeral(top)} on top`
        : taking
          ? `Taking the ${numeral(top)}: now choose a card of your grid (press to cancel)`
          : `Take the ${numeral(top)} from the discard pile`,
    },
    topCard,
    pileLabel(`Discard · ${view.discard_size}`),
  );
}

/** The drawn card's place: always there (empty between draws) so the piles never shift. */
function drawnSpot(view, ctx) {
  const drawn = view.drawn;
  const drew = `${who(view.current, ctx)} drew`;
  return h(
    "div",
    {
      key: "drawn",
      class: ["ns-pile", "drawn", drawn === null && "none"],
      role: "img",
      "aria-label": drawn === null ? "No card drawn" : `${drew} ${aCard(drawn)}`,
    },
    drawn === null
      ? h("span", { class: "ns-card ns-slot", "data-anim": "drawn" })
      : h("span", { class: [...look(upCard(drawn)), "drawn-card"], "data-anim": "drawn" }, face(upCard(drawn))),
    pileLabel(drawn === null ? "Drawn card" : drew),
  );
}

function statusLine(view, ctx) {
  return h(
    "p",
    { class: "ns-status", key: "status" },
    h("span", null, `Round ${view.round} · game ends at ${view.target}`),
    view.last_turns
      ? h("strong", { class: "last-turns" }, `Last turns: ${ctx.names(view.ender)} has no face-down card`)
      : null,
  );
}

/** By text, the last round's result stays on the table through the next round (there is no
 * round-end stop, and a friend may open the game a day later): one compact line. */
function lastRoundLine(view, ctx) {
  const last = view.last_round;
  if (!byText(view) || !last || view.over) return null;
  const scores = view.players.map((p) => {
    const seat = p.seat;
    const doubled = seat === last.ender && last.doubled;
    const score = doubled ? `${numeral(last.scores[seat])} (${numeral(last.raw_scores[seat])}×2)` : numeral(last.scores[seat]);
    return `${ctx.names(seat)} ${score}`;
  });
  const explained = scoreWords(last, last.ender, ctx);
  return h(
    "p",
    { class: "ns-last-round", key: "last-round" },
    h("strong", null, `Round ${last.round}: `),
    h("span", null, scores.join(" · ")),
    explained ? h("span", { class: ["ns-explain", last.doubled && "doubled"] }, ` — ${explained}`) : null,
  );
}

/** Why a round score is what it is, in words. */
function scoreWords(last, seat, ctx) {
  const raw = last.raw_scores[seat];
  const score = last.scores[seat];
  if (seat !== last.ender) return null;
  const name = ctx.names(seat);
  if (last.doubled) return `${name} ended the round but was not lowest: ${raw} doubled to ${score}`;
  if (raw <= 0) return `${name} ended the round with ${raw}: never doubled at 0 or less`;
  return `${name} ended the round with the lowest score: kept ${raw}`;
}

function revealGrid(cards, seat) {
  return h(
    "div",
    { class: "ns-grid mini", role: "img", "aria-label": `Cards left: ${cards.filter((c) => c !== null).map(numeral).join(", ") || "all cleared"}` },
    cards.map((card, pos) =>
      h(
        "span",
        { key: `r${pos}`, class: look(card === null ? { cleared: true } : upCard(card)), "data-anim": `reveal-${seat}-${pos}` },
        card === null ? null : h("span", { class: "ns-value" }, numeral(card)),
      ),
    ),
  );
}

/** The scored round: every grid revealed, each round score (and the doubling), the totals,
 * who is ready. Stays until everyone pressed Next round (or the room's time-out). */
function reveal(view, ctx) {
  const last = view.last_round;
  if (!last) return null;
  const ready = view.ready || [];
  const ender = last.ender;
  const explained = scoreWords(last, ender, ctx);
  return h(
    "section",
    { class: "ns-reveal", key: "reveal", "aria-labelledby": "ns-reveal-title" },
    h(
      "h2",
      { id: "ns-reveal-title" },
      view.over ? `Final round ${last.round}` : `Round ${last.round} is over`,
      view.phase === "round_end" && ctx.deadlineAt !== null && ctx.deadlineAt !== undefined
        ? h("span", { class: "ns-countdown" }, countdown(ctx.deadlineAt, { label: "to the next round" }))
        : null,
    ),
    explained ? h("p", { class: ["ns-explain", last.doubled && "doubled"] }, explained) : null,
    h(
      "ol",
      { class: "ns-reveal-list" },
      view.players.map((p) => {
        const seat = p.seat;
        const doubled = seat === ender && last.doubled;
        return h(
          "li",
          { key: `rv${seat}`, class: ["ns-reveal-row", seat === ender && "ender", seat === ctx.you && "mine"] },
          h(
            "div",
            { class: "ns-reveal-who" },
            h("strong", null, ctx.names(seat), seat === ctx.you ? " (you)" : ""),
            seat === ender ? h("span", { class: "badge warn" }, "ended it") : null,
            view.phase === "round_end"
              ? ready[seat]
                ? h("span", { class: "badge online", "data-ready": "" }, "ready")
                : h("span", { class: "badge" }, "reading")
              : null,
          ),
          revealGrid(last.grids[seat], seat),
          h(
            "div",
            { class: "ns-reveal-score" },
            h("span", { class: ["ns-round-score", doubled && "doubled"], "data-anim": `round-${seat}` }, numeral(last.scores[seat])),
            doubled ? h("span", { class: "ns-doubling" }, `${last.raw_scores[seat]} × 2`) : null,
            h("span", { class: "ns-total" }, `total ${p.total}`),
          ),
        );
      }),
    ),
  );
}

function atEnd(view) {
  return view.phase === "round_end" || Boolean(view.over && view.last_round);
}

function middle(view, ctx) {
  if (atEnd(view)) {
    return h("div", { class: "ns-table ns-middle at-end" }, statusLine(view, ctx), reveal(view, ctx));
  }
  return h(
    "div",
    { class: "ns-table ns-middle" },
    statusLine(view, ctx),
    lastRoundLine(view, ctx),
    h("div", { class: "ns-piles", key: "piles" }, drawPile(view, ctx), discardPile(view, ctx), drawnSpot(view, ctx)),
  );
}

// -- the moves slot and the hint ----------------------------------------------------------------------

function moveButton(text, onclick, props, ctx, action) {
  const sending = isSending(ctx, action);
  return h(
    "button",
    {
      type: "button",
      ...props,
      class: ["ns-move", props.class, sending && SENDING],
      "aria-disabled": ctx.busy ? "true" : null,
      onclick: ctx.busy ? null : onclick,
    },
    withSending(text, sending),
  );
}

function moves(view, ctx) {
  if (ctx.spectator) return null;
  const L = legalOf(view, LEGAL);
  const step = stepOf(view, ctx);
  const items = [];
  if (step === "swap" || step === "discard") {
    // Both ways of using the drawn card, side by side, the current one pressed.
    if (L.swaps.length && L.discards.length) {
      items.push(
        moveButton("Swap it in", () => ctx.setUi({ mode: null }), { key: "m-swap", "data-legal": step === "swap" ? null : "mode", "aria-pressed": step === "swap" ? "true" : "false" }, ctx),
        moveButton("Discard, turn one up", () => ctx.setUi({ mode: "flip" }), { key: "m-flip", "data-legal": step === "discard" ? null : "mode", "aria-pressed": step === "discard" ? "true" : "false" }, ctx),
      );
    }
  }
  if (step === "take") items.push(moveButton("Cancel", () => ctx.setUi({ mode: null }), { key: "m-cancel" }, ctx));
  if (step === "flip-second" || step === "pick-second" || step === "pick-up-second") {
    items.push(moveButton("Choose again", () => ctx.setUi({ first: null }), { key: "m-again" }, ctx));
  }
  if (L.undo) {
    items.push(moveButton("Undo my last move", () => ctx.act(L.undo), { key: "m-undo", class: "undo", "data-legal": ctx.busy ? null : "undo" }, ctx, L.undo));
  }
  if (view.phase === "round_end") {
    if (L.next) {
      items.push(moveButton("Next round", () => ctx.act(L.next), { key: "m-next", class: "primary", "data-legal": ctx.busy ? null : "next" }, ctx, L.next));
    } else {
      const ready = view.ready || [];
      const waiting = view.players.filter((p) => !ready[p.seat]).map((p) => ctx.names(p.seat));
      items.push(h("p", { class: "ns-waiting", key: "m-wait", role: "status" }, waiting.length ? `Waiting for ${listNames(waiting)}…` : "Dealing…"));
    }
  }
  return items.length ? h("div", { class: "ns-moves" }, items) : null;
}

function hint(view, ctx) {
  if (ctx.spectator || view.over) return null;
  const step = stepOf(view, ctx);
  const top = view.discard_top === null ? "" : numeral(view.discard_top);
  switch (step) {
    // Short: one line on a phone.
    case "flip-first":
      return "Tap two cards to turn them up.";
    case "flip-second":
      return "Now tap a second card.";
    case "pick-first":
      return "Blind: next round's cards are not dealt yet.";
    case "pick-second":
      return "Now tap a second place for next round.";
    case "pick-up-first":
      return "You ended the last round: you start.";
    case "pick-up-second":
      return "Now tap a second card.";
    case "start":
      return `Take the ${top} or draw: low cards are good.`;
    case "take":
      return `Tap the card the ${top} replaces.`;
    case "swap":
      return `Tap the card the ${numeral(view.drawn)} replaces, or discard it.`;
    case "discard":
      return "Tap a face-down card to turn it up.";
    case "undo":
      return "Undo is open until the next player moves.";
    case "next":
      return "Read the scores, then tap Next round.";
    default:
      if (view.phase === "round_end") return "Next round starts when all are ready.";
      return "Three equal cards in a column vanish.";
  }
}

export function table(view, ctx) {
  view = decode(view);
  return {
    middle: middle(view, ctx),
    // At a round end (and the game's end) my grid is one row of the reveal, beside everyone's:
    // the tray keeps only the hint and Next round, and the reveal gets the screen.
    tray: ctx.spectator || !view.players[ctx.you] || atEnd(view) ? null : myGrid(view, ctx),
    moves: moves(view, ctx),
    hint: hint(view, ctx),
  };
}

// -- the strip ----------------------------------------------------------------------------------------

/** A mini grid in words: face-down count (an open view: and their cards), face-up sum. */
function gridWords(p) {
  const peeked = p.grid.filter((c) => c.peek).map((c) => numeral(c.card));
  const down = peeked.length ? `${p.face_down} face down (${peeked.join(", ")})` : `${p.face_down} face down`;
  return `${down}, showing ${p.showing}`;
}

/** One player's compact facts for the top strip: a mini grid (face-up values shown; an open
 * view shows the face-down ones too, marked as face down), the score. */
export function seat(view, s, ctx) {
  view = decode(view);
  const p = view.players[s];
  if (!p) return null;
  const last = view.last_round;
  const scored = view.phase === "round_end" && last;
  const ready = view.ready || [];
  let score;
  if (scored) {
    const doubled = s === last.ender && last.doubled;
    score = [`+${doubled ? `${last.raw_scores[s]}×2` : last.scores[s]}`, `total ${p.total}`];
  } else {
    score = [`shows ${p.showing}`, `total ${p.total}`];
  }
  const picked = byText(view) && Boolean(view.picks[s]);
  const tag =
    view.phase === "round_end"
      ? ready[s]
        ? "ready"
        : null
      : (view.phase === "choose" || (view.phase === "turn" && byText(view))) && !p.chosen
        ? "choosing"
        : view.ender === s && view.phase === "turn"
          ? "ended the round"
          : picked
            ? "picked"
            : null;
  return h(
    "div",
    { class: ["ns-seat", view.current === s && "current"], key: `ns-seat-${s}` },
    h(
      "div",
      { class: "ns-grid mini", role: "img", "aria-label": `${ctx.names(s)}'s grid: ${gridWords(p)}` },
      p.grid.map((c, pos) =>
        h("span", { key: `m${pos}`, class: look(c), "data-anim": `mini-${s}-${pos}` }, face(c)),
      ),
    ),
    h(
      "span",
      { class: "ns-seat-facts" },
      h("span", { class: "ns-seat-score", "data-anim": `score-${s}` }, h("span", null, score[0]), h("span", { class: "ns-sep" }, " · "), h("span", null, score[1])),
      // Always a line, empty when there is nothing to say: the seat never changes its height.
      h("span", { class: ["ns-seat-tag", tag === "ended the round" && "warn"], "aria-hidden": tag ? null : "true" }, tag || "\u00a0"),
    ),
  );
}

// -- the feed -----------------------------------------------------------------------------------------

/** One ticker / log line for one event, in players' words. */
export function eventText(event, mover, ctx) {
  const seatOf = event.seat ?? mover;
  const name = seatOf === null || seatOf === undefined ? "Someone" : ctx.names(seatOf);
  switch (event.type) {
    case "flipped_initial":
    case "flipped_picked":
      return `${name} turned up ${listNames(event.cards.map(aCard))}`;
    case "picked":
      return `${name} picked 2 cards to turn up`;
    case "took_discard":
      return `${name} took the ${numeral(event.card)} → column ${columnOf(event.position)}`;
    case "drew":
      return `${name} drew ${aCard(event.card)}`;
    case "swapped_drawn":
      return `${name} put the ${numeral(event.card)} → column ${columnOf(event.position)}`;
    case "discarded_drawn":
      return `${name} threw the ${numeral(event.card)} away`;
    case "turned_up":
      return `${name} turned up ${aCard(event.card)}`;
    case "column_cleared":
      return `Column cleared! ${name}'s three ${numeral(event.value)}s are gone`;
    case "last_turns":
      return `Last turns: ${ctx.names(event.ender)} has no face-down card`;
    case "round_ended": {
      const ender = ctx.names(event.ender);
      if (event.doubled) return `Round ${event.round} over: ${ender}'s score doubled`;
      const best = Math.min(...event.scores);
      const lowest = event.scores.map((sc, i) => (sc === best ? ctx.names(i) : null)).filter(Boolean);
      return `Round ${event.round} over: ${listNames(lowest)} lowest with ${numeral(best)}`;
    }
    case "ready":
      return `${name} is ready for the next round`;
    case "round_started":
      return `Round ${event.round}: everyone turns up two cards`;
    case "reshuffled":
      return "Deck reshuffled";
    case "undone":
      return `${name} took the move back`;
    case "game_over":
      return event.winners && event.winners.length
        ? `Game over: ${listNames(event.winners.map(ctx.names))} ${event.winners.length === 1 ? "wins" : "share the win"}`
        : "Game over";
    default:
      // "discarded" (the swapped-out card flies to the pile) and "turn" (the banner says it).
      return null;
  }
}

// -- motion -------------------------------------------------------------------------------------------

function cells(root, s, pos) {
  return [find(root, `grid-${s}-${pos}`), find(root, `mini-${s}-${pos}`)].filter(Boolean);
}

function before(places, s, pos) {
  return places.get(`grid-${s}-${pos}`) || places.get(`mini-${s}-${pos}`);
}

/** Motion for the events just received: each card moves from where it was to where it is. */
export function animate(entries, { root, before: places }) {
  if (!root || !places) return;
  for (const entry of entries || []) {
    for (const e of entry.events || []) {
      const s = e.seat ?? entry.seat;
      switch (e.type) {
        case "drew":
          flyFrom(find(root, "drawn"), places.get("draw"));
          break;
        case "took_discard":
          for (const el of cells(root, s, e.position)) flyFrom(el, places.get("discard"));
          break;
        case "swapped_drawn":
          for (const el of cells(root, s, e.position)) flyFrom(el, places.get("drawn"));
          break;
        case "discarded":
          // The card swapped out goes from the grid to the discard pile.
          flyFrom(find(root, "discard"), before(places, s, e.position));
          break;
        case "discarded_drawn":
          flyFrom(find(root, "discard"), places.get("drawn"));
          break;
        case "turned_up":
          for (const el of cells(root, s, e.position)) flip(el);
          break;
        case "flipped_initial":
        case "flipped_picked":
          for (const pos of e.positions) for (const el of cells(root, s, pos)) flip(el);
          break;
        case "column_cleared":
          for (let row = 0; row < ROWS; row += 1) {
            const pos = e.column * ROWS + row;
            for (const name of [`grid-${s}-${pos}`, `mini-${s}-${pos}`]) {
              vanish(picture(upCard(e.value)), places.get(name));
            }
          }
          break;
        case "reshuffled":
          pulse(find(root, "draw"));
          break;
        case "undone":
          pulse(find(root, "discard"));
          break;
        case "round_ended":
          for (let i = 0; i < e.scores.length; i += 1) {
            pulse(find(root, `score-${i}`));
            pop(find(root, `round-${i}`));
          }
          break;
        default:
          break;
      }
    }
  }
}

// -- words around the table ---------------------------------------------------------------------------

/** The sentence that tells me what to do now (for the turn banner): short, so that with "Your
 * turn." it keeps to the banner's two lines on a 320 px phone; the hint line says more. */
export function prompt(view, ctx) {
  view = decode(view);
  const step = stepOf(view, ctx);
  const top = view.discard_top === null ? "" : numeral(view.discard_top);
  switch (step) {
    case "flip-first":
      return "Turn up two cards: choose the first.";
    case "flip-second":
      return "Now choose the second card to turn up.";
    case "pick-first":
      return "Pick the 2 cards you'll turn up next round.";
    case "pick-second":
      return "Now pick the second card for next round.";
    case "pick-up-first":
      return "Pick your 2 cards to turn up.";
    case "pick-up-second":
      return "Now pick the second card to turn up.";
    case "start":
      return `Take the ${top} from the discard, or draw.`;
    case "take":
      return `Choose the card the ${top} replaces.`;
    case "swap":
      return `You drew ${aCard(view.drawn)}: swap it in, or discard it.`;
    case "discard":
      return "Choose a face-down card to turn up.";
    case "undo":
      return "You may take back your last move until the next player moves.";
    case "next":
      return "Round over: press Next round when ready.";
    default:
      return "";
  }
}

export const scoreName = "Total";

/** Undo is open until the next player moves, but the table does not wait for it: it does not
 * make it the seat's turn (./index.js, `optional`). */
export function optional(action) {
  return action.type === "undo";
}

/** One line about a player for the side list. */
export function facts(view, s) {
  view = decode(view);
  const p = view.players[s];
  return p ? `total ${p.total}` : "";
}

/** Who is to play, in words, for the turn banner when it is not my move. */
export function waiting(view, ctx) {
  view = decode(view);
  const names = (view.to_act || []).filter((s) => s !== ctx.you).map(ctx.names);
  if (view.phase === "round_end") {
    const round = view.last_round ? `Round ${view.last_round.round} is over` : "The round is over";
    return names.length ? `${round}: ${listNames(names)} to press Next round.` : `${round}: dealing the next one.`;
  }
  if (view.phase === "choose") {
    return names.length ? `Waiting for ${listNames(names)} to turn up two cards.` : "";
  }
  if (view.current !== null && view.current !== undefined) {
    const current = view.players[view.current];
    if (byText(view) && current && !current.chosen) return `${ctx.names(view.current)} is picking 2 cards to turn up.`;
    if (byText(view) && view.last_turns && !view.picks[view.current]) {
      return `${ctx.names(view.current)} is picking 2 cards for next round.`;
    }
    return `${ctx.names(view.current)} is playing.`;
  }
  return "";
}

// -- results ------------------------------------------------------------------------------------------

/** For the results overlay: the score of every round, by name, and the totals. Drawn as an
 * ARIA table of plain elements: the overlay's own <table> is the standings (tests/browser
 * pages.py reads it), this one must not be taken for it. */
export function summary(view, ctx) {
  view = decode(view);
  if (!view.history || !view.history.length) return null;
  const last = view.last_round;
  const explained = last ? scoreWords(last, last.ender, ctx) : null;
  const cell = (role, text, props = {}) => h("span", { role, ...props }, text);
  const row = (key, cls, head, values) =>
    h("div", { role: "row", key, class: ["ns-sum-row", cls] }, cell("rowheader", head), values.map((v, i) => cell("cell", String(v), { key: `v${i}` })));
  return h(
    "section",
    { class: "ns-summary", key: "ns-summary", "aria-labelledby": "ns-summary-title" },
    h("h3", { id: "ns-summary-title" }, "Scores by round"),
    explained ? h("p", { class: "ns-explain" }, `Last round: ${explained}.`) : null,
    h(
      "div",
      { class: "ns-sum-scroll" },
      h(
        "div",
        { role: "table", class: "ns-sum", "aria-labelledby": "ns-summary-title", style: `--cols: ${view.players.length}` },
        h(
          "div",
          { role: "row", class: "ns-sum-row head", key: "head" },
          cell("columnheader", "Round"),
          view.players.map((p) => cell("columnheader", ctx.names(p.seat), { key: `n${p.seat}`, class: "ns-sum-name" })),
        ),
        view.history.map((scores, i) => row(`h${i}`, null, String(i + 1), scores)),
        row("total", "totals", "Total", view.players.map((p) => p.total)),
      ),
    ),
  );
}

// -- How to play --------------------------------------------------------------------------------------

function cardRow(values, note) {
  return h(
    "div",
    { class: "ns-howto-cards" },
    values.map((v, i) => picture(v === null ? DOWN : upCard(v), { key: `k${i}`, "aria-label": v === null ? "a face-down card" : aCard(v) })),
    note ? h("span", { class: "ns-howto-note" }, note) : null,
  );
}

function sampleGrid(cells, label) {
  return h(
    "div",
    { class: "ns-grid mini howto", role: "img", "aria-label": label },
    cells.map((v, i) =>
      h("span", { key: `g${i}`, class: look(v === "x" ? { cleared: true } : v === null ? DOWN : upCard(v)) }, v === null || v === "x" ? null : h("span", { class: "ns-value" }, numeral(v))),
    ),
  );
}

/** The "How to play" sheet (docs/rules/numberswap.md in players' words), with card pictures. */
export function howTo() {
  // The frame's ctx (the contract's argument, not needed here) carries no view: say the default and that the host may change it.
  const target = "100 (or the host's target)";
  return h(
    "div",
    { class: "ns-howto" },
    h("p", null, `Keep the total of your 12 cards low. After each round your cards are added to your total; when someone's total reaches ${target}, the lowest total wins.`),
    h("h3", null, "The cards"),
    cardRow([-2, -1, 0, 3, 7, 12], "from −2 to 12: low is good"),
    h("h3", null, "Start of a round"),
    h("p", null, "Everyone gets 12 face-down cards and turns up any two, all at the same time. The other ten stay hidden, even from you."),
    sampleGrid([null, 5, null, null, null, null, 9, null, null, null, null, null], "a grid with a 5 and a 9 turned up"),
    h("h3", null, "Your turn: one of"),
    h(
      "ol",
      null,
      h("li", null, h("strong", null, "Take the discard"), ": put the top card of the discard pile on any card of your grid. The old card goes onto the discard."),
      h("li", null, h("strong", null, "Draw"), ": everyone sees the card. Swap it with any card of your grid, or discard it and turn up one of your face-down cards."),
    ),
    h("h3", null, "Clear a column"),
    h("p", null, "Three equal face-up cards in one column vanish: those cards count nothing."),
    h("div", { class: "ns-howto-clear" }, sampleGrid([4, 4, 4, 1, 0, 8, 2, null, 3, null, 6, null], "a column of three 4s"), h("span", { "aria-hidden": "true" }, "→"), sampleGrid(["x", "x", "x", 1, 0, 8, 2, null, 3, null, 6, null], "the column is gone")),
    h("h3", null, "End of a round"),
    h("p", null, "When all your cards are face up, you end the round: everyone else gets one last turn. Then every card is turned up and counted."),
    h("p", null, "Careful: if you ended it and are not strictly the lowest, your score is doubled (unless it is 0 or less)."),
    h("h3", null, "Undo"),
    h("p", null, "Took the discard onto a face-up card by mistake? Undo it before the next player moves."),
    h("h3", null, "Playing by text"),
    h(
      "p",
      null,
      "Nobody waits between rounds: on your last turn of a round you first pick, blind, the 2 cards you'll turn up next round; they are turned up as it is dealt. Whoever ended the round picks theirs first thing in the new one.",
    ),
  );
}

