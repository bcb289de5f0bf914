// Number Swap's table, drawn from the view (rules/numberswap seat_views; docs/rules/numberswap.md).
// Grid positions run down each column: 0, 1, 2 are the first column.

import { h } from "../../dom.js";
import { button, listNames } from "../common.js";

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

function where(pos) {
  return `column ${Math.floor(pos / ROWS) + 1}, row ${(pos % ROWS) + 1}`;
}

function cellLabel(cell, pos) {
  if (cell.cleared) return `${where(pos)}: cleared`;
  if (cell.up) return `${where(pos)}: ${numeral(cell.card)}`;
  return `${where(pos)}: face down`;
}

function faceCard(value, props = {}) {
  return h(
    "span",
    { ...props, class: ["ns-card", "up", valueClass(value), props.class] },
    h("span", { class: "ns-value" }, numeral(value)),
  );
}

/** One grid cell: a button when it can be chosen now, otherwise a plain picture. */
function cell(c, pos, choice) {
  const look = [
    "ns-card",
    c.cleared ? "cleared" : c.up ? "up" : "down",
    c.up && !c.cleared ? valueClass(c.card) : null,
    choice && choice.selected && "selected",
  ];
  const inside = c.up && !c.cleared ? h("span", { class: "ns-value" }, numeral(c.card)) : null;
  if (!choice) {
    return h("span", { class: look, role: "img", "aria-label": cellLabel(c, pos), key: `c${pos}` }, inside);
  }
  return h(
    "button",
    {
      type: "button",
      class: [...look, choice.enabled && "legal"],
      key: `c${pos}`,
      disabled: !choice.enabled,
      "data-legal": choice.enabled ? (choice.selected ? "chosen" : "cell") : null,
      "data-pos": pos,
      "data-up": c.up && !c.cleared ? "" : null,
      "aria-pressed": choice.selected ? "true" : null,
      "aria-label": `${cellLabel(c, pos)}${choice.hint ? ` — ${choice.hint}` : ""}`,
      onclick: choice.onclick,
    },
    inside,
  );
}

function grid(player, choices, size) {
  return h(
    "div",
    { class: ["ns-grid", size], role: "group", "aria-label": "Grid of twelve cards" },
    player.grid.map((c, pos) => cell(c, pos, choices ? choices(pos) : null)),
  );
}

function legalOf(view) {
  const legal = view.legal || [];
  return {
    flips: legal.filter((a) => a.type === "flip_initial"),
    takes: legal.filter((a) => a.type === "take_discard"),
    draw: legal.find((a) => a.type === "draw"),
    swaps: legal.filter((a) => a.type === "swap_drawn"),
    discards: legal.filter((a) => a.type === "discard_drawn"),
    undo: legal.find((a) => a.type === "undo"),
  };
}

/** What a click on each of my cells does now, from the legal actions and the selection. */
function myChoices(view, ctx) {
  const L = legalOf(view);
  const ui = ctx.ui;
  const busy = ctx.busy;
  if (L.flips.length) {
    const first = ui.first ?? null;
    return (pos) => {
      if (first === pos) {
        return { enabled: !busy, selected: true, hint: "chosen; press again to unchoose", onclick: () => ctx.setUi({ first: null }) };
      }
      if (first === null) {
        const ok = L.flips.some((a) => a.positions.includes(pos));
        return { enabled: ok && !busy, hint: ok ? "turn up" : "", onclick: () => ctx.setUi({ first: pos }) };
      }
      const pair = L.flips.find((a) => a.positions.includes(first) && a.positions.includes(pos));
      return { enabled: Boolean(pair) && !busy, hint: pair ? "turn up as the second card" : "", onclick: () => ctx.act(pair) };
    };
  }
  if (L.takes.length && ui.mode === "take") {
    return (pos) => {
      const take = L.takes.find((a) => a.position === pos);
      return { enabled: Boolean(take) && !busy, hint: take ? `put the ${numeral(view.discard_top)} here` : "", onclick: () => ctx.act(take) };
    };
  }
  if (L.swaps.length || L.discards.length) {
    if (ui.mode === "flip" || !L.swaps.length) {
      return (pos) => {
        const d = L.discards.find((a) => a.flip === pos);
        return { enabled: Boolean(d) && !busy, hint: d ? "turn this card up" : "", onclick: () => ctx.act(d) };
      };
    }
    return (pos) => {
      const swap = L.swaps.find((a) => a.position === pos);
      return { enabled: Boolean(swap) && !busy, hint: swap ? `put the ${numeral(view.drawn)} here` : "", onclick: () => ctx.act(swap) };
    };
  }
  return (pos) => ({ enabled: false, onclick: null, pos });
}

