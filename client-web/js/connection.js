// The only module that talks to the room's WebSocket.
//
// It speaks the server's default wire format, msgpack in binary frames (docs/protocol.md),
// enters the room (join, resume or watch), numbers actions, and reconnects by itself with a
// growing back-off, entering again the way it is told to (a seat token once one is known).
// Every snapshot is complete, so a reconnect needs no replay: the first `state` after
// `welcome` is the resync. It knows nothing about games or the page.

import { decode } from "../vendor/msgpack/decode.mjs";
import { encode } from "../vendor/msgpack/encode.mjs";

/** Message types the server sends (server/session.py, server/hub.py). Anything else is a bug. */
export const SERVER_TYPES = new Set(["welcome", "state", "chat", "ack", "error", "left"]);

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
    this.pending = new Map();
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
      this._setStatus("open");
    }
    if ((msg.type === "ack" || msg.type === "error") && typeof msg.seq === "number") {
      this.pending.delete(msg.seq);
    }
    this.handlers.onMessage(msg);
  }

  _closed(event) {
    this.socket = null;
    // An action in flight on a dead socket either happened (the next snapshot shows it) or not.
    this.pending.clear();
    if (this.stopped || FINAL_CLOSES.has(event.code)) {
      this.stopped = true;
      this._setStatus("closed", event.code);
      return;
    }
    this.attempt += 1;
    const delay = Math.min(8000, 400 * 2 ** Math.min(this.attempt - 1, 5));
    this._setStatus("reconnecting", Math.round(delay / 1000));
    this.timer = setTimeout(() => this._connect(), delay * (0.8 + Math.random() * 0.4));
  }

  /** Send one message if the socket is open; returns whether it went out. */
  send(msg) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN || this.status !== "open") {
      return false;
    }
    this.socket.send(encode(msg));
    return true;
  }

  /** Send a game action with the next sequence number; returns the number, or 0 if offline. */
  act(action, seat) {
    const seq = this.seq + 1;
    const msg = { type: "act", seq, action };
    if (seat !== null && seat !== undefined) msg.seat = seat;
    if (!this.send(msg)) return 0;
    this.seq = seq;
    this.pending.set(seq, action);
    return seq;
  }

  /** The server's record of our last applied action: never reuse a number below it. */
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
