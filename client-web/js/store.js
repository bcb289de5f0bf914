// What the browser remembers between visits: the player's name, and a seat token per room.
// Storage may be unavailable (private modes); then nothing is remembered and play goes on.

const NAME = "parlor.name";
const TOKEN = "parlor.token.";

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
  forgetToken: (code) => set(TOKEN + code, null),
};
