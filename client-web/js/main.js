// Wires the page together: the route (home or /r/CODE), what the browser remembers, the room
// connection, and the drawing functions. The model lives here; the views only read it and call
// the intents below; the connection only reports messages.

import * as api from "./api.js";
import { RoomConnection } from "./connection.js";
import { patch } from "./dom.js";
import { remembered } from "./store.js";
import { clockText, secondsLeft } from "./views/common.js";
import { gameModule, loadGame } from "./views/games/index.js";
import { homeView } from "./views/home.js";
import { loadQr } from "./views/lobby.js";
import { headerView, roomView, screenOf } from "./views/room.js";

const CODE_ALPHABET = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{5}$/;
// Join refusals after which the way in is to watch (server/protocol.py ErrorCode).
const JOIN_REFUSALS = new Set(["in_progress", "room_full", "room_locked"]);

const model = {
  route: "home",
  games: null,
  gamesError: "",
  gameInfo: null,
  name: remembered.name(),
  // turnTimer null: the game's own default (the server's; the page does not know it).
  home: { gameId: null, options: {}, turnTimer: null, code: "", busy: false, error: "" },
  room: null,
};

let connection = null;
let errorTimer = null;
let errorCount = 0;
let noteCount = 0;
let countdownTimer = null;

// -- drawing --------------------------------------------------------------------------------------

function render() {
  const room = model.room;
  if (room && room.state) {
    model.gameInfo = (model.games || []).find((g) => g.id === room.state.room.game) || null;
  }
  const app = document.getElementById("app");
  const chatLog = app.querySelector(".chat-log");
  const stuck = chatLog ? chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 24 : true;
  patch(document.getElementById("top"), headerView(model, intents));
  patch(app, model.route === "home" ? homeView(model, intents) : roomView(model, intents));
  const log = app.querySelector(".chat-log");
  if (log && stuck) log.scrollTop = log.scrollHeight;
  const body = document.body.dataset;
  const screen = model.route === "home" ? "home" : screenOf(model);
  const lost = !document.activeElement || document.activeElement === document.body;
  if (body.screen && body.screen !== screen && lost) {
    // A new screen (lobby to table, say): start keyboard and screen-reader users at its top.
    app.focus({ preventScroll: true });
  }
  body.screen = screen;
  body.busy = room && room.busy ? "true" : "false";
  body.version = room && room.state ? String(room.state.version) : "0";
  const view = room && room.state && room.state.view;
  const myTurn = Boolean(view && !view.over && (view.legal || []).some((a) => a.type !== "undo"));
  body.myTurn = myTurn ? "true" : "false";
  // Plain facts for end-to-end tests and tools to wait on.
  body.you = room && room.state && room.state.you !== null ? String(room.state.you) : "";
  body.toAct = JSON.stringify(view ? view.to_act : []);
  body.over = view && view.over ? "true" : "false";
  body.game = room && room.state ? room.state.room.game : "";
  document.title = room ? `${myTurn ? "● Your turn · " : ""}Room ${room.code} · Parlor` : "Parlor";
  tickCountdowns();
}

/** Keep every countdown on the page current: once a second, only their text is touched (the
 * rest of the page is redrawn when a message comes, not by the clock). */
function tickCountdowns() {
  clearTimeout(countdownTimer);
  countdownTimer = null;
  const now = performance.now();
  let next = Infinity;
  for (const el of document.querySelectorAll("[data-countdown]")) {
    const at = Number(el.dataset.countdown);
    const left = secondsLeft(at, now);
    const text = clockText(left);
    if (el.textContent !== text) el.textContent = text;
    el.parentElement.classList.toggle("low", left <= 10);
    // The shown whole seconds change when the time left crosses the next whole second.
    if (left > 0) next = Math.min(next, at - now - (left - 1) * 1000);
  }
  if (next < Infinity) countdownTimer = setTimeout(tickCountdowns, next + 15);
}

function showError(text) {
  errorCount += 1;
  model.room.error = { text, id: errorCount };
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => {
    if (model.room) model.room.error = null;
    render();
  }, 8000);
}

// -- routes ---------------------------------------------------------------------------------------