function piles(view, ctx) {
  const L = legalOf(view);
  const busy = ctx.busy;
  const taking = ctx.ui.mode === "take";
  const drawPile = L.draw
    ? h(
        "button",
        {
          type: "button",
          class: "ns-pile draw legal",
          "data-legal": "draw",
          disabled: busy,
          onclick: () => ctx.act(L.draw),
          "aria-label": `Draw a card (${view.draw_size} in the draw pile)`,
        },
        h("span", { class: "ns-card down" }),
        h("span", { class: "pile-label" }, `Draw · ${view.draw_size}`),
      )
    : h(
        "div",
        { class: "ns-pile draw", role: "img", "aria-label": `Draw pile: ${view.draw_size} cards` },
        h("span", { class: "ns-card down" }),
        h("span", { class: "pile-label" }, `Draw · ${view.draw_size}`),
      );
  const top = view.discard_top;
  const topCard = top === null ? h("span", { class: "ns-card empty" }) : faceCard(top);
  const discardPile = L.takes.length
    ? h(
        "button",
        {
          type: "button",
          class: ["ns-pile discard legal", taking && "selected"],
          "data-legal": "take",
          "aria-pressed": taking ? "true" : "false",
          disabled: busy,
          onclick: () => ctx.setUi({ mode: taking ? null : "take" }),
          "aria-label": taking
            ? `Taking the ${numeral(top)}: now choose a card of your grid (press to cancel)`
            : `Take the ${numeral(top)} from the discard pile`,
        },
        topCard,
        h("span", { class: "pile-label" }, `Discard · ${view.discard_size}`),
      )
    : h(
        "div",
        {
          class: "ns-pile discard",
          role: "img",
          "aria-label": top === null ? "Discard pile: empty" : `Discard pile: ${numeral(top)} on top`,
        },
        topCard,
        h("span", { class: "pile-label" }, `Discard · ${view.discard_size}`),
      );
  const drawn =
    view.drawn === null
      ? null
      : h(
          "div",
          { class: "ns-pile drawn", role: "img", "aria-label": `Drawn card: ${numeral(view.drawn)}` },
          faceCard(view.drawn, { class: "glow" }),
          h("span", { class: "pile-label" }, view.current === ctx.you ? "You drew" : `${ctx.names(view.current)} drew`),
        );
  return h("div", { class: "ns-piles" }, drawPile, discardPile, drawn);
}

/** The sentence that tells me what to do now (empty when nothing is mine to do). */
export function prompt(view, ctx) {
  const L = legalOf(view);
  if (L.flips.length) {
    return ctx.ui.first === undefined || ctx.ui.first === null
      ? "Turn up two of your cards: choose the first."
      : "Now choose the second card to turn up.";
  }
  if (L.takes.length) {
    return ctx.ui.mode === "take"
      ? `Choose the card of your grid that the ${numeral(view.discard_top)} replaces.`
      : `Take the ${numeral(view.discard_top)} from the discard pile, or draw a card.`;
  }
  if (L.swaps.length || L.discards.length) {
    if (ctx.ui.mode === "flip" || !L.swaps.length) return "Choose a face-down card to turn up.";
    return `You drew a ${numeral(view.drawn)}: choose the card it replaces, or discard it.`;
  }
  if (L.undo) return "You may take back your last move until the next player moves.";
  return "";
}

