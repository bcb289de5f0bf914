// Wires the page together: the route (home, /r/CODE, /r/CODE#claim=CODE to take a seat moved
// from another device, or /r/CODE/replay/N for the replay viewer), what the browser remembers, the room connection, and the drawing functions. The
// model lives here; the views only read it and call the intents below; the connection only
// reports messages.

import * as api from "./api.js";
import { RoomConnection } from "./connection.js";
import { checkDeal, checkViews, contributionCommitmentOf, newContribution, viewDigest } from "./fairplay.js";
import { patch } from "./dom.js";
import { snapshot } from "./motion.js";
import { remembered } from "./store.js";
import { byText, dialable } from "./views/bytext.js";
import { clockText, listNames, secondsLeft, whoWithin } from "./views/common.js";
import { gameModule, loadGame, turnActions } from "./views/games/index.js";
import { homeView } from "./views/home.js";
import { canShare, loadQr } from "./views/lobby.js";
import { gameContext, headerView, roomView, screenOf } from "./views/room.js";

const CODE_ALPHABET = /^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{5}$/;
// A device move's link: the room's, with the one-time code after #claim= (a fragment is never
// sent to a server, so the code stays out of logs and Referer headers).
const CLAIM_HASH = /^#claim=([A-Za-z0-9-]{1,40})$/;
// How long a device move's code works (the server's HANDOFF_TTL), and a minute more.
const HANDOFF_MS = 16 * 60 * 1000;
// Join refusals after which the way in is to watch (server/protocol.py ErrorCode).
const JOIN_REFUSALS = new Set(["in_progress", "room_full", "room_locked"]);
// Where the side things (players, chat, log) have a column of their own instead of sheets:
// desktops, and phones held sideways. Keep in step with app.css.
const WIDE = typeof matchMedia === "function" ? matchMedia("(min-width: 900px), (orientation: landscape) and (min-width: 600px)") : null;
// The game log keeps this many lines (a long game is cut from the start).
const LOG_LINES = 200;

const model = {
  route: "home",
  games: null,
  gamesError: "",
  gameInfo: null,
  name: remembered.name(),
  // Sound and vibration when it becomes your turn (off unless the person turns it on).
  turnAlert: remembered.turnAlert(),
  // Phone numbers saved in this browser to send turns by text: {name in lower case: number}.
  phones: remembered.phones(),
  // turnTimer null: the game's own default (the server's; the page does not know it). mode:
  // "live" or "turns" (by text), whose timer is textTimer. seats: your games, as
  // POST /api/mine tells them (null until it has). claim: a code from another device.
  home: {
    gameId: null,
    options: {},
    turnTimer: null,
    mode: "live",
    textTimer: 0,
    code: "",
    busy: false,
    error: "",
    seats: null,
    claim: { room: "", code: "", error: "", open: false },
  },
  room: null,
};

let connection = null;
let errorTimer = null;
let errorCount = 0;
let noteCount = 0;
let countdownTimer = null;
let lineCount = 0;
// The replay viewer while it is the page (views/replay.js, loaded when it is first needed).
let replay = null;

// -- drawing --------------------------------------------------------------------------------------

function render() {
  if (model.route === "replay") {
    if (replay) replay.draw();
    return;
  }
  const room = model.room;
  if (room && room.state) {
    model.gameInfo = (model.games || []).find((g) => g.id === room.state.room.game) || null;
  }
  const app = document.getElementById("app");
  const body = document.body.dataset;
  const screen = model.route === "home" ? "home" : screenOf(model);
  if (room) countUnread(room, screen);
  const chatLog = app.querySelector(".chat-log");
  const stuck = chatLog ? chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 24 : true;
  const gameLog = app.querySelector(".game-log");
  const logStuck = gameLog ? gameLog.scrollHeight - gameLog.scrollTop - gameLog.clientHeight < 24 : true;
  // Motion: where everything on the table was, for the game to animate from (only for the
  // first drawing after a state message that brought events).
  const moved = room && room.animate;
  if (room) room.animate = null;
  const before = moved ? snapshot(app.querySelector(".table-area")) : null;
  const focused = document.activeElement;
  const inTable = Boolean(focused && focused !== document.body && focused.closest && focused.closest(".table-area"));
  const wasOver = body.over === "true";
  patch(document.getElementById("top"), headerView(model, intents));
  patch(app, model.route === "home" ? homeView(model, intents) : roomView(model, intents));
  const log = app.querySelector(".chat-log");
  if (log && stuck) log.scrollTop = log.scrollHeight;
  const newGameLog = app.querySelector(".game-log");
  if (newGameLog && logStuck) newGameLog.scrollTop = newGameLog.scrollHeight;
  if (moved) animate(moved, before);
  const view = room && room.state && room.state.view;
  const over = Boolean(view && view.over);
  if (body.screen !== screen) {
    screenChanged(app, body.screen);
  } else if (over && !wasOver) {
    // The results open over the table: at their top, with the focus on their heading.
    const results = app.querySelector("[data-results]");
    if (results) {
      results.scrollTop = 0;
      results.querySelector("h2")?.focus({ preventScroll: true });
    }
  } else if (inTable && (!document.activeElement || document.activeElement === document.body)) {
    keepFocusOnTable(app);
  }
  body.screen = screen;
  body.busy = room && room.sending ? "true" : "false";
  body.version = room && room.state ? String(room.state.version) : "0";
  // Until the game's table has arrived the page cannot say (nor offer) a move: not your turn yet.
  const module = room && room.state ? gameModule(room.state.room.game) : null;
  const myTurn = Boolean(view && !view.over && module && turnActions(module, view).length);
  body.myTurn = myTurn ? "true" : "false";
  // Plain facts for end-to-end tests and tools to wait on.
  body.you = room && room.state && room.state.you !== null ? String(room.state.you) : "";
  body.toAct = JSON.stringify(view ? view.to_act : []);
  body.over = over ? "true" : "false";
  body.game = room && room.state ? room.state.room.game : "";
  // By text the title says just that it is your turn, like the home page's "(2) Your turn".
  const waiting = room ? 0 : (model.home.seats || []).filter((g) => g.your_turn).length;
  if (!room) document.title = waiting ? `(${waiting}) Your turn · Parlor` : "Parlor";
  else if (myTurn && byText(room.state && room.state.room)) document.title = "Your turn · Parlor";
  else document.title = `${myTurn ? "● Your turn · " : ""}Room ${room.code} · Parlor`;
  setFavicon(myTurn || waiting > 0);
  // Only when the turn comes while the page looks on, not on entering (a reload, a link), and
  // only once the game's table is here to say whose turn it is.
  if (room && room.state && (module || !view)) {
    if (myTurn && room.myTurn === false) turnAlert();
    room.myTurn = myTurn;
  }
  tickCountdowns();
}