function normalizeCode(raw) {
  return raw.trim().toUpperCase().replace(/[\s-]/g, "");
}

function codeFromPath() {
  const match = location.pathname.match(/^\/r\/([^/]+)\/?$/);
  return match ? normalizeCode(decodeURIComponent(match[1])) : null;
}

function newRoom(code) {
  return {
    code,
    link: `${location.origin}/r/${code}`,
    status: "connecting",
    entry: "in",
    entryError: "",
    summary: null,
    notice: "",
    canWatch: false,
    state: null,
    // performance.now() time at which the seats to act run out of time (null: no timer).
    deadlineAt: null,
    // "A bot played N moves for you", once per absence: {count, id}.
    covered: null,
    away: { was: false, covered: 0, told: false },
    chat: null,
    recent: {},
    announce: "",
    busy: false,
    error: null,
    legalKey: "",
    ui: { game: {}, copied: false, confirmLeave: false, confirm: null },
  };
}

function stopConnection() {
  if (connection) connection.stop();
  connection = null;
}

function goHome(push = true) {
  stopConnection();
  model.route = "home";
  model.room = null;
  if (push && location.pathname !== "/") history.pushState(null, "", "/");
  render();
}

/** Show room `code`; `how` is "join" (take a seat with the remembered name) or "look". */
async function openRoom(code, how = "look", push = true) {
  stopConnection();
  model.route = "room";
  model.room = newRoom(code);
  if (push && location.pathname !== `/r/${code}`) history.pushState(null, "", `/r/${code}`);
  if (!CODE_ALPHABET.test(code)) {
    model.room.notice = `"${code}" is not a room code: codes are five letters and digits.`;
    render();
    return;
  }
  loadQr().then(render, (error) => console.error("could not load the QR code maker", error));
  const token = remembered.token(code);
  if (token) {
    connect({ type: "resume", token });
  } else if (how === "join" && model.name.trim()) {
    connect({ type: "join", name: model.name.trim(), key: remembered.joinKey(code) });
  } else {
    await ask();
  }
  render();
}

/** No seat here yet: look the room up and offer to join or watch. */
async function ask(reason = "") {
  const room = model.room;
  stopConnection();
  room.entry = "ask";
  room.entryError = reason;
  room.state = null;
  render();
  try {
    const summary = await api.fetchRoom(room.code);
    if (model.room !== room) return;
    if (!summary) {
      room.notice = "There is no room with this code (or it has expired).";
    } else {
      room.summary = summary;
    }
  } catch (error) {
    room.entryError = `Could not look up the room: ${error.message}`;
  }
  render();
}

// -- the connection -------------------------------------------------------------------------------

function connect(entry) {
  const room = model.room;
  room.entry = "in";
  room.status = "connecting";
  const conn = new RoomConnection(room.code, {
    onMessage: (msg) => {
      if (connection === conn) receive(msg);
    },
    onStatus: (status) => {
      if (connection !== conn) return;
      room.status = status;
      room.busy = conn.busy;
      render();
    },
    onProblem: (text) => {
      console.error(text);
      if (connection === conn) {
        showError(`Something went wrong talking to the server (${text}).`);
        render();
      }
    },
  });
  connection = conn;
  conn.open(entry);
}

// The game's table is fetched with the room's first snapshot; the page is redrawn when it comes.
function drawWhenLoaded(room, game) {
  loadGame(game).then(
    (module) => {
      if (module && model.room === room) render();
    },
    (error) => {
      console.error("could not load the game's table", error);
      if (model.room === room) {
        showError("The game's table could not be loaded; check the connection and reload the page.");
        render();
      }
    },
  );
}

function describeChange(prev, next) {
  const room = model.room;
  const module = gameModule(next.game);
  if (!prev || !module || prev.game !== next.game) return;
  let notes = [];
  try {
    notes = module.describe(prev, next);
  } catch (error) {
    console.error("could not describe a change", error);
  }
  for (const note of notes) {
    room.recent[note.seat] = { text: note.text, at: Date.now() };
    const who = note.seat === room.state.you ? "You" : room.state.room.seats[note.seat]?.name;
    room.announce = `${who}: ${note.text}`;
  }
}

