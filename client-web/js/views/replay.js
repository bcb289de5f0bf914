// The replay viewer at /r/CODE/replay/N: a finished game, step by step, drawn with the game's
// own table. It fetches the game's record (GET /api/rooms/CODE/games/N/record: the seats, the
// sealed deal, every action with its events) and the views one page of steps at a time
// (GET …/replay?seat=…&from=…&count=…: step 0 is the deal, step k the table after action k,
// each view exactly what that seat's live client got), only the page the step shown needs,
// then the next one. The table is read-only: the game module gets a ctx whose `act` does
// nothing and that is always `busy`, and views with their `legal` emptied, so no move control
// is live. The move feed comes from the record's events (the game's `eventText`), and the
// deal is checked in the browser (../fairplay.js).
//
// main.js routes here and calls `openReplay`; this module draws #top and #app itself while the
// viewer is the page (main's render() hands over to `draw`).

import { h, patch } from "../dom.js";
import { checkDeal } from "../fairplay.js";
import { snapshot } from "../motion.js";
import { remembered } from "../store.js";
import { brandLink, button, listNames, seatName, standingsTable } from "./common.js";
import { gameModule, knownGame, loadGame } from "./games/index.js";
import { gameCtx, gameSummary, namedReason, noTable, seatStrip, tableParts, winHeadline } from "./table.js";

// Steps per page of the replay (the server allows up to 500).
const PAGE = 50;
const WIDE = typeof matchMedia === "function" ? matchMedia("(min-width: 900px)") : null;

let current = null;

/** Whether `viewer` is still the page (the person may have gone home or to a room). */
function active(viewer) {
  return viewer === current && location.pathname === viewer.path;
}

// -- the model ------------------------------------------------------------------------------------

/** The seat a view is for: an index, "spectator" or "all" (everything revealed). */
function seatParam(seat) {
  return typeof seat === "number" ? String(seat) : seat;
}

function parseSeat(raw, seats) {
  if (raw === "all" || raw === "spectator") return raw;
  if (/^\d+$/.test(raw || "") && Number(raw) < seats) return Number(raw);
  return "spectator";
}

class Viewer {
  constructor(code, number, env) {
    this.code = code;
    this.number = number;
    this.env = env;
    this.path = location.pathname;
    this.base = `/api/rooms/${encodeURIComponent(code)}/games/${encodeURIComponent(number)}`;
    this.record = null;
    this.error = null; // {code, text} when the record cannot be had
    this.deal = { state: "checking", reason: "" };
    this.seat = "spectator";
    this.step = 0;
    this.pages = new Map(); // "seat/page" -> {state: "loading" | "ok" | "failed", steps, error}
    this.feed = null; // [{step, seat, text}] once the game module is there
    this.feedOpen = WIDE ? WIDE.matches : false;
    this.shown = null; // {seat, step} last drawn
    this.animateNext = null;
  }

  get total() {
    return this.record ? this.record.actions.length : 0;
  }

  async start() {
    const query = new URLSearchParams(location.search);
    try {
      const response = await fetch(`${this.base}/record`);
      const body = await response.json().catch(() => null);
      if (!response.ok) {
        this.error = { code: (body && body.code) || String(response.status), text: (body && body.message) || "" };
      } else {
        this.record = body;
      }
    } catch (error) {
      this.error = { code: "network", text: error.message };
    }
    if (!active(this)) return;
    if (this.record) {
      const record = this.record;
      this.seat = parseSeat(query.get("seat"), record.seats.length);
      const step = Number(query.get("step"));
      this.step = Number.isInteger(step) && step >= 0 ? Math.min(step, this.total) : 0;
      // What this browser saw of the deal, if it played it (docs/fairplay.md).
      const known = remembered.seal(this.code, this.number) || {};
      const log = remembered.views(this.code, this.number);
      const seat = log ? log.seat : null;
      checkDeal(
        { ...record, format: record.record, round: record.game },
        {
          room: record.room,
          seen: known.seen || null,
          shown: known.shown || null,
          locked: known.locked || null,
          bots: known.bots || null,
          seat,
          mine: known.mine && known.seen === record.commitment ? known.mine : null,
        },
      ).then(
        (checked) => {
          const state = checked.ok ? "ok" : checked.ok === null ? "unchecked" : "failed";
          this.deal = { state, reason: checked.reason || "" };
          this.draw();
        },
        (error) => {
          this.deal = { state: "failed", reason: `the check could not run (${error.message})` };
          this.draw();
        },
      );
      if (knownGame(record.game_id)) {
        loadGame(record.game_id).then(
          () => this.draw(),
          (error) => {
            console.error("could not load the game's table", error);
            this.tableError = "The game's table could not be loaded; check the connection and reload the page.";
            this.draw();
          },
        );
      }
      this.need();
    }
    this.draw();
  }

