// What the browser remembers between visits: the player's name, and a seat token per room.
// Storage may be unavailable (private modes); then nothing is remembered and play goes on.

const NAME = "parlor.name";
const TOKEN = "parlor.token.";
const JOIN_KEY = "parlor.joinkey.";

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

export const remembered = {
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