function receive(msg) {
  const room = model.room;
  switch (msg.type) {
    case "welcome":
      if (msg.token) {
        remembered.setToken(room.code, msg.token);
        connection.entry = { type: "resume", token: msg.token };
      }
      break;
    case "state": {
      // Versions never go back on one connection; a new connection's first state is the new
      // baseline (after a store failover it may be older than what this page saw).
      const fresh = connection.fresh;
      const prev = fresh ? null : room.state;
      connection.fresh = false;
      if (prev && msg.version < prev.version) return;
      room.state = msg;
      if (!gameModule(msg.room.game)) drawWhenLoaded(room, msg.room.game);
      // Counted from when the message arrived, on this page's monotonic clock: the device's
      // wall clock may be off by minutes.
      const left = msg.room.deadline - msg.room.now;
      room.deadlineAt = msg.room.deadline > 0 ? performance.now() + left * 1000 : null;
      noteCovered(room, msg, fresh);
      connection.knowLastSeq(msg.last_seq || 0);
      // The same version comes again when only presence changed: nothing was played.
      const played = prev && prev.version !== msg.version && prev.room.round === msg.room.round;
      const prevView = played ? prev.view : null;
      if (msg.view && prevView) describeChange(prevView, msg.view);
      if (!prev || prev.room.round !== msg.room.round) room.recent = {};
      const key = JSON.stringify(msg.view ? msg.view.legal : null);
      if (key !== room.legalKey) {
        room.legalKey = key;
        room.ui.game = {};
      }
      break;
    }
    case "chat":
      room.chat = msg;
      break;
    case "ack":
      room.busy = connection.busy;
      if (msg.duplicate && !msg.resent) {
        showError("That move had already been made (perhaps in another tab).");
      }
      break;
    case "error":
      room.busy = connection.busy;
      handleError(msg);
      break;
    case "left":
      remembered.forgetToken(room.code);
      goHome();
      return;
    default:
      break;
  }
  render();
}

/** Tell a returning player, once, how many moves a bot made for them: on the first state after
 * entering (a reload, a reopened link, a reconnect) or when their seat stops being away. */
function noteCovered(room, msg, fresh) {
  const seat = msg.you === null ? null : msg.room.seats[msg.you];
  const away = room.away;
  if (!seat) return;
  let count = 0;
  if (fresh && seat.covered > 0) count = seat.covered;
  else if (away.was && !seat.away && !away.told) count = away.covered;
  if (count > 0) {
    noteCount += 1;
    room.covered = { count, id: noteCount };
    away.told = true;
  }
  if (seat.away) {
    away.was = true;
    away.covered = seat.covered;
  } else {
    room.away = { was: false, covered: 0, told: false };
  }
}

/** A refusal in words; a refused move says so plainly (it may have been sent again after a
 * reconnect, and a bot may have played that turn meanwhile). */
function refusalText(msg) {
  const text = msg.message || msg.code;
  const command = msg.command;
  if (command && command.type === "act") return `Your move was not made: ${text}`;
  if (command && command.type === "chat") return `Your message was not sent: ${text}`;
  return text;
}

function handleError(msg) {
  const room = model.room;
  switch (msg.code) {
    case "bad_token":
      remembered.forgetToken(room.code);
      ask("Your seat in this room is gone. You can take a new seat or watch.");
      return;
    case "no_room":
      stopConnection();
      room.notice = "There is no room with this code (or it has expired).";
      return;
    case "kicked":
      remembered.forgetToken(room.code);
      stopConnection();
      room.notice = "You are no longer seated in this room.";
      room.canWatch = true;
      return;
    case "conflict":
    case "unavailable":
      // Seated commands are resent by the connection until answered; this is the last try.
      showError("The server could not save that just now; try again in a moment.");
      // Fetch the room as it is after a command's last try; not after a refused sync itself,
      // which would only ask again at once for as long as the store is down.
      if (typeof msg.seq === "number") connection.send({ type: "sync" });
      return;
    default:
      if (JOIN_REFUSALS.has(msg.code) && !room.state) {
        ask(msg.message);
        return;
      }
      showError(refusalText(msg));
  }
}

// -- what the views may ask for --------------------------------------------------------------------