  pageOf(seat, page) {
    return this.pages.get(`${seatParam(seat)}/${page}`);
  }

  /** Fetch the page of the step shown (if it is not here), then the next page. */
  need() {
    const page = Math.floor(this.step / PAGE);
    this.load(this.seat, page).then(() => {
      if ((page + 1) * PAGE <= this.total) this.load(this.seat, page + 1);
    });
  }

  load(seat, page) {
    const key = `${seatParam(seat)}/${page}`;
    const known = this.pages.get(key);
    if (known && known.state !== "failed") return known.done;
    const entry = { state: "loading", steps: [], error: "" };
    const url = `${this.base}/replay?seat=${encodeURIComponent(seatParam(seat))}&from=${page * PAGE}&count=${PAGE}`;
    entry.done = fetch(url)
      .then(async (response) => {
        const body = await response.json().catch(() => null);
        if (!response.ok) throw new Error((body && body.message) || `the server answered ${response.status}`);
        entry.steps = body.steps;
        entry.state = "ok";
      })
      .catch((error) => {
        entry.state = "failed";
        entry.error = error.message;
      })
      .then(() => {
        if (active(this)) this.draw();
      });
    this.pages.set(key, entry);
    return entry.done;
  }

  /** The step `n` as fetched for the seat shown, or null while it is not here. */
  stepData(n) {
    const entry = this.pageOf(this.seat, Math.floor(n / PAGE));
    if (!entry || entry.state !== "ok") return null;
    return entry.steps[n - Math.floor(n / PAGE) * PAGE] || null;
  }

  // -- what the controls do -----------------------------------------------------------------------

  go(step) {
    const to = Math.max(0, Math.min(this.total, step));
    if (to === this.step) return;
    this.animateNext = to === this.step + 1 ? to : null;
    this.step = to;
    this.remember();
    this.need();
    this.draw();
  }

  chooseSeat(seat) {
    if (seat === this.seat) return;
    this.seat = seat;
    this.animateNext = null;
    this.remember();
    this.need();
    this.draw();
  }

  setFeedOpen(open) {
    if (open === this.feedOpen) return;
    this.feedOpen = open;
    this.draw();
  }

  /** The step and the seat in the address, so a reload (or a shared link) comes back here. */
  remember() {
    const query = new URLSearchParams({ seat: seatParam(this.seat), step: String(this.step) });
    history.replaceState(history.state, "", `${this.path}?${query}`);
  }

  retry() {
    const page = Math.floor(this.step / PAGE);
    this.pages.delete(`${seatParam(this.seat)}/${page}`);
    this.need();
    this.draw();
  }

  // -- drawing -------------------------------------------------------------------------------------

  draw() {
    if (!active(this)) return;
    const app = document.getElementById("app");
    const body = document.body.dataset;
    const module = this.record ? gameModule(this.record.game_id) : null;
    const data = this.record ? this.stepData(this.step) : null;
    const table = app.querySelector(".replay-table");
    const animating = Boolean(this.animateNext === this.step && data && module && module.animate && this.shown && this.shown.seat === this.seat && this.shown.step === this.step - 1);
    const before = animating ? snapshot(table) : null;
    this.animateNext = null;
    patch(document.getElementById("top"), this.headerView());
    patch(app, this.error ? this.errorView() : this.record ? this.screenView(module, data) : h("p", { class: "connecting" }, "Loading the replay…"));
    const screen = this.error ? "replay-error" : "replay";
    if (body.screen !== screen) {
      window.scrollTo(0, 0);
      app.querySelector("h1")?.focus({ preventScroll: true });
    }
    body.screen = screen;
    body.replayStep = String(this.step);
    body.replaySeat = seatParam(this.seat);
    body.game = this.record ? this.record.game_id : "";
    document.title = `Replay · room ${this.code}, game ${this.number} · Parlor`;
    this.showCurrentMove(app);
    if (data && module) this.shown = { seat: this.seat, step: this.step };
    if (animating) {
      try {
        module.animate([{ version: data.version, seat: data.seat, events: data.events }], {
          root: app.querySelector(".replay-table"),
          before,
          ctx: this.ctx(),
        });
      } catch (error) {
        console.error("could not animate the move", error);
      }
    }
  }

