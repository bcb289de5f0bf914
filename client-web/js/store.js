// What the browser remembers between visits: the player's name, a seat token per room, the
// seals it saw and contributed to, whether to beep on your turn, the phone numbers the player
// saved to send turns by text (they never leave this browser), and that a seat is being moved
// to another device.
// Storage may be unavailable (private modes, blocked cookies) or full; then what could not be
// stored is kept in memory for this visit only, and play goes on.

const NAME = "parlor.name";
const TOKEN = "parlor.token.";
const JOIN_KEY = "parlor.joinkey.";
const TURN_ALERT = "parlor.turnalert";
const SEAL = "parlor.seal.";
const VIEWS = "parlor.views.";
// Phone numbers, by the person's name (the same friend across rooms): {name in lower case: number}.
const PHONES = "parlor.phones";
// Per room: until when (this device's clock, ms) a seat move this browser asked for may happen.
const MOVING = "parlor.moving.";
// The most view digests kept for one game (a long game's last ones are dropped).
const VIEWS_MAX = 30000;

/** 16 random bytes, URL-safe: the key a join is sent with (resent after a lost welcome). */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// What could not be stored: newer than anything storage holds for the same key.
const memory = new Map();

function get(key) {
  if (memory.has(key)) return memory.get(key);
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Store `value` under `key` (null: forget it). If storage refuses, it is kept for this visit
 * only (a reload forgets it); with `dropStale`, the older copy storage holds goes too, so that
 * storage never holds an out-of-date one (the view log: whole, or not there). */
function set(key, value, { dropStale = false } = {}) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
    memory.delete(key);
  } catch {
    if (value === null) memory.delete(key);
    else memory.set(key, value);
    if (dropStale) {
      try {
        localStorage.removeItem(key);
      } catch {
        // No storage at all.
      }
    }
  }
}

/** The codes of the rooms this browser holds a seat token for. */
function seatCodes() {
  const codes = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key && key.startsWith(TOKEN)) codes.push(key.slice(TOKEN.length));
    }
  } catch {
    // Nothing stored.
  }
  for (const key of memory.keys()) {
    if (key.startsWith(TOKEN) && !codes.includes(key.slice(TOKEN.length))) codes.push(key.slice(TOKEN.length));
  }
  return codes.sort();
}

/** Per room, per deal round: {seen, mine, hash, locked, bots, shown}: the server commitment
 * this browser saw before that deal, the secret value it contributed and the commitment it
 * sent for it, the locked set of commitments (and which seats were bots) it saw before it
 * revealed, and the seal it was shown if it came in later (docs/fairplay.md). The last few
 * rounds only. */
function seals(code) {
  try {
    return JSON.parse(get(SEAL + code) || "{}") || {};
  } catch {
    return {};
  }
}

function setSeal(code, round, seal) {
  const kept = seals(code);
  kept[round] = seal;
  const rounds = Object.keys(kept).map(Number).sort((a, b) => b - a).slice(0, 3);
  set(SEAL + code, JSON.stringify(Object.fromEntries(rounds.map((r) => [r, kept[r]]))));
}

/** The digests of the views this browser was shown of one room's game (the latest game only):
 * {round, seat, views: [[version, digest], ...], truncated?}. */
function views(code, round) {
  try {
    const kept = JSON.parse(get(VIEWS + code) || "null");
    return kept && kept.round === round ? kept : null;
  } catch {
    return null;
  }
}

function addView(code, round, seat, version, digest) {
  let kept = views(code, round);
  const fresh = !kept || kept.seat !== seat;
  if (fresh) kept = { round, seat, views: [] };
  const last = kept.views[kept.views.length - 1];
  if (last && last[0] >= version) return;
  if (kept.views.length >= VIEWS_MAX) {
    if (!kept.truncated) set(VIEWS + code, JSON.stringify({ ...kept, truncated: true }), { dropStale: true });
    return;
  }
  kept.views.push([version, digest]);
  // A stored log is always whole, from its first view to the last one noted.
  set(VIEWS + code, JSON.stringify(kept), { dropStale: true });
  if (fresh) {
    // The seal remembers where this page's log began (once per game and seat): a log found
    // later that begins elsewhere, or none, means views were shown and not kept.
    const seal = seals(code)[round] || {};
    if (seal.viewsFrom === undefined || seal.viewsSeat !== seat) setSeal(code, round, { ...seal, viewsFrom: version, viewsSeat: seat });
  }
}

/** The saved numbers, keyed by name in lower case (names are what friends are known by here;
 * two rooms with a "Ben" share his number). */
function phones() {
  try {
    const kept = JSON.parse(get(PHONES) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch {
    return {};
  }
}

function phoneKey(name) {
  return String(name).trim().toLowerCase();
}

function setPhone(name, number) {
  const kept = phones();
  if (number) kept[phoneKey(name)] = number;
  else delete kept[phoneKey(name)];
  set(PHONES, Object.keys(kept).length ? JSON.stringify(kept) : null);
}

/** Per room: the round and version of the last table this browser showed its player. */
const LAST_SEEN = "parlor.seen.";

function lastSeen(code) {
  try {
    return JSON.parse(get(LAST_SEEN + code) || "null");
  } catch {
    return null;
  }
}

export const remembered = {
  lastSeen,
  setLastSeen: (code, round, version) => set(LAST_SEEN + code, JSON.stringify({ round, version })),
  views,
  addView,
  seal: (code, round) => seals(code)[round] || null,
  latestSeal: (code) => {
    const kept = seals(code);
    const rounds = Object.keys(kept).map(Number).sort((a, b) => b - a);
    return rounds.length ? kept[rounds[0]] : null;
  },
  setSeal,
  seatCodes,
  /** Every seat this browser holds: [{code, token}]. */
  seats: () => seatCodes().map((code) => ({ code, token: get(TOKEN + code) })).filter((s) => s.token),
  /** The saved numbers: {name in lower case: number}. */
  phones,
  setPhone,
  /** This browser asked to move its seat in `code` to another device, whose code works for
   * `ms` from now; `movingUntil` is then that time (0: never asked, or the seat given up). */
  setMoving: (code, ms) => set(MOVING + code, String(Date.now() + ms)),
  movingUntil: (code) => Number(get(MOVING + code) || 0),
  turnAlert: () => get(TURN_ALERT) === "on",
  setTurnAlert: (on) => set(TURN_ALERT, on ? "on" : null),
  name: () => get(NAME) || "",
  setName: (name) => set(NAME, name),
  token: (code) => get(TOKEN + code),
  setToken: (code, token) => set(TOKEN + code, token),
  forgetToken: (code) => {
    set(TOKEN + code, null);
    set(JOIN_KEY + code, null);
    set(SEAL + code, null);
    set(VIEWS + code, null);
    set(LAST_SEEN + code, null);
    set(MOVING + code, null);
  },
  /** The key for joining room `code`, made once and kept until the seat is given up. */
  joinKey: (code) => {
    let key = get(JOIN_KEY + code);
    if (!key) {
      key = newKey();
      set(JOIN_KEY + code, key);
    }
    return key;
  },
};