function actionBar(view, ctx) {
  const L = legalOf(view);
  const busy = ctx.busy;
  const items = [];
  if (L.swaps.length && L.discards.length) {
    const flipping = ctx.ui.mode === "flip";
    items.push(
      button(
        flipping ? "Keep it: swap it in" : "Discard it and turn a card up",
        () => ctx.setUi({ mode: flipping ? null : "flip" }),
        { "data-legal": "mode", disabled: busy },
      ),
    );
  }
  if (L.takes.length && ctx.ui.mode === "take") {
    items.push(button("Cancel", () => ctx.setUi({ mode: null }), { disabled: busy }));
  }
  if (L.flips.length && ctx.ui.first !== undefined && ctx.ui.first !== null) {
    items.push(button("Choose again", () => ctx.setUi({ first: null }), { disabled: busy }));
  }
  if (L.undo) {
    items.push(button("Undo my last move", () => ctx.act(L.undo), { class: "undo", "data-legal": "undo", disabled: busy }));
  }
  return items.length ? h("div", { class: "action-bar" }, items) : null;
}

function playerBox(view, ctx, player, mine) {
  const seat = player.seat;
  const current = view.current === seat;
  const choosing = view.phase === "choose" && !player.chosen;
  const tags = [];
  if (current) tags.push(h("span", { class: "badge turn" }, "to play"));
  if (choosing) tags.push(h("span", { class: "badge" }, "choosing"));
  if (view.ender === seat && view.phase === "turn") tags.push(h("span", { class: "badge warn" }, "ended the round"));
  const recent = ctx.recent(seat);
  return h(
    "section",
    {
      class: ["ns-player", mine && "mine", current && "current"],
      key: `p${seat}`,
      "aria-label": `${ctx.names(seat)}${mine ? " (you)" : ""}`,
    },
    h(
      "header",
      null,
      h("strong", null, mine ? `${ctx.names(seat)} (you)` : ctx.names(seat)),
      tags,
      h("span", { class: "ns-score" }, `showing ${player.showing} · total ${player.total}`),
    ),
    grid(player, mine && !ctx.spectator ? myChoices(view, ctx) : null, mine ? "large" : "small"),
    recent ? h("p", { class: "recent", key: `recent-${recent}` }, recent) : null,
  );
}

function roundSummary(view, ctx) {
  const last = view.last_round;
  if (!last || !(view.phase === "choose" || view.over)) return null;
  const rows = last.scores.map((score, seat) => {
    const raw = last.raw_scores[seat];
    const ended = seat === last.ender;
    const doubled = ended && last.doubled;
    const cards = last.grids[seat].filter((c) => c !== null).map(numeral).join(" ");
    return h(
      "tr",
      { key: `r${seat}`, class: ended ? "ender" : null },
      h("th", { scope: "row" }, ctx.names(seat), ended ? h("span", { class: "badge warn" }, "ended it") : null),
      h("td", { class: "cards-left" }, cards || "all cleared"),
      h(
        "td",
        null,
        doubled ? h("span", { class: "doubled" }, `${raw} × 2 = ${score}`) : String(score),
      ),
      h("td", null, String(view.players[seat].total)),
    );
  });
  const enderName = ctx.names(last.ender);
  return h(
    "section",
    { class: "panel ns-summary", "aria-labelledby": "ns-summary-title" },
    h("h2", { id: "ns-summary-title" }, `Round ${last.round} is over`),
    h(
      "p",
      null,
      last.doubled
        ? `${enderName} ended the round without the lowest score alone, so their score is doubled.`
        : `${enderName} ended the round.`,
    ),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        null,
        h("thead", null, h("tr", null, h("th", null, "Player"), h("th", null, "Cards left"), h("th", null, "Round"), h("th", null, "Total"))),
        h("tbody", null, rows),
      ),
    ),
  );
}

