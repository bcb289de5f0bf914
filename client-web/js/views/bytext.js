// What a room played by text (a turn-based room, docs/protocol.md "Live and turn-based rooms")
// adds to the page: its mode and turn timer in words, the host's choice of a timer in hours and
// days, "Send to Ben" after your move (Messages with the room link when a number is saved for
// Ben, else the share sheet or the copied link), the phone number sheet, and moving your seat
// to another device. Live rooms draw none of it.

import { h } from "../dom.js";
import { button, listNames } from "./common.js";

/** The turn timers a turn-based room offers, in seconds (0 = off): the server allows an hour to
 * a week. */
export const TEXT_TIMERS = [
  [0, "Off"],
  [3600, "1 hour"],
  [8 * 3600, "8 hours"],
  [86400, "1 day"],
  [3 * 86400, "3 days"],
  [7 * 86400, "7 days"],
];

/** Whether a room's info (`state.room`, a summary) is a turn-based room's. */
export function byText(info) {
  return Boolean(info) && info.mode === "turns";
}

/** A turn timer in words: "no turn timer", "1 day per turn", "36 hours per turn". */
export function timerWords(seconds) {
  const value = Number(seconds) || 0;
  if (!value) return "no turn timer";
  const named = TEXT_TIMERS.find(([s]) => s === value);
  if (named) return `${named[1]} per turn`;
  const hours = value / 3600;
  return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} hours per turn`;
}

/** "By text · no turn timer": the room's mode, for the lobby and the players panel. */
export function modeLine(info) {
  return h("p", { class: "mode-line", "data-mode": "turns", key: "mode-line" }, `By text · ${timerWords(info.turn_timer)}`);
}

/** The host's turn timer for a turn-based room: Off, 1 hour … 7 days (a value set otherwise is
 * kept as a choice of its own). */
export function textTimerChoice(value, onChange, { id = "text-turn-timer", label = "Turn timer" } = {}) {
  const current = Number(value) || 0;
  const choices = TEXT_TIMERS.some(([s]) => s === current) ? TEXT_TIMERS : [...TEXT_TIMERS, [current, timerWords(current)]].sort((a, b) => a[0] - b[0]);
  return h(
    "div",
    { class: "field inline text-timer", key: id },
    h("label", { for: id }, label),
    h(
      "select",
      { id, onchange: (e) => onChange(choices[e.target.selectedIndex][0]) },
      choices.map(([seconds, words]) => h("option", { value: String(seconds), selected: seconds === current }, words)),
    ),
    h("small", null, "When it runs out, a bot plays that one turn; the next one waits for the player again."),
  );
}

/** A game's options schema without the ones a turn-based room decides (`turn_based_options`,
 * Number Swap's `by_text`): the mode choice says those. */
export function modeFreeSchema(game) {
  const schema = game && game.options;
  const decided = Object.keys((game && game.turn_based_options) || {});
  if (!schema || !schema.properties || !decided.length) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([name]) => !decided.includes(name)));
  return { ...schema, properties };
}

/** "5 min ago", "yesterday"…: `seconds` since something, both times on the server's clock. */
export function ago(seconds) {
  const s = Math.max(0, Number(seconds) || 0);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) {
    const hours = Math.floor(s / 3600);
    return `${hours} ${hours === 1 ? "hour" : "hours"} ago`;
  }
  if (s < 2 * 86400) return "yesterday";
  return `${Math.floor(s / 86400)} days ago`;
}

// -- sending the turn on -------------------------------------------------------------------------

/** A phone number as `sms:` takes it: digits, with a leading + kept. */
export function dialable(number) {
  const text = String(number || "").trim();
  const digits = text.replace(/\D/g, "");
  return digits.length >= 3 ? `${text.startsWith("+") ? "+" : ""}${digits}` : "";
}

/** The words sent with the link. */
export function turnMessage(names, game, link) {
  return `${listNames(names)}, your turn in ${game} on Parlor: ${link}`;
}

/** The Messages link for one number: `sms:+15551234567?&body=…`, the form both iOS and
 * Android open with the body filled in. */
export function smsLink(number, body) {
  return `sms:${dialable(number)}?&body=${encodeURIComponent(body)}`;
}

/** The people (names) this page would send the turn to now, or null: a turn-based room, you
 * seated, the game going, not your move, the last move a person made themselves yours, and
 * people (not bots) the game waits for. */
export function recipients(room) {
  const state = room.state;
  const info = state && state.room;
  const view = state && state.view;
  if (!byText(info) || state.you === null || info.phase !== "playing" || !view || view.over) return null;
  // Whom the game waits for (the server's `waiting`): not a seat that only may act, such as
  // Number Swap's last mover with an undo open, who has made their move all the same.
  const toAct = info.waiting || view.to_act || [];
  if (toAct.includes(state.you) || !room.lastMover || room.lastMover.seat !== state.you) return null;
  const names = toAct.filter((i) => info.seats[i] && !info.seats[i].bot).map((i) => info.seats[i].name);
  return names.length ? names : null;
}

/** "Send to Ben" (one control per person to act, up to three; "Send to everyone" beyond), each
 * with "Add Ben's number" (or "Ben's number" once saved). */
export function sendBar(model, intents) {
  const room = model.room;
  const names = recipients(room);
  if (!names) return null;
  const game = model.gameInfo ? model.gameInfo.name : "our game";
  const copied = room.ui.sendCopied;
  const phoneOf = (name) => model.phones[String(name).trim().toLowerCase()] || "";
  const shareButton = (text, whom, key) =>
    button(copied === key ? "Link copied" : text, () => intents.sendTurn(whom, key), {
      class: "primary send-turn",
      key,
      "data-send": key,
      "aria-label": copied === key ? `${text}: link copied` : text,
    });
  let items;
  if (names.length > 3) {
    items = [h("div", { class: "send-one", key: "send-all" }, shareButton("Send to everyone", names, "all"))];
  } else {
    items = names.map((name, i) => {
      const number = phoneOf(name);
      const key = `to-${i}-${name}`;
      const text = `Send to ${name}`;
      const send = number
        ? h("a", { class: "button primary send-turn", href: smsLink(number, turnMessage([name], game, room.link)), "data-send": key, key }, text)
        : shareButton(text, [name], key);
      return h(
        "div",
        { class: "send-one", key: `one-${key}` },
        send,
        button(number ? `${name}'s number` : `Add ${name}'s number`, () => intents.editPhone(name), {
          class: "link-button",
          key: `phone-${key}`,
          "data-phone-for": name,
        }),
      );
    });
  }
  return h("div", { class: "send-bar", role: "group", "aria-label": "Send the turn on", key: "send-bar" }, items);
}

/** Saving, changing or removing a friend's number: a sheet over the page. */
export function phoneSheet(model, intents) {
  const room = model.room;
  const name = room && room.ui.phoneFor;
  if (!name) return null;
  const saved = model.phones[String(name).trim().toLowerCase()] || "";
  const close = () => intents.editPhone(null);
  return h(
    "div",
    {
      class: "sheet-backdrop",
      key: "phone-sheet",
      onclick: (e) => {
        if (e.target === e.currentTarget) close();
      },
    },
    h(
      "form",
      {
        class: "panel sheet phone-sheet",
        role: "dialog",
        "aria-modal": "true",
        "aria-labelledby": "phone-title",
        "data-panel": "phone",
        onkeydown: (e) => {
          if (e.key === "Escape") close();
        },
        onsubmit: (e) => {
          e.preventDefault();
          intents.savePhone(name, e.target.elements.namedItem("phone-number").value);
        },
      },
      h("h2", { id: "phone-title", tabindex: -1 }, `${name}'s phone number`),
      h("p", { class: "phone-note", "data-phone-note": "" }, "Numbers stay on this device; Parlor never sees them."),
      h(
        "div",
        { class: "field" },
        h("label", { for: "phone-number" }, `${name}'s number`),
        h("input", { id: "phone-number", name: "phone-number", type: "tel", autocomplete: "off", inputmode: "tel", value: saved, placeholder: "+1 555 123 4567", "data-sheet-focus": "" }),
        h("small", null, `"Send to ${name}" then opens Messages with the link, in any of your games with a ${name}.`),
      ),
      room.ui.phoneError ? h("p", { class: "error", role: "alert" }, room.ui.phoneError) : null,
      h(
        "div",
        { class: "button-row" },
        h("button", { type: "submit", class: "primary" }, "Save"),
        saved ? button("Remove", () => intents.savePhone(name, ""), { "aria-label": `Remove ${name}'s number` }) : null,
        button("Cancel", close),
      ),
    ),
  );
}

