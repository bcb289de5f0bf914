// The room before a game: the code to share (large, as a link and as a QR code), the seats,
// and the host's controls.

import { h } from "../dom.js";
import { byText, modeFreeSchema, modeLine, moveBox, textTimerChoice } from "./bytext.js";
import { button, countdown, listNames, optionsFields, timerField } from "./common.js";

// The QR code maker is fetched when a room is opened, not with the home page; until it has
// arrived the share box draws without the code.
let renderSVG = null;
let qrLoading = null;
let qrCache = { link: "", svg: "" };

export function loadQr() {
  qrLoading ||= import("../../vendor/uqr.js").then(
    (module) => {
      renderSVG = module.renderSVG;
    },
    (error) => {
      qrLoading = null;
      throw error;
    },
  );
  return qrLoading;
}

function qr(link) {
  if (!renderSVG) return "";
  if (qrCache.link !== link) {
    qrCache = { link, svg: renderSVG(link, { pixelSize: 4, border: 4 }) };
  }
  return qrCache.svg;
}

/** Whether the browser offers the Web Share API (phones mostly; not Chromium on Linux). */
export function canShare() {
  return typeof navigator !== "undefined" && typeof navigator.share === "function";
}

export function shareBox(model, intents) {
  const room = model.room;
  return h(
    "section",
    { class: "share panel", "aria-labelledby": "share-title" },
    h("h2", { id: "share-title", class: "visually-hidden" }, "Invite friends"),
    h("p", { class: "code-caption" }, "Room code"),
    h(
      "p",
      { class: "room-code", "aria-label": `Room code ${room.code.split("").join(" ")}` },
      room.code,
    ),
    h(
      "div",
      { class: "share-row" },
      // The phone's own share sheet (messages, mail, …) where the browser has one.
      canShare() ? button("Share", intents.share, { class: "primary", "data-share": "" }) : null,
      button(room.ui.copied ? "Link copied" : "Copy link", intents.copyLink, {
        "aria-live": "polite",
        "data-copy": "",
      }),
    ),
    h("a", { href: room.link, class: "link-text" }, room.link),
    h("div", { class: "qr", role: "img", "aria-label": "QR code of the room link", raw: qr(room.link) }),
  );
}

const BOT_LEVELS = [
  ["easy", "Easy"],
  ["normal", "Normal"],
  ["strong", "Strong"],
];

function levelName(level) {
  const found = BOT_LEVELS.find(([value]) => value === level);
  return found ? found[1].toLowerCase() : "normal";
}

function seatRow(model, intents, seat, index) {
  const state = model.room.state;
  const info = state.room;
  const isHost = info.host === index;
  const youHost = state.you !== null && info.host === state.you;
  const mine = state.you === index;
  const status = seat.bot ? "bot" : seat.connected ? "online" : "offline";
  const next = info.next_deal;
  // A person whose browser has committed to its share of the next deal (docs/fairplay.md).
  const sealed = !seat.bot && next && next.commitments && next.commitments[index];
  const controls = [];
  // While the deal is being sealed the table is fixed (docs/fairplay.md): no controls.
  const dealing = Boolean(next && next.stage);
  if (seat.bot && youHost && !dealing) {
    // The host picks each bot's level (docs/rules/<game>.md, "Bots").
    controls.push(
      h(
        "select",
        {
          class: "bot-level",
          "aria-label": `Level of ${seat.name}`,
          // On creation the selected option says it; afterwards the value keeps it current.
          value: seat.level || "normal",
          onchange: (e) => intents.send({ type: "bot_level", id: seat.id, level: e.target.value }),
        },
        BOT_LEVELS.map(([value, text]) => h("option", { value, selected: seat.level === value }, text)),
      ),
    );
  }
  if (youHost && !mine && !dealing) {
    controls.push(
      button(seat.bot ? "Remove" : "Kick", () => intents.send({ type: "kick", id: seat.id }), {
        "aria-label": `${seat.bot ? "Remove" : "Kick"} ${seat.name}`,
      }),
    );
    if (!seat.bot) {
      controls.push(
        button("Make host", () => intents.send({ type: "give_host", id: seat.id }), {
          "aria-label": `Make ${seat.name} the host`,
        }),
      );
    }
  }
  return h(
    "li",
    { class: ["seat", mine && "mine"], key: `seat-${seat.id}` },
    h("span", { class: ["presence", status], "aria-hidden": "true" }),
    h("span", { class: "seat-name" }, seat.name),
    h(
      "span",
      { class: "badges" },
      mine ? h("span", { class: "badge you" }, "you") : null,
      isHost ? h("span", { class: "badge host" }, "host") : null,
      h("span", { class: `badge ${status}` }, status),
      seat.bot && !youHost ? h("span", { class: "badge level" }, levelName(seat.level)) : null,
      sealed ? h("span", { class: "badge sealed", "data-sealed": "", title: "This player's browser has sealed its share of the deal" }, "sealed") : null,
    ),
    controls.length ? h("span", { class: "seat-controls" }, controls) : null,
  );
}