const intents = {
  setName(name) {
    model.name = name;
    remembered.setName(name.trim());
  },
  pickGame(id) {
    const game = model.games.find((g) => g.id === id);
    model.home.gameId = id;
    model.home.options = { ...(game ? game.default_options : {}) };
    render();
  },
  setHomeOption(name, value) {
    model.home.options[name] = value;
  },
  setHomeTimer(value) {
    model.home.turnTimer = value;
  },
  setHomeCode(code) {
    model.home.code = code;
  },
  async createRoom() {
    const home = model.home;
    if (!model.name.trim()) {
      home.error = "Type your name first, so friends know who you are.";
      render();
      document.getElementById("player-name")?.focus();
      return;
    }
    home.busy = true;
    home.error = "";
    render();
    try {
      const created = await api.createRoom(home.gameId, home.options, home.turnTimer);
      home.busy = false;
      await openRoom(created.code, "join");
    } catch (error) {
      home.busy = false;
      home.error = `Could not create the room: ${error.message}`;
      render();
    }
  },
  joinByCode() {
    const code = normalizeCode(model.home.code);
    if (!CODE_ALPHABET.test(code)) {
      model.home.error = "A room code is five letters and digits, like K7MPQ.";
      render();
      document.getElementById("room-code")?.focus();
      return;
    }
    model.home.error = "";
    openRoom(code, "join");
  },
  join() {
    if (!model.name.trim()) return;
    model.room.entryError = "";
    connect({ type: "join", name: model.name.trim(), key: remembered.joinKey(model.room.code) });
    render();
  },
  watch() {
    model.room.notice = "";
    connect({ type: "watch" });
    render();
  },
  takeSeat() {
    stopConnection();
    ask();
  },
  leave() {
    const room = model.room;
    if (room.state && room.state.you !== null && connection && connection.send({ type: "leave" })) {
      return; // "left" comes back, then we go home
    }
    remembered.forgetToken(room.code);
    goHome();
  },
  goHome: () => goHome(),
  act(action) {
    const room = model.room;
    if (!connection || room.busy) return;
    connection.act(action);
    if (connection.status !== "open") showError("Not connected right now; it will be sent on reconnecting…");
    room.busy = true;
    room.ui.game = {};
    render();
  },
  send(msg) {
    if (!connection || !connection.send(msg)) showError("Not connected right now; reconnecting…");
    render();
  },
  chat(text) {
    if (!connection || connection.status !== "open") return false;
    connection.command({ type: "chat", text });
    return true;
  },
  setGameUi(patchUi) {
    Object.assign(model.room.ui.game, patchUi);
    render();
  },
  setRoomUi(patchUi) {
    Object.assign(model.room.ui, patchUi);
    render();
  },
  dismissError() {
    model.room.error = null;
    render();
  },
  /** Ask before a host action on a seat ({id, what}), or stop asking (null); `focusKey` is the
   * keyed control to put the keyboard focus back on. */
  confirm(asking, focusKey = null) {
    model.room.ui.confirm = asking;
    render();
    if (focusKey) document.querySelector(`#app [data-key="${CSS.escape(focusKey)}"]`)?.focus();
  },
  dismissCovered() {
    model.room.covered = null;
    render();
  },
  async copyLink() {
    const room = model.room;
    try {
      await navigator.clipboard.writeText(room.link);
    } catch {
      // Clipboard API needs a secure context; the old way works on plain http.
      const area = document.createElement("textarea");
      area.value = room.link;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    room.ui.copied = true;
    render();
    setTimeout(() => {
      room.ui.copied = false;
      if (model.room === room) render();
    }, 2500);
  },
};

// -- start ----------------------------------------------------------------------------------------

async function loadGames() {
  try {
    model.games = await api.fetchGames();
    if (!model.home.gameId && model.games.length) intents.pickGame(model.games[0].id);
  } catch (error) {
    model.gamesError = `Could not load the games: ${error.message}`;
  }
  render();
}

function route(push) {
  const code = codeFromPath();
  if (code) openRoom(code, "look", push);
  else goHome(push);
}

window.addEventListener("popstate", () => route(false));
route(false);
loadGames();
