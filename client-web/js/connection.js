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

import { decode } from "../vendor/msgpack/decode.mjs";
import { encode } from "../vendor/msgpack/encode.mjs";

/** Message types the server sends (server/session.py, server/hub.py). Anything else is a bug. */
export const SERVER_TYPES = new Set(["welcome", "state", "chat", "ack", "error", "left", "pong"]);

/** Commands of a seated player: each carries a `seq` (docs/protocol.md). */
export const SEQUENCED = new Set([
  "act", "chat", "options", "add_bot", "kick", "sit_out", "give_host", "lock", "start",
  "rematch", "leave", "back",
]);

/** Answers after which the same command is sent again (it may not have been applied). */
const RESEND_ON = new Set(["unavailable", "conflict"]);
/** Answers after which what is waiting is numbered again from the seat's `last_seq`. */
const RENUMBER_ON = new Set(["bad_seq", "seq_reused"]);
const RESEND_DELAY = 1000;
const RESEND_TRIES = 5;

/** Close codes after which reconnecting cannot help (docs/protocol.md, "Close codes"). */
const FINAL_CLOSES = new Set([1000, 1008, 1009, 4001, 4004]);

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
    this._wake = () => {
      if (!this.stopped && this.status === "reconnecting") this._connect();
    };
    this._visible = () => {
      if (document.visibilityState === "visible") this._wake();
    };
    window.addEventListener("online", this._wake);
    document.addEventListener("visibilitychange", this._visible);
  }

  /** Enter the room: entry is {type:"join", name} | {type:"resume", token} | {type:"watch"}. */
  open(entry) {
    this.entry = entry;
    this.stopped = false;
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
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close();
    }
    this._setStatus(this.attempt ? "reconnecting" : "connecting");
    const socket = new WebSocket(this._url(), "parlor.msgpack");
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      socket.send(encode(this.entry));
    };
    socket.onmessage = (event) => this._receive(event.data);
    socket.onclose = (event) => this._closed(event);
  }

  _receive(data) {
    let msg;
    try {
      if (!(data instanceof ArrayBuffer)) throw new TypeError("not a binary frame");
      msg = decode(new Uint8Array(data));
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
      if (item) msg.resent = item.resent;
      const next = this._oldest();
      if (next) this._write(next.msg);
    }
    this.handlers.onMessage(msg);
  }

  _closed(event) {
    this.socket = null;
    // A command in flight on a dead socket may or may not have happened: it is sent again,
    // with its seq, after the next welcome, and the server answers it exactly once.
    if (this.stopped || FINAL_CLOSES.has(event.code)) {
      this.pending.clear();
      this.stopped = true;
      this._setStatus("closed", event.code);
      return;
    }
    this.attempt += 1;
    const delay = Math.min(8000, 400 * 2 ** Math.min(this.attempt - 1, 5));
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
    this.socket.send(encode(msg));
    return true;
  }

  _write(msg) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN && this.status === "open") {
      this.socket.send(encode(msg));
    }
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

  /** Stop for good (left the room, kicked, room gone, or entering another way). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this._wake);
    document.removeEventListener("visibilitychange", this._visible);
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close(1000);
      this.socket = null;
    }
    this._setStatus("closed");
  }
}
