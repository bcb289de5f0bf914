// What the browser remembers between visits: the player's name, a seat token per room, and
// whether to beep on your turn.
// Storage may be unavailable (private modes); then nothing is remembered and play goes on.

const NAME = "parlor.name";
const TOKEN = "parlor.token.";
const JOIN_KEY = "parlor.joinkey.";
const TURN_ALERT = "parlor.turnalert";

/** 16 random bytes, URL-safe: the key a join is sent with (resent after a lost welcome). */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function get(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function set(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not remembered; the game itself does not need it.
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
    // Nothing remembered.
  }
  return codes.sort();
}

export const remembered = {
  seatCodes,
  turnAlert: () => get(TURN_ALERT) === "on",
  setTurnAlert: (on) => set(TURN_ALERT, on ? "on" : null),
  name: () => get(NAME) || "",
  setName: (name) => set(NAME, name),
  token: (code) => get(TOKEN + code),
  setToken: (code, token) => set(TOKEN + code, token),
  forgetToken: (code) => {
    set(TOKEN + code, null);
    set(JOIN_KEY + code, null);
  },
  /** The key for joining room `code`, made once and kept until the seat is given up. */
  joinKey: (code) => {
    let key = get(JOIN_KEY + code);
    if (!key) {
      key = newKey();
      set(JOIN_KEY + code, key);
      if (get(JOIN_KEY + code) !== key) return key; // storage unavailable: this visit only
    }
    return key;
  },
};