/** A new screen (lobby to table, say): start at its top, with the focus on its heading or
 * banner, unless the person is typing (a chat line, a name) in a box that is still there. */
function screenChanged(app, previous) {
  window.scrollTo(0, 0);
  const active = document.activeElement;
  const typing = active && active.isConnected && active.matches && active.matches("input[type=text], textarea");
  if (!previous || typing) return;
  const target = app.querySelector(".turn-banner, h1");
  if (target) target.focus({ preventScroll: true });
  else app.focus({ preventScroll: true });
}

/** After a move the control that was pressed is often gone: keep the keyboard on the table,
 * at the first thing that can be played now (or the table itself). */
function keepFocusOnTable(app) {
  const playable = (root) =>
    root
      ? [...root.querySelectorAll("[data-legal]")].find((el) => !el.disabled && el.tabIndex >= 0 && el.getClientRects().length)
      : null;
  const target = playable(app.querySelector(".tray")) || playable(app.querySelector(".table-middle")) || app.querySelector(".table-area");
  if (target) target.focus({ preventScroll: true });
}

/** The game's own motion for the events just received (see motion.js, games/index.js). */
function animate(entries, before) {
  const room = model.room;
  const module = room && room.state && gameModule(room.state.room.game);
  const root = document.querySelector("#app .table-area");
  if (!module || typeof module.animate !== "function" || !root) return;
  try {
    module.animate(entries, { root, before, ctx: gameContext(model, intents) });
  } catch (error) {
    console.error("could not animate the move", error);
  }
}

/** The chat lines come while the chat is out of sight (a closed sheet on a phone): count the
 * ones others wrote, for the badge on the chat button. */
function countUnread(room, screen) {
  const chat = room.chat;
  if (!chat) {
    room.unread = 0;
    return;
  }
  const visible = screen !== "table" || room.ui.sheet === "chat" || (WIDE && WIDE.matches);
  if (room.chatSeen === null || visible) {
    room.chatSeen = chat.total;
    room.unread = 0;
    return;
  }
  const fresh = Math.min(chat.total - room.chatSeen, chat.lines.length);
  // By seat id, not name: two players may share a name.
  const me = room.state && room.state.you !== null ? room.state.room.seats[room.state.you]?.id : null;
  room.unread = fresh > 0 ? chat.lines.slice(-fresh).filter((line) => line.id !== me).length : 0;
}

// The page's icon (a card with a P), with a dot on it while it is your turn: seen on a tab
// in the background.
const ICON = (dot) =>
  "data:image/svg+xml," +
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'>" +
      "<rect x='5' y='3' width='20' height='26' rx='3' fill='#1f5f4a'/>" +
      "<text x='15' y='22' font-size='14' text-anchor='middle' fill='white' font-family='sans-serif'>P</text>" +
      (dot ? "<circle cx='24' cy='8' r='7' fill='#d9480f' stroke='white' stroke-width='2'/>" : "") +
      "</svg>",
  );
let iconDot = null;

function setFavicon(dot) {
  if (iconDot === dot) return;
  iconDot = dot;
  const link = document.querySelector("link[rel=icon]");
  if (link) {
    link.href = ICON(dot);
    link.dataset.turn = dot ? "mine" : "";
  }
}

let audio = null;

/** A short beep and buzz when it becomes your turn, if the person asked for them. */
function turnAlert() {
  if (!model.turnAlert) return;
  try {
    if (navigator.vibrate) navigator.vibrate(120);
  } catch {
    // Not allowed here; the beep and the title still say it.
  }
  if (!audio) return; // made on the toggle's click: browsers allow sound after a gesture only
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.frequency.value = 880;
  gain.gain.setValueAtTime(0.08, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.18);
  osc.connect(gain).connect(audio.destination);
  osc.start();
  osc.stop(audio.currentTime + 0.2);
}

function wakeAudio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio ||= new Context();
    if (audio.state === "suspended") audio.resume();
  } catch {
    audio = null;
  }
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

