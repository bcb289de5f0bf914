// The only module that talks to the room's WebSocket.
//
// It speaks the server's default wire format, msgpack in binary frames (docs/protocol.md),
// enters the room (join, resume or watch), numbers every seated command with the seat's one
// `seq` counter, and reconnects by itself with a growing back-off, entering again the way it
// is told to (a seat token once one is known). Commands not yet answered are sent again, with
// the same `seq`, after a reconnect or an `unavailable` answer: the server applies each `seq`
// exactly once, so a resend is always safe. Every snapshot is complete, so a reconnect needs
// no replay: the first `state` after `welcome` is the resync. It knows nothing about games or
// the page.
//
// A socket can die without closing: a phone that switched networks, a laptop that slept, a
// proxy that dropped the flow. So it keeps a heartbeat: a `ping` when it has sent nothing for
// a while, and a socket that has brought nothing at all for longer than that is taken for dead
// and replaced at once, without waiting for a closing handshake that would never come.

// The msgpack codec is fetched with the first connection, not with the home page.
let codec = null;
let codecLoading = null;

function loadCodec() {
  codecLoading ||= Promise.all([import("../vendor/msgpack/decode.mjs"), import("../vendor/msgpack/encode.mjs")]).then(
    ([decoder, encoder]) => {
      codec = { decode: decoder.decode, encode: encoder.encode };
    },
    (error) => {
      codecLoading = null;
      throw error;
    },
  );
  return codecLoading;
}

/** Message types the server sends (server/session.py, server/hub.py). Anything else is a bug. */
export const SERVER_TYPES = new Set(["welcome", "state", "chat", "ack", "error", "left", "pong"]);

/** Commands of a seated player: each carries a `seq` (docs/protocol.md). */
export const SEQUENCED = new Set([
  "act", "chat", "options", "add_bot", "bot_level", "kick", "sit_out", "give_host", "lock", "start",
  "rematch", "commit", "reveal", "leave", "back", "handoff",
]);

/** Answers after which the same command is sent again (it may not have been applied). */
const RESEND_ON = new Set(["unavailable", "conflict"]);
/** Answers after which what is waiting is numbered again from the seat's `last_seq`. */
const RENUMBER_ON = new Set(["bad_seq", "seq_reused"]);
const RESEND_DELAY = 1000;
const RESEND_TRIES = 5;

/** Close codes after which reconnecting cannot help (docs/protocol.md, "Close codes"). */
const FINAL_CLOSES = new Set([1000, 1008, 1009, 4001, 4004]);

/** Heartbeat, in ms: ping after this long without sending anything (the server answers a
 * `ping` at once, so an open socket never stays silent for long)... */
const PING_AFTER = 2500;
/** ...and a socket that brought nothing for this long is dead, however open it looks. */
const DEAD_AFTER = 5000;
const BEAT_EVERY = 500;

export class RoomConnection {
  /**
   * @param {string} code room code
   * @param {{onMessage: Function, onStatus: Function, onProblem: Function}} handlers
   *   onMessage(msg) for every known message; onStatus(status, detail) with status one of
   *   "connecting", "open", "reconnecting", "closed"; onProblem(text) for protocol breaches.
   */
  constructor(code, handlers) {
    this.code = code;
    this.handlers = handlers;
    this.entry = null;
    this.socket = null;
    this.status = "closed";
    this.seq = 0;
    /** seq -> {msg, tries}: sent (or waiting to be sent) and not yet answered. */
    this.pending = new Map();
    /** The first state after each welcome is the new baseline (the store may have gone back). */
    this.fresh = false;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    /** performance.now() of the last frame sent and of the last frame (or open) heard. */
    this.sentAt = 0;
    this.heardAt = 0;
    this.beatAt = 0;
    this.beat = null;
    this._wake = () => {
      if (!this.stopped && this.status === "reconnecting") this._connect();
    };
    this._visible = () => {
      if (document.visibilityState !== "visible") return;
      this._wake();
      this._beat();
    };
    window.addEventListener("online", this._wake);
    document.addEventListener("visibilitychange", this._visible);
  }