export function lobbyView(model, intents, howTo = null) {
  const room = model.room;
  const state = room.state;
  const info = state.room;
  const game = model.gameInfo;
  const you = state.you;
  const youHost = you !== null && info.host === you;
  const count = info.seats.length;
  const limit = game ? game.max_seats : 8;
  const enough = game ? count >= game.min_seats && count <= game.max_seats : count >= 2;
  const hostName = info.host === null ? "the host" : info.seats[info.host].name;
  const seats = h(
    "section",
    { class: "panel seats-panel", "aria-labelledby": "seats-title" },
    h("h2", { id: "seats-title" }, `Players (${count} of ${limit})`),
    h(
      "ul",
      { class: "seat-list" },
      info.seats.map((seat, index) => seatRow(model, intents, seat, index)),
    ),
    info.locked ? h("p", { class: "muted" }, "The room is locked: nobody new can join.") : null,
  );
  let controls;
  if (youHost) {
    controls = h(
      "section",
      { class: "panel host-panel", "aria-labelledby": "host-title" },
      h("h2", { id: "host-title" }, "You are the host"),
      h(
        "div",
        { class: "button-row" },
        button("Add a bot", () => intents.send({ type: "add_bot" }), { disabled: count >= limit || Boolean(info.next_deal && info.next_deal.stage) }),
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "checkbox",
            checked: info.locked,
            onchange: (e) => intents.send({ type: "lock", locked: e.target.checked }),
          }),
          " Lock the room",
        ),
      ),
      h(
        "details",
        { class: "options", key: "lobby-options" },
        h("summary", null, "Options"),
        game
          ? optionsFields(modeFreeSchema(game), info.options, (name, value) =>
              intents.send({ type: "options", options: { [name]: value } }),
            )
          : null,
        byText(info) ? null : timerField(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value })),
      ),
      byText(info) ? textTimerChoice(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value }), { id: "lobby-text-timer" }) : null,
    );
  } else {
    controls = h("section", { class: "panel host-panel" }, h("h2", null, "Options"), optionsSummary(game, info) || h("p", { class: "muted" }, "The game's usual rules."));
  }
  // Kept in sight at the bottom of a phone's screen: the host's Start, or whom we wait for.
  const dealing = dealingNote(state, room.deadlineAt);
  const startBar = h(
    "div",
    { class: "start-bar", key: "start-bar" },
    dealing
      ? dealing
      : youHost
      ? [
          h(
            "button",
            {
              type: "button",
              class: "primary start",
              disabled: !enough,
              onclick: () => intents.send({ type: "start" }),
            },
            "Start the game",
          ),
          enough || !game
            ? null
            : h(
                "p",
                { class: "muted start-note" },
                `${game.name} needs ${game.min_seats} to ${game.max_seats} players: add a bot or wait for friends.`,
              ),
        ]
      : h("p", { class: "waiting-line", role: "status" }, you === null ? "You are watching." : `Waiting for ${hostName} to start the game.`),
  );
  return h(
    "div",
    { class: "lobby" },
    h(
      "div",
      { class: "lobby-main" },
      h("h1", { class: "game-title", tabindex: -1 }, game ? game.name : info.game),
      game ? h("p", { class: "summary" }, game.summary, " ", howTo) : howTo,
      byText(info) ? modeLine(info) : null,
      byText(info) ? h("p", { class: "muted mode-note" }, "Each of you plays when you can: after your move, send the link on to whoever is next. The room keeps for 30 days after its last move.") : null,
      shareBox(model, intents),
    ),
    h("div", { class: "lobby-side" }, seats, controls, moveBox(model, intents)),
    startBar,
  );
}

/**
 * While the host's start (or rematch) is being sealed (docs/fairplay.md): whose browsers the
 * deal waits for, with the time left, or that the values are being revealed. Null otherwise.
 */
export function dealingNote(state, deadlineAt) {
  const info = state.room;
  const next = info.next_deal;
  if (!next || !next.stage) return null;
  let text;
  if (next.stage === "commit") {
    const missing = [];
    info.seats.forEach((seat, i) => {
      if (!seat.bot && !next.commitments[i]) missing.push(i === state.you ? "your" : `${seat.name}'s`);
    });
    text = missing.length ? `Sealing the deal: waiting for ${listNames(missing)} browser${missing.length > 1 ? "s" : ""}` : "Sealing the deal";
  } else {
    text = "Sealing the deal: the browsers are revealing their shares";
  }
  return h(
    "p",
    { class: "waiting-line dealing", role: "status", "data-dealing": next.stage },
    `${text}… `,
    deadlineAt ? countdown(deadlineAt, { label: "at most" }) : null,
  );
}

function optionsSummary(game, info) {
  if (!game) return null;
  const schema = modeFreeSchema(game);
  const properties = (schema && schema.properties) || {};
  const items = Object.entries(properties).map(([name, schema]) => {
    const value = info.options[name];
    const shown = typeof value === "boolean" ? (value ? "on" : "off") : String(value);
    return h("li", { key: name }, `${schema.title || name}: ${shown}`);
  });
  if (info.turn_timer && !byText(info)) items.push(h("li", { key: "timer" }, `Turn timer: ${info.turn_timer} s`));
  return items.length ? h("ul", { class: "options-summary" }, items) : null;
}