function scoreTable(view, ctx) {
  if (!view.history.length) return null;
  return h(
    "details",
    { class: "panel ns-history", key: "history" },
    h("summary", null, "Scores by round"),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        null,
        h(
          "thead",
          null,
          h("tr", null, h("th", null, "Round"), view.players.map((p) => h("th", { key: p.seat }, ctx.names(p.seat)))),
        ),
        h(
          "tbody",
          null,
          view.history.map((scores, i) =>
            h("tr", { key: `h${i}` }, h("th", { scope: "row" }, String(i + 1)), scores.map((s, seat) => h("td", { key: seat }, String(s)))),
          ),
          h("tr", { class: "totals" }, h("th", { scope: "row" }, "Total"), view.players.map((p) => h("td", { key: p.seat }, String(p.total)))),
        ),
      ),
    ),
  );
}

export function table(view, ctx) {
  const mine = ctx.spectator ? null : view.players[ctx.you];
  const others = view.players.filter((p) => !mine || p.seat !== mine.seat);
  const status = [`Round ${view.round}`, `the game ends when a total reaches ${view.target}`];
  return h(
    "div",
    { class: "ns-table" },
    h(
      "div",
      { class: "game-status" },
      h("span", null, status.join(" · ")),
      view.last_turns
        ? h("strong", { class: "last-turns", role: "status" }, `Last turns! ${ctx.names(view.ender)} has no face-down cards left.`)
        : null,
    ),
    roundSummary(view, ctx),
    piles(view, ctx),
    actionBar(view, ctx),
    h(
      "div",
      { class: "ns-players" },
      mine ? playerBox(view, ctx, mine, true) : null,
      others.map((p) => playerBox(view, ctx, p, false)),
    ),
    scoreTable(view, ctx),
  );
}

export const scoreName = "Total";

/** One line about a player for the side list. */
export function facts(view, seat) {
  const p = view.players[seat];
  return p ? `total ${p.total}` : "";
}

/** Who is to play, in words, for the turn banner when it is not my move. */
export function waiting(view, ctx) {
  if (view.phase === "choose") {
    const names = view.to_act.map(ctx.names);
    return names.length ? `Waiting for ${listNames(names)} to turn up two cards.` : "";
  }
  if (view.current !== null) return `${ctx.names(view.current)} is playing.`;
  return "";
}

/** What each player just did, worked out from two snapshots in a row. */
export function describe(prev, next) {
  const out = [];
  if (prev.round !== next.round) {
    if (prev.current !== null) out.push({ seat: prev.current, text: "played the last turn of the round" });
    return out;
  }
  next.players.forEach((p, seat) => {
    if (p.chosen && !prev.players[seat].chosen) out.push({ seat, text: "turned up two cards" });
  });
  const c = prev.current;
  if (c === null || c === undefined) return out;
  if (prev.undo_by !== null && next.undo_by === null && next.current === prev.undo_by && prev.current !== next.current) {
    out.push({ seat: prev.undo_by, text: "took back their move" });
    return out;
  }
  if (prev.drawn === null && next.drawn !== null && next.current === c) {
    out.push({ seat: c, text: `drew a ${numeral(next.drawn)}` });
    return out;
  }
  const before = prev.players[c].grid;
  const after = next.players[c].grid;
  const cleared = after.filter((x) => x.cleared).length - before.filter((x) => x.cleared).length;
  const changed = after.findIndex((x, i) => JSON.stringify(x) !== JSON.stringify(before[i]) && !x.cleared);
  let text = "";
  if (prev.drawn !== null && next.drawn === null) {
    const put = changed >= 0 && after[changed].up && after[changed].card === prev.drawn && before[changed].card !== prev.drawn;
    text = put ? `swapped the drawn ${numeral(prev.drawn)} in` : `discarded the ${numeral(prev.drawn)} and turned a card up`;
  } else if (prev.drawn === null && next.current !== c && prev.discard_top !== null) {
    text = `took the ${numeral(prev.discard_top)} from the discard pile`;
  }
  if (cleared > 0) text += `${text ? " and " : ""}cleared a column`;
  if (text) out.push({ seat: c, text });
  return out;
}