  /** Enter the room: entry is {type:"join", name} | {type:"resume", token} | {type:"watch"}. */
  open(entry) {
    this.entry = entry;
    this.stopped = false;
    clearInterval(this.beat);
    this.beatAt = performance.now();
    this.beat = setInterval(() => this._beat(), BEAT_EVERY);
    this._connect();
  }

  _url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  _setStatus(status, detail = "") {
    this.status = status;
    this.handlers.onStatus(status, detail);
  }

  _connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!codec) {
      this._setStatus(this.attempt ? "reconnecting" : "connecting");
      this.heardAt = performance.now();
      if (this.awaitingCodec) return;
      this.awaitingCodec = true;
      loadCodec()
        .then(
          () => !this.stopped && this._connect(),
          (error) => {
            console.error("could not load the msgpack codec", error);
            if (!this.stopped) this._retry(false);
          },
        )
        .finally(() => {
          this.awaitingCodec = false;
        });
      return;
    }
    this._drop();
    this._setStatus(this.attempt ? "reconnecting" : "connecting");
    const socket = new WebSocket(this._url(), "parlor.msgpack");
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    // An attempt that brings nothing (not even the opening) is judged like a silent socket.
    this.heardAt = performance.now();
    this.sentAt = this.heardAt;
    socket.onopen = () => {
      this.heardAt = performance.now();
      this._transmit(this.entry);
    };
    socket.onmessage = (event) => this._receive(event.data);
    socket.onclose = (event) => this._closed(event);
  }

  /** Let go of the current socket, if any, without waiting for it to finish closing. */
  _drop() {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    socket.onmessage = null;
    socket.onclose = null;
    if (socket.readyState === WebSocket.CONNECTING) {
      // Closing a socket that is still connecting makes the browser log an error; one that
      // opens later is closed then, unused.
      socket.onopen = () => socket.close();
    } else {
      socket.onopen = null;
      socket.close();
    }
  }

  /** Every BEAT_EVERY ms while the connection is wanted: ping when quiet, replace when dead. */
  _beat() {
    const now = performance.now();
    const held = now - this.beatAt > 3 * BEAT_EVERY;
    this.beatAt = now;
    if (this.stopped || !this.socket) return;
    if (held) {
      // Our timers were held back (a hidden tab, a sleeping device), so no ping went out to
      // be answered: ping now and judge the socket by the answer, not by the silence.
      this.heardAt = Math.max(this.heardAt, now - DEAD_AFTER + PING_AFTER);
    }
    if (now - this.heardAt >= DEAD_AFTER) {
      this._lost();
      return;
    }
    if (this.status === "open" && (held || now - this.sentAt >= PING_AFTER)) {
      this._write({ type: "ping" });
    }
  }

  /** Nothing has come through for DEAD_AFTER: take the socket for dead and start again. */
  _lost() {
    this._drop();
    this._retry(true);
  }

  _receive(data) {
    this.heardAt = performance.now();
    let msg;
    try {
      if (!(data instanceof ArrayBuffer)) throw new TypeError("not a binary frame");
      msg = codec.decode(new Uint8Array(data));
    } catch {
      this.handlers.onProblem("The server sent a frame that is not msgpack");
      return;
    }
    if (!msg || typeof msg !== "object" || !SERVER_TYPES.has(msg.type)) {
      this.handlers.onProblem(`The server sent an unknown message type: ${msg && msg.type}`);
      return;
    }
    if (msg.type === "welcome") {
      this.attempt = 0;
      this.fresh = true;
      this._setStatus("open");
      const first = this._oldest();
      if (first) {
        first.resent = true;
        this._write(first.msg);
      }
    }
    if ((msg.type === "ack" || msg.type === "error") && typeof msg.seq === "number") {
      const item = this.pending.get(msg.seq);
      if (item && msg.type === "error" && RESEND_ON.has(msg.code) && item.tries < RESEND_TRIES) {
        item.tries += 1;
        item.resent = true;
        setTimeout(() => {
          if (this.pending.get(msg.seq) === item) this._write(item.msg);
        }, RESEND_DELAY);
        return;
      }
      if (item && msg.type === "error" && RENUMBER_ON.has(msg.code)) {
        // Our count was off (another tab used the number, or the server's record of the
        // seat went back): number what is waiting again from the seat's last_seq and go on.
        this._renumber(msg.last_seq || 0);
        return;
      }
      this.pending.delete(msg.seq);
      msg.resent = Boolean(item && item.resent);
      if (item) msg.command = item.msg;
      const next = this._oldest();
      if (next) this._write(next.msg);
    }
    if (msg.type === "pong") return;
    this.handlers.onMessage(msg);
  }

  _closed(event) {
    this.socket = null;
    // A command in flight on a dead socket may or may not have happened: it is sent again,
    // with its seq, after the next welcome, and the server answers it exactly once.
    if (this.stopped || FINAL_CLOSES.has(event.code)) {
      this.pending.clear();
      this.stopped = true;
      clearInterval(this.beat);
      this._setStatus("closed", event.code);
      return;
    }
    this._retry(false);
  }

  /** Connect again: at once after a first silent loss (the network is likely back, or
   * another path is), else after a growing back-off with jitter. */
  _retry(lost) {
    this.attempt += 1;
    const delay = lost && this.attempt === 1 ? 0 : Math.min(8000, 400 * 2 ** Math.min(this.attempt - 1, 5));
    this._setStatus("reconnecting", Math.round(delay / 1000));
    this.timer = setTimeout(() => this._connect(), delay * (0.8 + Math.random() * 0.4));
  }

  /** Send one message if the socket is open; returns whether it went out. Seated commands
   * go through `command` instead. */
  send(msg) {
    if (SEQUENCED.has(msg.type)) {
      this.command(msg);
      return true;
    }
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.status !== "open") {
      return false;
    }
    this._transmit(msg);
    return true;
  }

  _write(msg) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN && this.status === "open") {
      this._transmit(msg);
    }
  }

  _transmit(msg) {
    this.socket.send(codec.encode(msg));
    this.sentAt = performance.now();
  }

  /**
   * Send a seated command with the next sequence number. It is kept until answered and sent
   * again after a reconnect, so it is never lost; returns its seq.
   */
  command(msg) {
    const seq = this.seq + 1;
    const numbered = { ...msg, seq };
    this.seq = seq;
    const idle = this.pending.size === 0;
    this.pending.set(seq, { msg: numbered, tries: 0, resent: false });
    // One command in flight at a time, in order: a later number is never applied before an
    // earlier one is settled (which would make the earlier one look like a duplicate).
    if (idle) this._write(numbered);
    return seq;
  }

  _oldest() {
    let first = null;
    for (const [seq, item] of this.pending) if (!first || seq < first.msg.seq) first = item;
    return first;
  }

  _renumber(lastSeq) {
    const waiting = [...this.pending.values()].sort((a, b) => a.msg.seq - b.msg.seq);
    this.pending.clear();
    this.seq = Math.max(this.seq, lastSeq);
    for (const item of waiting) {
      this.seq += 1;
      item.msg = { ...item.msg, seq: this.seq };
      this.pending.set(this.seq, item);
    }
    const first = this._oldest();
    if (first) this._write(first.msg);
  }

  /** Send a game action (see `command`); returns its seq. */
  act(action, seat) {
    const msg = { type: "act", action };
    if (seat !== null && seat !== undefined) msg.seat = seat;
    return this.command(msg);
  }

  /** The server's record of our last applied command: never reuse a number below it. */
  knowLastSeq(lastSeq) {
    if (lastSeq > this.seq) this.seq = lastSeq;
  }

  get busy() {
    return this.pending.size > 0;
  }

  /** The game action among the commands not answered yet, or null. */
  get actionInFlight() {
    for (const item of this.pending.values()) if (item.msg.type === "act") return item.msg.action;
    return null;
  }

  /** Stop for good (left the room, kicked, room gone, or entering another way). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.beat);
    window.removeEventListener("online", this._wake);
    document.removeEventListener("visibilitychange", this._visible);
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onmessage = null;
      socket.onclose = null;
      socket.onopen = socket.readyState === WebSocket.CONNECTING ? () => socket.close(1000) : null;
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
    }
    this._setStatus("closed");
  }
}