// -- moving the seat to another device ------------------------------------------------------------

/** "Play on another device": ask for a one-time code, then show it and its link once. */
export function moveBox(model, intents) {
  const room = model.room;
  const state = room.state;
  if (!state || state.you === null || !byText(state.room)) return null;
  const moving = room.ui.handoff;
  if (!moving) {
    return h(
      "div",
      { class: "move-seat", key: "move-seat" },
      button("Play on another device", intents.handoff, { "data-handoff": "" }),
    );
  }
  if (moving.asking) return h("div", { class: "move-seat", key: "move-seat" }, h("p", { role: "status" }, "Making a code…"));
  return h(
    "section",
    { class: "move-seat shown", key: "move-seat", "aria-labelledby": "move-title", "data-handoff-code": moving.code },
    h("h3", { id: "move-title" }, "Play on another device"),
    h("p", null, "Open this link on the other device, or type the room code and this code on Parlor's home page there:"),
    h("p", { class: "handoff-code", "aria-label": `Code ${moving.code.split("").join(" ")}` }, moving.code),
    h("a", { href: moving.link, class: "link-text", "data-handoff-link": "" }, moving.link),
    h("p", { class: "muted" }, "It works once, within 15 minutes. Then your seat is on that device, and this one stops playing it."),
    h(
      "div",
      { class: "button-row" },
      button(room.ui.handoffCopied ? "Link copied" : "Copy the link", intents.copyHandoff, { "aria-live": "polite" }),
      button("Done", intents.closeHandoff),
    ),
  );
}
