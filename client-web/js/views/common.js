// Small drawing helpers shared by every screen: names, buttons, the options form.

import { h } from "../dom.js";

/** The display name of seat index `seat` (or a fallback when unknown). */
export function seatName(room, seat) {
  const found = room && room.seats && room.seats[seat];
  return found ? found.name : `Seat ${seat + 1}`;
}

/** A seat in words at the start of a sentence: "You" for the seat this page plays (`ctx.you`),
 * else its name (`ctx.names`), as in "You drew 2", "Ana drew 2". */
export function who(seat, ctx) {
  return seat === ctx.you ? "You" : ctx.names(seat);
}

/** The same within a sentence: "you", else the name ("Frozen: you must answer"). */
export function whoWithin(seat, ctx) {
  return seat === ctx.you ? "you" : ctx.names(seat);
}

/** "Ana", "Ana and Ben", "Ana, Ben and Cleo". */
export function listNames(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** A finished game's standings: place, player and score, best first (ties by seat); `you`
 * (a seat index, or null) is marked "(you)". */
export function standingsTable(result, names, scoreName, you = null) {
  const order = result.places.map((place, seat) => ({ place, seat })).sort((a, b) => a.place - b.place || a.seat - b.seat);
  return h(
    "table",
    null,
    h("thead", null, h("tr", null, h("th", null, "Place"), h("th", null, "Player"), h("th", null, scoreName || "Score"))),
    h(
      "tbody",
      null,
      order.map(({ place, seat }) =>
        h(
          "tr",
          { key: seat, class: result.winners.includes(seat) ? "winner" : null },
          h("td", null, String(place)),
          h("th", { scope: "row" }, h("span", { class: "seat-name" }, names(seat)), seat === you ? " (you)" : ""),
          h("td", null, String(result.scores[seat])),
        ),
      ),
    ),
  );
}

/** The bar's "Parlor" link home, taken by the page itself (no reload). */
export function brandLink(goHome) {
  return h(
    "a",
    {
      href: "/",
      class: "brand",
      onclick: (e) => {
        e.preventDefault();
        goHome();
      },
    },
    "Parlor",
  );
}

/** A button that performs `onclick`; `props` are its attributes (an aria-label when the text
 * is terse). */
export function button(text, onclick, props = {}) {
  return h("button", { type: "button", onclick, ...props }, text);
}

/** Compare two legal actions or action parts by value. */
export function sameAction(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function fieldFor(name, schema, value, onChange, disabled) {
  const id = `opt-${name}`;
  const title = schema.title || name;
  const hint = schema.description ? h("small", { id: `${id}-hint` }, schema.description) : null;
  const described = hint ? `${id}-hint` : null;
  if (schema.type === "boolean") {
    return h(
      "div",
      { class: "field check", key: id },
      h("input", {
        type: "checkbox",
        id,
        checked: Boolean(value),
        disabled,
        "aria-describedby": described,
        onchange: (e) => onChange(name, e.target.checked),
      }),
      h("label", { for: id }, title),
      hint,
    );
  }
  if (Array.isArray(schema.enum)) {
    return h(
      "div",
      { class: "field", key: id },
      h("label", { for: id }, title),
      h(
        "select",
        {
          id,
          disabled,
          "aria-describedby": described,
          onchange: (e) => onChange(name, schema.enum[e.target.selectedIndex]),
        },
        schema.enum.map((option) =>
          h("option", { value: String(option), selected: option === value }, String(option)),
        ),
      ),
      hint,
    );
  }
  if (schema.type === "integer" || schema.type === "number") {
    const range =
      schema.minimum !== undefined && schema.maximum !== undefined
        ? ` (${schema.minimum}–${schema.maximum})`
        : "";
    return h(
      "div",
      { class: "field", key: id },
      h("label", { for: id }, title + range),
      h("input", {
        type: "number",
        id,
        inputmode: "numeric",
        min: schema.minimum,
        max: schema.maximum,
        step: schema.type === "integer" ? 1 : "any",
        value: value === undefined || value === null ? "" : String(value),
        disabled,
        "aria-describedby": described,
        onchange: (e) => {
          const number = Number(e.target.value);
          if (e.target.value !== "" && Number.isFinite(number)) onChange(name, number);
        },
      }),
      hint,
    );
  }
  return h(
    "div",
    { class: "field", key: id },
    h("label", { for: id }, title),
    h("input", {
      type: "text",
      id,
      value: value === undefined || value === null ? "" : String(value),
      disabled,
      "aria-describedby": described,
      onchange: (e) => onChange(name, e.target.value),
    }),
    hint,
  );
}

/**
 * Inputs for a game's options, built from its JSON schema (pydantic's model_json_schema).
 * `values` holds the current options; `onChange(name, value)` reports one edit.
 */
export function optionsFields(schema, values, onChange, { disabled = false } = {}) {
  const properties = (schema && schema.properties) || {};
  const names = Object.keys(properties);
  if (!names.length) return [h("p", { class: "muted" }, "This game has no options.")];
  return names.map((name) =>
    fieldFor(name, properties[name], values ? values[name] : undefined, onChange, disabled),
  );
}

/**
 * The turn timer input: 0 is off. With `unset` (a phrase such as "the game's default") the
 * field may be left empty, which reports null.
 */
export function timerField(value, onChange, { disabled = false, unset = "" } = {}) {
  const empty = value === null || value === undefined;
  return h(
    "div",
    { class: "field", key: "opt-turn-timer" },
    h(
      "label",
      { for: "opt-turn-timer" },
      unset ? `Turn timer in seconds (0 = off, empty = ${unset})` : "Turn timer in seconds (0 = off)",
    ),
    h("input", {
      type: "number",
      id: "opt-turn-timer",
      inputmode: "numeric",
      min: 0,
      max: 600,
      step: 1,
      value: empty ? "" : String(value),
      placeholder: unset && empty ? unset : null,
      disabled,
      "aria-describedby": "opt-turn-timer-hint",
      onchange: (e) => {
        if (unset && e.target.value.trim() === "") {
          onChange(null);
          return;
        }
        const number = Number(e.target.value);
        if (Number.isFinite(number)) onChange(number);
      },
    }),
    h(
      "small",
      { id: "opt-turn-timer-hint" },
      "When a player takes longer, a bot makes that move for them until they are back.",
    ),
  );
}

/** The turn timers the table's compact control offers, in seconds (0 = off). */
export const TIMER_CHOICES = [0, 30, 45, 60, 90, 120];

/** A compact turn timer choice (off, 30 s … 120 s, and the current value if it is another). */
export function timerChoice(value, onChange, { id = "turn-timer-choice", disabled = false } = {}) {
  const current = Number(value) || 0;
  const choices = TIMER_CHOICES.includes(current)
    ? TIMER_CHOICES
    : [...TIMER_CHOICES, current].sort((a, b) => a - b);
  return h(
    "div",
    { class: "field inline", key: id },
    h("label", { for: id }, "Turn timer"),
    h(
      "select",
      {
        id,
        disabled,
        onchange: (e) => onChange(choices[e.target.selectedIndex]),
      },
      choices.map((seconds) =>
        h(
          "option",
          { value: String(seconds), selected: seconds === current },
          seconds ? `${seconds} s` : "Off",
        ),
      ),
    ),
  );
}

/** Whole seconds left until `deadlineAt` (a performance.now() time), never below 0. */
export function secondsLeft(deadlineAt, now = performance.now()) {
  return Math.max(0, Math.ceil((deadlineAt - now) / 1000));
}

/** 75 -> "1:15", 9 -> "0:09". */
export function clockText(seconds) {
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)}:${rest < 10 ? "0" : ""}${rest}`;
}

/**
 * The time left to act, as text that main.js keeps current once a second (it finds the
 * `data-countdown` element and rewrites only its text): nothing else is redrawn by the clock.
 */
export function countdown(deadlineAt, { label = "left" } = {}) {
  const left = secondsLeft(deadlineAt);
  return h(
    "span",
    { class: ["countdown", left <= 10 && "low"], role: "timer" },
    h("span", { "data-countdown": String(deadlineAt) }, clockText(left)),
    ` ${label}`,
  );
}