/** `{code, number}` on a replay viewer's path (/r/CODE/replay/N), else null. */
function replayFromPath() {
  const match = location.pathname.match(/^\/r\/([^/]+)\/replay\/([^/]+)\/?$/);
  return match ? { code: normalizeCode(decodeURIComponent(match[1])), number: decodeURIComponent(match[2]) } : null;
}

/** The replay viewer of game `number` of room `code`: its module draws the page. */
async function openReplay(code, number) {
  stopConnection();
  model.route = "replay";
  model.room = null;
  replay = null;
  const app = document.getElementById("app");
  app.replaceChildren(Object.assign(document.createElement("p"), { className: "connecting", textContent: "Loading the replay…" }));
  let viewer;
  try {
    viewer = await import("./views/replay.js");
  } catch (error) {
    console.error("could not load the replay viewer", error);
    app.replaceChildren(Object.assign(document.createElement("p"), { className: "error", role: "alert", textContent: "The replay viewer could not be loaded; check the connection and reload the page." }));
    return;
  }
  if (model.route !== "replay" || replayFromPath()?.code !== code) return;
  replay = viewer.openReplay(code, number, { home: () => goHome(), games: () => model.games });
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
    // Per seat index, the performance.now() time at which a bot takes over a dropped player.
    takeoverAt: {},
    // "A bot played N moves for you", once per absence: {count, id}.
    covered: null,
    // Per server commitment, the contribution commitment this page sent for it; the server
    // commitment it has revealed for; and the check of the last deal ({round, pending} or
    // {round, ok, reason}).
    committing: {},
    revealing: null,
    dealCheck: null,
    // The seal of the game in play that was last noted (see seal()).
    sealNoted: null,
    away: { was: false, covered: 0, told: false },
    chat: null,
    // The chat total seen last (null: nothing yet) and the lines since, for the badge.
    chatSeen: null,
    unread: 0,
    // The game log, from the events of each state message (and the game's history after a
    // reload or a reconnect): [{id, seat, version, by, text}], oldest first.
    log: [],
    // What happened while you were away, told once on coming back: {id, forYou, lines, over}.
    digest: null,
    logRound: null,
    announce: "",
    // The events to animate at the next drawing.
    animate: null,
    // What this page sent and the server has not answered yet: null, or {action}, the game
    // move among it (null if it is another command). The one record of "sending": the frame
    // takes ctx.busy and ctx.pending from it, and aria-busy and data-busy (see noteSending).
    sending: null,
    // Whether it was your turn at the last drawing (null: not drawn yet), for the turn alert.
    myTurn: null,
    // Who last made a move themselves ({seat, version, round}; see noteMover), and whether
    // this page is taking a seat moved from another device.
    lastMover: null,
    claiming: false,
    error: null,
    legalKey: "",
    // phoneFor: whose number the number sheet edits; handoff: a device move's code shown once.
    ui: { game: {}, copied: false, confirmLeave: false, confirm: null, sheet: null, resultsHidden: false, sendCopied: null, phoneFor: null, phoneError: "", handoff: null, handoffCopied: false },
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
  findYourGames();
}

let gamesAsked = 0;

/** Your games: every room this browser holds a seat in, from one POST /api/mine with all the
 * tokens it keeps. A token that holds no seat any more (the room gone, the seat left or moved
 * to another device) is forgotten. Asked each time the home page is shown or comes back into
 * view; an answer overtaken by a newer question is dropped. */
async function findYourGames() {
  const seats = remembered.seats().filter((seat) => CODE_ALPHABET.test(seat.code)).slice(0, 100);
  const asked = ++gamesAsked;
  let reply = { games: [], forget: [], now: 0 };
  if (seats.length) {
    try {
      reply = await api.fetchYourGames(seats);
    } catch (error) {
      // Not known now: what is shown stays, and it is asked again on the next visit.
      console.warn("could not fetch your games", error);
      return;
    }
  }
  for (const code of reply.forget || []) {
    const sent = seats.find((seat) => seat.code === code);
    // Only the token that was asked about: one taken since (a device move) is kept.
    if (sent && remembered.token(code) === sent.token) remembered.forgetToken(code);
  }
  if (asked !== gamesAsked || model.route !== "home") return;
  // How long ago each last move was, on the server's clock (the device's may be off).
  model.home.seats = reply.games.map((game) => ({ ...game, ago: reply.now - game.moved_at }));
  render();
}

/** A device move (docs/protocol.md, "Another device"): exchange the one-time code `handoff` for
 * the seat in room `code`, keep the new token, and enter the room with it. */