  /** Keep the current move in sight in the feed (scrolling the feed only, not the page). */
  showCurrentMove(app) {
    const list = app.querySelector(".replay-feed ol");
    const item = list && list.querySelector("[aria-current=step]");
    if (!item) return;
    const top = item.offsetTop;
    const bottom = top + item.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  names(seat) {
    return seatName(this.record, seat);
  }

  /** What the game module may read and do (./table.js, gameCtx): nothing it offers can be
   * played; a spectator's ctx for a spectator's view and for everything revealed. */
  ctx(seat = this.seat) {
    return gameCtx({ you: typeof seat === "number" ? seat : null, names: (s) => this.names(s) });
  }

  gameName() {
    const games = this.env.games ? this.env.games() : null;
    const game = (games || []).find((g) => g.id === this.record.game_id);
    return game ? game.name : this.record.game_id;
  }

  headerView() {
    return h(
      "div",
      { class: "bar" },
      brandLink(() => this.env.home()),
      h("span", { class: "bar-code", "aria-label": `Room ${this.code}` }, this.code),
      h("span", { class: "bar-replay" }, `Replay of game ${this.number}`),
    );
  }

  errorView() {
    const { code } = this.error;
    const room = h("a", { href: `/r/${encodeURIComponent(this.code)}`, "data-room-link": "" }, `Go to room ${this.code}`);
    const home = h("a", { href: "/", "data-home-link": "" }, "Back to the start");
    let text;
    let links = [room, home];
    if (code === "not_over") text = `Game ${this.number} is still being played — come back when it is over.`;
    else if (code === "no_room") {
      text = `There is no room ${this.code} (or it has expired), so there is no replay to watch.`;
      links = [home];
    } else if (code === "no_game") text = `Room ${this.code} has no record of game ${this.number}.`;
    else if (code === "network") text = `Could not load the game's record: ${this.error.text}`;
    else text = `Could not load the game's record: ${this.error.text || code}`;
    return h(
      "div",
      { class: "entry replay-error", "data-replay-error": code },
      h("h1", { tabindex: -1 }, `Replay of game ${this.number} · room ${this.code}`),
      h("p", { role: "alert" }, text),
      h("p", { class: "button-row" }, links),
    );
  }

  screenView(module, data) {
    return h(
      "div",
      { class: "replay", key: "replay" },
      this.headView(),
      this.tableView(module, data),
      this.feedView(module),
      this.downloadView(),
      this.barView(),
    );
  }

  headView() {
    const record = this.record;
    const deal = this.deal;
    const check =
      deal.state === "ok"
        ? h("p", { class: "deal-check ok", "data-deal-check": "ok", role: "status" }, "Deal verified ✓")
        : deal.state === "failed"
          ? h("p", { class: "deal-check failed", "data-deal-check": "failed", role: "status" }, `Deal not verified ✗: ${deal.reason}`)
          : deal.state === "unchecked"
            ? h("p", { class: "deal-check", "data-deal-check": "unchecked", role: "status" }, `Deal not checked by this browser: ${deal.reason}`)
            : h("p", { class: "deal-check", "data-deal-check": "checking", role: "status" }, "Checking the deal…");
    return h(
      "section",
      { class: "replay-head", "aria-labelledby": "replay-title", key: "head" },
      h("h1", { id: "replay-title", tabindex: -1 }, `${this.gameName()} · game ${this.number}`),
      h(
        "p",
        { class: "muted replay-players" },
        `Room ${this.code}: ${listNames(record.seats.map((s) => (s.bot ? `${s.name} (bot)` : s.name)))}. `,
        h("a", { href: `/r/${encodeURIComponent(this.code)}` }, "Go to the room"),
      ),
      h(
        "div",
        { class: "replay-deal" },
        check,
        record.commitment ? h("p", { class: "muted", "data-commitment": "" }, `Deal sealed: ${record.commitment.slice(0, 8)}…`) : null,
      ),
    );
  }

  /** The record itself, to keep or to check with the command-line tool. */
  downloadView() {
    const file = `parlor-${this.code}-${this.number}.json`;
    return h(
      "p",
      { class: "replay-download", key: "download" },
      h("a", { href: `${this.base}/record`, download: file, "data-download-record": "" }, "Download record"),
      h("span", { class: "muted" }, " — check it yourself with ", h("code", null, `parlor verify ${file}`)),
    );
  }

  /** The view to draw: the step's, with no move offered (the moves were made long ago). */
  drawn(data) {
    data.drawn ||= { ...data.view, legal: [] };
    return data.drawn;
  }

  tableView(module, data) {
    const entry = this.pageOf(this.seat, Math.floor(this.step / PAGE));
    const ctx = this.ctx();
    let parts = { middle: null, tray: null };
    let banner = null;
    let strip = null;
    if (this.tableError) {
      parts.middle = h("p", { class: "error" }, this.tableError);
    } else if (!knownGame(this.record.game_id)) {
      parts.middle = noTable(this.record.game_id, false);
    } else if (entry && entry.state === "failed") {
      parts.middle = h(
        "div",
        { class: "replay-failed", "data-replay-failed": "" },
        h("p", { class: "error", role: "alert" }, `Could not load this view: ${entry.error}`),
        button("Try again", () => this.retry()),
      );
    } else if (!module || !data) {
      parts.middle = noTable(this.record.game_id, true);
    } else {
      const view = this.drawn(data);
      parts = tableParts(module, view, ctx, "This step could not be drawn.");
      strip = this.stripView(module, view, ctx);
      banner = view.over ? this.resultView(view, module, ctx) : this.turnLine(view);
    }
    const line = this.feedLine(module, this.step);
    const shown = data && module ? String(this.step) : null;
    return h(
      "section",
      {
        class: "table-area replay-table",
        "aria-label": "The table",
        "aria-busy": shown === null ? "true" : "false",
        key: "table",
        "data-shown-step": shown,
        "data-shown-seat": shown === null ? null : seatParam(this.seat),
      },
      strip,
      h("p", { class: "ticker replay-now", "data-replay-now": "" }, line ? line.text : ""),
      banner,
      this.seat === "spectator" ? h("p", { class: "spectating" }, "As a spectator saw it.") : null,
      h("div", { class: "table-middle", key: "middle" }, parts.middle),
      parts.tray ? h("div", { class: "tray replay-tray", key: "tray" }, h("div", { class: "tray-hand" }, parts.tray)) : null,
    );
  }

  turnLine(view) {
    const who = (view.to_act || []).map((s) => this.names(s));
    return h("p", { class: "turn-banner", "data-turn": "other" }, who.length ? `${listNames(who)} to play.` : "");
  }

  resultView(view, module, ctx) {
    const result = view.result || this.record.result;
    if (!result) return h("p", { class: "turn-banner over", "data-turn": "over" }, "The game is over.");
    const headline = winHeadline(result, (s) => this.names(s));
    const summary = gameSummary(module, view, ctx);
    return h(
      "section",
      { class: "panel results replay-result", "data-replay-result": "", "aria-labelledby": "replay-result-title", key: "result" },
      h("h2", { id: "replay-result-title" }, `Game over: ${headline}`),
      h("p", { class: "muted" }, namedReason(result.reason, this.record.seats)),
      standingsTable(result, (seat) => this.names(seat), module.scoreName),
      summary ? h("div", { class: "results-summary" }, summary) : null,
    );
  }

  /** The players across the top (all but the seat whose view this is), as at the live table
   * (./table.js): the record knows only who was a bot. */
  stripView(module, view, ctx) {
    return seatStrip(this.record.seats, view, ctx, module, (seat, index) => ({
      status: seat.bot ? "bot" : "online",
      name: seat.name,
      key: `o${index}`,
    }));
  }

  /** Every move in words, from the record (once the game's module is here). */
  feedLines(module) {
    if (this.feed || !module) return this.feed;
    const ctx = this.ctx("spectator");
    const record = this.record;
    const lines = [{ step: 0, seat: null, text: "The cards are dealt." }];
    record.actions.forEach((done, index) => {
      const said = [];
      for (const event of done.events || []) {
        try {
          const text = module.eventText ? module.eventText(event, done.seat, ctx) : null;
          if (text) said.push(text);
        } catch (error) {
          console.error("could not put an event in words", error);
        }
      }
      const name = this.names(done.seat);
      let text = said.length ? said.join(". ") : `${name}: ${(done.action && done.action.type) || "a move"}`;
      const seat = record.seats[done.seat];
      if (done.by !== "act" && seat && !seat.bot) text += " (a bot played for them)";
      lines.push({ step: index + 1, seat: done.seat, text });
    });
    this.feed = lines;
    return lines;
  }

  feedLine(module, step) {
    const lines = this.feedLines(module);
    return lines ? lines[step] : null;
  }

  feedView(module) {
    const lines = this.feedLines(module);
    const upTo = lines ? lines.slice(0, this.step + 1) : [];
    return h(
      "details",
      {
        class: "panel replay-feed",
        key: "feed",
        open: this.feedOpen,
        ontoggle: (e) => this.setFeedOpen(e.target.open),
      },
      h("summary", null, `Moves so far (${this.step})`),
      h(
        "ol",
        { class: "game-log replay-moves", "aria-label": "The moves up to this step, latest last", key: "moves" },
        lines
          ? upTo.map((line) =>
              h(
                "li",
                { key: `f${line.step}`, class: line.step === this.step ? "now" : null, "aria-current": line.step === this.step ? "step" : null },
                h(
                  "button",
                  { type: "button", class: "feed-step", "data-step": String(line.step), onclick: () => this.go(line.step) },
                  h("span", { class: "feed-number" }, line.step ? `${line.step}.` : "·"),
                  " ",
                  line.text,
                ),
              ),
            )
          : h("li", { class: "muted" }, "Loading the moves…"),
      ),
    );
  }

  barView() {
    const total = this.total;
    const step = this.step;
    const control = (text, label, to, enabled, key) =>
      button(text, () => enabled && this.go(to), {
        key,
        class: "replay-step-button",
        "aria-label": label,
        "aria-disabled": enabled ? null : "true",
        "data-replay": key,
      });
    const seats = this.record.seats;
    const choices = [
      ...seats.map((s, i) => ({ value: String(i), text: `${s.name}'s view` })),
      { value: "spectator", text: "Spectator" },
      { value: "all", text: "Everything revealed" },
    ];
    const chosen = seatParam(this.seat);
    return h(
      "nav",
      { class: "replay-bar", "aria-label": "Replay controls", key: "bar" },
      h(
        "div",
        { class: "replay-bar-row" },
        h("span", { class: "replay-counter", "data-step-counter": "", role: "status" }, `Step ${step} of ${total}`),
        h("label", { class: "visually-hidden", for: "replay-seat" }, "Whose view"),
        h(
          "select",
          {
            id: "replay-seat",
            class: "replay-seat",
            "data-replay-seat": "",
            value: chosen,
            onchange: (e) => this.chooseSeat(parseSeat(e.target.value, seats.length)),
          },
          choices.map((c) => h("option", { value: c.value, selected: c.value === chosen }, c.text)),
        ),
      ),
      h("input", {
        type: "range",
        class: "replay-slider",
        min: 0,
        max: total,
        step: 1,
        value: String(step),
        "aria-label": "Step",
        "aria-valuetext": `Step ${step} of ${total}`,
        "data-replay-slider": "",
        oninput: (e) => this.go(Number(e.target.value)),
      }),
      h(
        "div",
        { class: "replay-buttons" },
        control("First", "First step", 0, step > 0, "first"),
        control("◀ Back", "Back one step", step - 1, step > 0, "back"),
        control("Forward ▶", "Forward one step", step + 1, step < total, "forward"),
        control("Last", "Last step", total, step < total, "last"),
      ),
    );
  }
}

// The keyboard: ← → one step, Home and End the first and last (not while typing or choosing
// in a control that uses those keys itself, such as the slider).
document.addEventListener("keydown", (e) => {
  const viewer = current;
  if (!viewer || !active(viewer) || !viewer.record || e.defaultPrevented) return;
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const target = e.target;
  if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) return;
  const moves = { ArrowLeft: viewer.step - 1, ArrowRight: viewer.step + 1, Home: 0, End: viewer.total };
  if (!(e.key in moves)) return;
  e.preventDefault();
  viewer.go(moves[e.key]);
});

/**
 * Show the replay of game `number` of room `code`. `env`: `home()` goes to the start page,
 * `games()` the game list if main.js has it (for the game's name). Returns the viewer, whose
 * `draw()` redraws the page.
 */
export function openReplay(code, number, env) {
  current = new Viewer(code, number, env);
  current.start();
  return current;
}