async function claimAndOpen(code, handoff, push = true) {
  stopConnection();
  model.route = "room";
  model.room = newRoom(code);
  const room = model.room;
  room.claiming = true;
  // The code is used once: a reload must not send it again.
  if (push) history.pushState(null, "", `/r/${code}`);
  else history.replaceState(null, "", `/r/${code}`);
  render();
  try {
    const claimed = await api.claimSeat(code, handoff);
    if (model.room !== room) return;
    // Whatever this browser kept of the room before is another seat's, or this one's old token.
    remembered.forgetToken(code);
    remembered.setToken(code, claimed.token);
    openRoom(code, "look", false);
  } catch (error) {
    if (model.room !== room) return;
    room.claiming = false;
    if (error.status === 404) room.notice = "There is no room with this code (or it has expired).";
    else if (error.status === 403) room.notice = `${error.message}.`;
    else room.notice = `Could not move the seat to this device: ${error.message}`;
    render();
  }
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
      noteSending(room);
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

/** Note what is in flight, from the connection's unanswered commands (room.sending): after a
 * move is sent, and whenever an answer comes or the connection's status changes. */
function noteSending(room) {
  room.sending = connection && connection.busy ? { action: connection.actionInFlight } : null;
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

/** A context for putting one move in words: a move a bot made for a person (`by` not "act")
 * is said as "Bot for Ben …" ("Bot for you …"), never as theirs. */
function moveContext(ctx, entry, info) {
  const seat = entry.seat;
  const person = seat !== null && seat !== undefined && info.seats[seat] && !info.seats[seat].bot;
  if (!entry.by || entry.by === "act" || !person) return ctx;
  const forWhom = whoWithin(seat, ctx);
  return { ...ctx, you: seat === ctx.you ? null : ctx.you, names: (s) => (s === seat ? `Bot for ${forWhom}` : ctx.names(s)) };
}

/** The log lines of a list of moves ({version, seat, by, events}), in the game's words. */
function movesInWords(moves, info) {
  const module = gameModule(info.game);
  if (!module || typeof module.eventText !== "function") return [];
  const ctx = gameContext(model, intents);
  const lines = [];
  for (const entry of moves) {
    const said = moveContext(ctx, entry, info);
    for (const event of entry.events || []) {
      let text = null;
      try {
        text = module.eventText(event, entry.seat, said);
      } catch (error) {
        console.error("could not put an event in words", error);
      }
      if (text) lines.push({ id: ++lineCount, seat: entry.seat, version: entry.version, by: entry.by || "act", text });
    }
  }
  return lines;
}

/** What changed in who is here between two snapshots of one game, in words (docs/protocol.md,
 * "Seats"): a connection dropped, a bot took a seat over, a player back. */
function presenceLines(prev, info, you) {
  if (!prev || prev.round !== info.round || info.phase !== "playing") return [];
  const lines = [];
  info.seats.forEach((seat, i) => {
    const was = prev.seats[i];
    if (!was || was.id !== seat.id || seat.bot) return;
    const name = i === you ? "You" : seat.name;
    if (was.away && !seat.away) lines.push(`${name} ${i === you ? "are" : "is"} back.`);
    else if (!was.away && seat.away) lines.push(i === you ? "A bot plays for you until you are back." : `A bot plays for ${seat.name} until ${seat.name} is back.`);
    else if (was.connected && !seat.connected && i !== you) lines.push(`${seat.name}'s connection dropped.`);
  });
  return lines.map((text) => ({ id: ++lineCount, seat: null, text }));
}

/** The lines for the ticker and the log from a state message's events, in the game's words. */
function feed(room, msg, prev) {
  if (room.logRound !== msg.room.round) {
    // A new game (a rematch): a new log, and nothing left over from the last game's absences.
    room.log = [];
    room.logRound = msg.room.round;
    room.digest = null;
    room.covered = null;
    // The game's first line, shown in the ticker until the first move.
    if (msg.room.seal) room.log.push({ id: ++lineCount, seat: null, text: "Cards dealt. The deal is sealed: your browser checks it when the game ends." });
  }
  const lines = [...presenceLines(prev, msg.room, msg.you)];
  const entries = msg.events || [];
  const module = gameModule(msg.room.game);
  if (entries.length && module) room.animate = entries;
  lines.push(...movesInWords(entries, msg.room));
  if (!lines.length) return;
  room.log = room.log.concat(lines).slice(-LOG_LINES);
  room.announce = lines.map((line) => line.text).join(" ");
}

/** A page that (re)connects mid-game or after it: its log is rebuilt from the game's history
 * on the server (docs/protocol.md, "Game history"), not from its memory, and a player coming
 * back is told what happened since the last table this browser showed them (or, on a new
 * device, since their own last move). */
async function catchUp(room, msg) {
  const info = msg.room;
  const round = info.round;
  const seen = remembered.lastSeen(room.code);
  // The game's module puts the moves in words: wait for it as well as for the history.
  const [response] = await Promise.all([fetch(`/api/rooms/${room.code}/games/${round}/events`), loadGame(info.game)]);
  if (!response.ok) return;
  const history = await response.json();
  if (model.room !== room || !room.state || room.state.room.round !== round) return;
  const info2 = room.state.room;
  const lines = movesInWords(history.moves, info2);
  const opening = info2.seal || info.seal ? [{ id: ++lineCount, seat: null, text: "Cards dealt. The deal is sealed: your browser checks it when the game ends." }] : [];
  // What arrived on this connection since the snapshot stays after the history's lines.
  const newer = room.log.filter((line) => line.version !== undefined && line.version > (history.moves.length ? history.moves[history.moves.length - 1].version : 0));
  noteMover(room, history.moves, info2);
  room.log = [...opening, ...lines, ...newer].slice(-LOG_LINES);
  room.logRound = round;
  const you = room.state.you;
  if (you !== null) {
    let since = seen && seen.round === round ? seen.version : null;
    if (since === null) {
      const mine = history.moves.filter((m) => m.seat === you && (m.by || "act") === "act");
      since = mine.length ? mine[mine.length - 1].version : null;
    }
    if (since !== null) {
      const missed = history.moves.filter((m) => m.version > since);
      const forYou = missed.filter((m) => m.seat === you && m.by && m.by !== "act").length;
      const others = missed.filter((m) => m.seat !== you);
      if (missed.length && (forYou || others.length)) {
        noteCount += 1;
        room.digest = { id: noteCount, forYou, lines: movesInWords(missed, info2).map((l) => l.text), over: history.over };
      }
    }
  }
  render();
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
      msg.room.seats = msg.room.seats.map(seatOf);
      room.state = msg;
      if (!gameModule(msg.room.game)) drawWhenLoaded(room, msg.room.game);
      // Counted from when the message arrived, on this page's monotonic clock: the device's
      // wall clock may be off by minutes.
      const left = msg.room.deadline - msg.room.now;
      room.deadlineAt = msg.room.deadline > 0 ? performance.now() + left * 1000 : null;
      // When a bot takes over each dropped player's seat (docs/protocol.md, "Seats"), likewise.
      room.takeoverAt = {};
      for (const { seat, at } of msg.room.takeover || []) room.takeoverAt[seat] = performance.now() + (at - msg.room.now) * 1000;
      noteCovered(room, msg, fresh);
      noteMover(room, msg.events || [], msg.room);
      connection.knowLastSeq(msg.last_seq || 0);
      seal(room, msg);
      feed(room, msg, prev ? prev.room : null);
      if (fresh && msg.room.round > 0 && msg.room.phase !== "lobby") {
        catchUp(room, msg).catch((error) => console.error("could not fetch the game's history", error));
      }
      if (msg.you !== null && msg.room.phase !== "lobby") remembered.setLastSeen(room.code, msg.room.round, msg.version);
      if (!msg.view || !msg.view.over) room.ui.resultsHidden = false;
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
      noteSending(room);
      if (msg.command && msg.command.type === "handoff" && msg.handoff) handoffMade(room, msg.handoff);
      if (msg.command && msg.command.type === "reveal") revealAnswered(room, msg);
      if (msg.command && msg.command.type === "chat") chatTaken(msg.command.text);
      if (msg.duplicate && !msg.resent) {
        showError("That move had already been made (perhaps in another tab).");
      }
      break;
    case "error":
      noteSending(room);
      if (msg.command && msg.command.type === "handoff") room.ui.handoff = null;
      if (msg.command && msg.command.type === "reveal") revealAnswered(room, msg);
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

// -- fair deals (docs/fairplay.md) ----------------------------------------------------------------

/** Each state: remember the next deal's server commitment as seen before the deal; as a
 * seated person, commit to a secret value once, and reveal it once the commitments are locked
 * (after remembering the locked set); keep a digest of every view of the game; and check the
 * deal, and those views, once the game is over. */
function seal(room, msg) {
  const info = msg.room;
  const next = info.next_deal;
  const you = msg.you;
  if (next) {
    const round = info.round + 1;
    const known = remembered.seal(room.code, round);
    // A sealing this page revealed for and the server then replaced is remembered: the deal
    // of this round is not the one the page helped seal.
    const abandoned = known && known.seen !== next.commitment && known.revealedFor ? [...(known.abandoned || []), known.revealedFor] : known ? known.abandoned || [] : [];
    const kept = known && known.seen === next.commitment ? { ...known } : { seen: next.commitment, mine: null, hash: null, abandoned };
    const person = you !== null && info.seats[you] && !info.seats[you].bot;
    if (person && !next.locked && next.commitments[you] !== kept.hash && kept.hash !== "pending") {
      // Commit: to a value of this browser's, once per server commitment (a value the
      // server shows for the seat that this browser did not make is replaced by its own).
      const sentFor = room.committing[next.commitment];
      if (!sentFor || sentFor !== kept.hash) {
        kept.mine = kept.mine || newContribution();
        const value = kept.mine;
        contributionCommitmentOf(value).then((hash) => {
          const now = remembered.seal(room.code, round) || kept;
          if (now.mine !== value || model.room !== room) return;
          remembered.setSeal(room.code, round, { ...now, hash });
          room.committing[next.commitment] = hash;
          connection.send({ type: "commit", commitment: next.commitment, hash });
        });
      }
    }
    if (person && next.locked && kept.mine && kept.hash && next.locked[you] === kept.hash && !next.revealed[you]) {
      // Locked: remember the set (and who were bots) as seen before revealing, then reveal.
      if (!kept.locked) {
        kept.locked = next.locked.slice();
        kept.bots = info.seats.map((s) => Boolean(s.bot));
        // By seat id too: seat indexes shift when someone leaves the lobby.
        kept.lockedById = Object.fromEntries(info.seats.map((s, i) => [s.id, next.locked[i] || ""]));
        kept.revealedFor = next.commitment;
      }
      // Once per sealing, and again if a state the server sent after acknowledging the
      // reveal has no value for this seat (the store lost the write: a failover).
      const sent = room.revealing && room.revealing.commitment === next.commitment ? room.revealing : null;
      if (!sent || (revealLost(sent, msg) && sent.tries < REVEAL_TRIES)) {
        room.revealing = { commitment: next.commitment, acked: null, tries: (sent ? sent.tries : 0) + 1 };
        remembered.setSeal(room.code, round, kept);
        connection.send({ type: "reveal", value: kept.mine });
      }
    }
    remembered.setSeal(room.code, round, kept);
  }
  if (info.seal && info.phase === "playing" && room.sealNoted !== info.seal) {
    // A page that did not see the commitment before the deal keeps the seal it was shown
    // (looked at once per game, not at every move).
    room.sealNoted = info.seal;
    const known = remembered.seal(room.code, info.round);
    // With the game's seats, by id, in the record's order (no seat comes or goes in a game).
    const shown = known && known.seen ? {} : { shown: info.seal };
    remembered.setSeal(room.code, info.round, { ...(known || {}), ...shown, dealtIds: info.seats.map((s) => s.id) });
  }
  if ((info.phase === "playing" || info.phase === "finished") && msg.view && info.round > 0) {
    noteView(room.code, info.round, you, msg.version, msg.view);
  }
  const deal = info.deal;
  if (deal && info.phase === "finished" && deal.server_seed !== undefined) {
    if (room.dealCheck && room.dealCheck.round === deal.round) return;
    room.dealCheck = { round: deal.round, pending: true };
    checkAll(room, deal, you).then(
      (checked) => {
        if (model.room !== room || room.dealCheck.round !== deal.round) return;
        room.dealCheck = { round: deal.round, ...checked };
        render();
      },
      (error) => {
        if (model.room !== room || room.dealCheck.round !== deal.round) return;
        room.dealCheck = { round: deal.round, ok: false, reason: `the check could not run (${error.message})` };
        render();
      },
    );
  }
}

/** How many times a page sends its value for one sealing (the first, and after losses). */
const REVEAL_TRIES = 3;

/** Whether the state `msg` shows a reveal this page `sent` as lost: acknowledged at a version
 * the state has reached, and still not in it. */
function revealLost(sent, msg) {
  return sent.acked !== null && msg.version >= sent.acked;
}

/** The server answered this page's reveal: remember the version it was applied at, and if the
 * state already at hand is that new and lacks it, it was lost: send it again. */
function revealAnswered(room, msg) {
  const sent = room.revealing;
  if (!sent) return;
  if (msg.type === "error") {
    // Refused (the deal was called off, the value does not match…): sent again, it would be
    // refused again.
    sent.acked = null;
    return;
  }
  sent.acked = msg.version;
  if (room.state) seal(room, room.state);
}

// The view log is written in the order views arrive, each digest once it is computed.
let viewChain = Promise.resolve();

/** Keep the digest of a view this page was shown (in this browser's storage: it survives a
 * reload), for the end-of-game check and "Download my game". */
function noteView(code, round, seat, version, view) {
  viewChain = viewChain
    .then(() => viewDigest(view))
    .then((digest) => remembered.addView(code, round, seat, version, digest))
    .catch((error) => console.error("could not keep a view's digest", error));
}

/** The deal's check and, if it holds, the views' check against the record's replay. */
async function checkAll(room, deal, you) {
  await viewChain;
  const known = remembered.seal(room.code, deal.round) || {};
  const mine = known.mine && known.seen === deal.commitment ? known.mine : null;
  const checked = await checkDeal(deal, {
    room: room.code,
    seen: known.seen || null,
    shown: known.shown || null,
    locked: known.locked || null,
    bots: known.bots || null,
    seat: you,
    mine,
    seats: room.state ? room.state.room.seats : null,
    lockedById: known.lockedById || null,
    abandoned: known.seen === deal.commitment ? known.abandoned || null : null,
  });
  if (checked.ok === false) return checked;
  const log = remembered.views(room.code, deal.round);
  // The log is whole when it begins where this page began logging the game (the seal says
  // where) and nothing was dropped from it.
  const whole = log && log.views.length && log.seat === you && !log.truncated && (known.viewsFrom === undefined || (known.viewsSeat === you && log.views[0][0] === known.viewsFrom));
  if (!whole) {
    // No "✓" without the view check: the deal may be the sealed one and the tables shown
    // still not be the cards it deals.
    if (checked.ok !== true) return checked;
    return { ok: null, prior: checked.prior, reason: "this browser did not keep every table it showed you (its storage was full or unavailable), so they could not be compared with the record" };
  }
  const steps = await replaySteps(room.code, deal.round, you);
  const views = await checkViews(log.views, steps);
  if (!views.ok) return { ok: false, reason: views.reason };
  return { ...checked, views: views.checked };
}

/** Every step of a finished game's replay for `seat` (null: a spectator's), page by page. */
async function replaySteps(code, round, seat) {
  const steps = [];
  const who = seat === null ? "spectator" : String(seat);
  for (let from = 0; ; ) {
    const response = await fetch(`/api/rooms/${code}/games/${round}/replay?seat=${who}&from=${from}&count=500`);
    if (!response.ok) throw new Error(`the replay could not be fetched (${response.status})`);
    const page = await response.json();
    steps.push(...page.steps);
    from = steps.length;
    if (!page.steps.length || from >= page.total) return steps;
  }
}

/** "Download my game": the record and what this page saw of the game, in one file that
 * `parlor verify` checks offline (docs/fairplay.md). */
async function downloadMyGame(code, round) {
  const response = await fetch(`/api/rooms/${code}/games/${round}/record`);
  if (!response.ok) throw new Error(`the record could not be fetched (${response.status})`);
  const record = await response.json();
  const known = remembered.seal(code, round) || {};
  const log = remembered.views(code, round);
  // The locked set with each seat's id at the lock (seat ids rise in seat order), and the ids
  // of the game's seats: `parlor verify` compares the two seat by seat, as this page does.
  const byId = known.locked && known.lockedById ? known.lockedById : null;
  const seen = {
    seen: 2,
    room: code,
    game: round,
    seat: log ? log.seat : null,
    commitment: known.seen || null,
    commitments: byId ? Object.values(byId) : known.locked || null,
    contribution: known.mine && known.seen === record.commitment ? known.mine : null,
    views: log ? log.views : [],
    locked_seats: byId ? Object.keys(byId).map(Number) : null,
    dealt_seats: known.dealtIds && known.dealtIds.length === record.seats.length ? known.dealtIds : null,
  };
  const blob = new Blob([JSON.stringify({ record, seen }, null, 1)], { type: "application/json" });
  const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: `parlor-${code}-${round}-mine.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

/** The server took a chat line: empty the box, unless something else was typed meanwhile. */
function chatTaken(text) {
  const input = document.getElementById("chat-text");
  if (input && input.value === text) input.value = "";
}

/** A seat of `room.seats` as the rest of the page reads it: the server sends `bot`, `away`
 * and `covered` only when they hold (docs/protocol.md, "Seats"); here they are always there. */
function seatOf(seat, index) {
  return { seat: index, bot: false, away: false, connected: false, covered: 0, ...seat };
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

/** Who last made a move themselves (a person's own move, not a bot's nor one made for them),
 * from a list of moves ({version, seat, by}) of room `info`'s game: the page offers "Send to
 * Ben" when it was you. */
function noteMover(room, moves, info) {
  if (room.lastMover && room.lastMover.round !== info.round) room.lastMover = null;
  for (const entry of moves) {
    const seat = info.seats[entry.seat];
    const own = seat && !seat.bot && (entry.by || "act") === "act";
    if (!own || (room.lastMover && room.lastMover.version > entry.version)) continue;
    room.lastMover = { seat: entry.seat, version: entry.version, round: info.round };
  }
}

/** The server made a device move's one-time code: show it, and its link, once. */
function handoffMade(room, made) {
  const link = `${room.link}#claim=${made.code}`;
  room.ui.handoff = { code: made.code, link };
  room.ui.handoffCopied = false;
  // So that when the seat goes, this page says why.
  remembered.setMoving(room.code, HANDOFF_MS);
}

/** The seat this page played was taken away: moved to another device (this browser asked for
 * a code lately), else given up or removed. */
function seatGone(room, moved) {
  remembered.forgetToken(room.code);
  stopConnection();
  room.notice = moved ? "You moved this seat to another device. Play on there; this page can still watch." : "You are no longer seated in this room.";
  room.canWatch = true;
  room.ui.handoff = null;
}

/** The server's words may name seats ("It is seat 2's turn"): say their names instead. */
function namedSeats(text) {
  const seats = model.room && model.room.state ? model.room.state.room.seats : [];
  const you = model.room && model.room.state ? model.room.state.you : null;
  return String(text).replace(/\b([Ss])eat (\d+)('s)?/g, (all, s, n, poss) => {
    const index = Number(n) - 1;
    const seat = seats[index];
    if (!seat) return all;
    if (index === you) return poss ? "your" : "you";
    return `${seat.name}${poss || ""}`;
  });
}

/** A refusal in words; a refused move says so plainly (it may have been sent again after a
 * reconnect, and a bot may have played that turn meanwhile). */
function refusalText(msg) {
  const text = namedSeats(msg.message || msg.code);
  const command = msg.command;
  if (command && command.type === "act") return `Your move was not made: ${text}`;
  if (command && command.type === "chat") return `Your message was not sent: ${text}`;
  return text;
}

function handleError(msg) {
  const room = model.room;
  // A commitment or a value that came too late for its deal (the set was locked, or the
  // commitment moved on) is not the player's doing: the next deal gets one of its own, and the
  // end of the game says whether this page could check the deal.
  if (msg.command && (msg.command.type === "commit" || msg.command.type === "reveal")) return;
  switch (msg.code) {
    case "bad_token":
      if (remembered.movingUntil(room.code)) {
        seatGone(room, true);
        return;
      }
      remembered.forgetToken(room.code);
      ask("Your seat in this room is gone. You can take a new seat or watch.");
      return;
    case "no_room":
      stopConnection();
      room.notice = "There is no room with this code (or it has expired).";
      return;
    case "kicked":
      // The server says when the seat moved to another device (it is still a person's seat).
      seatGone(room, msg.moved === true);
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
  setHomeMode(mode) {
    model.home.mode = mode;
    render();
  },
  setHomeTextTimer(value) {
    model.home.textTimer = value;
  },
  setClaim(field, value) {
    model.home.claim[field] = value;
  },
  /** "Have a code from another device?": the room code and the one-time code, typed. */
  claimByCode() {
    const claim = model.home.claim;
    const code = normalizeCode(claim.room);
    const handoff = claim.code.replace(/[\s-]/g, "");
    claim.error = "";
    if (!CODE_ALPHABET.test(code)) claim.error = "A room code is five letters and digits, like K7MPQ.";
    else if (!/^[A-Za-z0-9]{12}$/.test(handoff)) claim.error = "The code from the other device is 12 letters and digits, like ABCD-EFGH-JKLM.";
    if (claim.error) {
      render();
      return;
    }
    model.home.claim = { room: "", code: "", error: "", open: false };
    claimAndOpen(code, handoff);
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
      const timer = home.mode === "turns" ? home.textTimer || null : home.turnTimer;
      const created = await api.createRoom(home.gameId, home.options, timer, home.mode);
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
    const room = model.room;
    room.entryError = "";
    connect({ type: "join", name: model.name.trim(), key: remembered.joinKey(room.code) });
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
  downloadMyGame(round) {
    const code = model.room.code;
    downloadMyGame(code, round).catch((error) => showError(`Could not save your game: ${error.message}`));
  },
  returnTo(code) {
    openRoom(code, "look");
  },
  act(action) {
    const room = model.room;
    if (!connection || room.sending) return;
    connection.act(action);
    if (connection.status !== "open") showError("Not connected right now; it will be sent on reconnecting…");
    noteSending(room);
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
  /** Open one of the table's sheets (players, chat, log, invite, howto), or close (null). */
  openSheet(name) {
    const room = model.room;
    const opener = room.ui.sheet;
    room.ui.sheet = name;
    render();
    if (name) {
      const panel = document.querySelector(`#app [data-panel="${name}"]`);
      const target = panel && (panel.querySelector("[data-sheet-focus]") || panel.querySelector("h2"));
      if (target && target.getClientRects().length) target.focus();
    } else if (opener) {
      document.querySelector(`#app [data-key="open-${opener}"]`)?.focus();
    }
  },
  closeSheet() {
    intents.openSheet(null);
  },
  setTurnAlert(on) {
    model.turnAlert = on;
    remembered.setTurnAlert(on);
    if (on) wakeAudio();
    render();
  },
  async share() {
    const room = model.room;
    const game = model.gameInfo;
    try {
      await navigator.share({
        title: "Parlor",
        text: `Play ${game ? game.name : "a game"} with me on Parlor: room ${room.code}`,
        url: room.link,
      });
    } catch (error) {
      // Cancelled by the person: nothing to do. Refused by the browser: copy instead.
      if (!error || error.name !== "AbortError") intents.copyLink();
    }
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
    model.room.digest = null;
    render();
  },
  async copyLink() {
    const room = model.room;
    await copyText(room.link);
    flag(room, "copied", true);
  },
  /** "Send to Ben" without a number saved for Ben: the share sheet where the browser has one,
   * else the room link copied. `key` names the button that says "Link copied". */
  async sendTurn(names, key) {
    const room = model.room;
    const game = model.gameInfo ? model.gameInfo.name : "our game";
    if (canShare()) {
      try {
        await navigator.share({ title: "Parlor", text: `${listNames(names)}, your turn in ${game} on Parlor`, url: room.link });
        return;
      } catch (error) {
        // Cancelled by the person: nothing to do. Refused by the browser: copy instead.
        if (error && error.name === "AbortError") return;
      }
    }
    await copyText(room.link);
    flag(room, "sendCopied", key, null);
  },
  /** Open the number sheet for `name` (null: close it, back to the button that opened it). */
  editPhone(name) {
    const room = model.room;
    const was = room.ui.phoneFor;
    room.ui.phoneFor = name;
    room.ui.phoneError = "";
    render();
    if (name) document.getElementById("phone-number")?.focus();
    else if (was) document.querySelector(`#app [data-phone-for="${CSS.escape(was)}"]`)?.focus();
  },
  /** Keep `raw` as `name`'s number in this browser only ("" removes it). */
  savePhone(name, raw) {
    const number = dialable(raw);
    if (raw.trim() && !number) {
      model.room.ui.phoneError = "That does not look like a phone number: type its digits, with + and the country code if it has one.";
      render();
      return;
    }
    remembered.setPhone(name, number);
    model.phones = remembered.phones();
    intents.editPhone(null);
  },
  /** "Play on another device": ask the server for a one-time code (the ack brings it). */
  handoff() {
    const room = model.room;
    if (!connection) return;
    room.ui.handoff = { asking: true };
    connection.command({ type: "handoff" });
    if (connection.status !== "open") showError("Not connected right now; it will be sent on reconnecting…");
    render();
  },
  async copyHandoff() {
    const room = model.room;
    if (!room.ui.handoff || !room.ui.handoff.link) return;
    await copyText(room.ui.handoff.link);
    flag(room, "handoffCopied", true);
  },
  closeHandoff() {
    model.room.ui.handoff = null;
    render();
  },
};

/** Put `text` on the clipboard. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API needs a secure context; the old way works on plain http.
    const area = document.createElement("textarea");
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

/** Set `room.ui[name]` to `value` for a moment ("Link copied"), then back to `off`. */
function flag(room, name, value, off = false) {
  room.ui[name] = value;
  render();
  setTimeout(() => {
    if (room.ui[name] !== value) return;
    room.ui[name] = off;
    if (model.room === room) render();
  }, 2500);
}

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
  const replayAt = replayFromPath();
  const claim = location.hash.match(CLAIM_HASH);
  if (replayAt) openReplay(replayAt.code, replayAt.number);
  else if (code && claim) claimAndOpen(code, claim[1], false);
  else if (code) openRoom(code, "look", push);
  else goHome(push);
}

window.addEventListener("popstate", () => route(false));
// A device move's link opened in a tab already at the room: only its fragment changes.
window.addEventListener("hashchange", () => {
  if (CLAIM_HASH.test(location.hash)) route(false);
});
// Your games are asked again when the home page comes back into view (a turn may have come).
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && model.route === "home") findYourGames();
});
// Turning a phone sideways moves the side things from sheets to a column, and back.
if (WIDE) WIDE.addEventListener("change", () => render());
route(false);
loadGames();
