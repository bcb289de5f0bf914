// Checks of a sealed deal (docs/fairplay.md), done in the browser against what this page saw.
// A deal is sealed when the server publishes the SHA-256 of its secret seed before anyone
// contributes; each seated person's browser then commits to a secret value of its own (its
// SHA-256), the commitments are locked, and only then are the values revealed. Once the game is
// over the server's seed is revealed, and this module checks it against the commitment seen
// before the deal, each value against its locked commitment, the deal seed's derivation, and
// that the views this page was shown are the ones the record's replay gives its seat.
//
// It uses Web Crypto (crypto.subtle) where the page has it. Browsers offer crypto.subtle only
// on secure pages (https, or localhost), and friends on one Wi-Fi often open the plain
// http://<address>:8000 of a laptop; there a small SHA-256 written out below does the same.

const DERIVATION = "parlor-deal/2";
const DERIVATION_1 = "parlor-deal/1";

function hexToBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- SHA-256 (FIPS 180-4), for pages without crypto.subtle ------------------------------------

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of `bytes`, as 32 bytes, in plain JavaScript. */
export function sha256Plain(bytes) {
  const bits = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const add = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
  return out;
}

/** SHA-256 of `bytes` in hex: Web Crypto where the page has it, else the code above. */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) return bytesToHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
  return bytesToHex(sha256Plain(bytes));
}

/** The commitment to a server seed: the SHA-256 of its 32 bytes. */
export function commitmentOf(serverSeed) {
  return sha256Hex(hexToBytes(serverSeed));
}

/** A contribution's commitment: the SHA-256 of its 32 bytes (sent before the value). */
export function contributionCommitmentOf(value) {
  return sha256Hex(hexToBytes(value));
}

/**
 * The deal seed (16 hex digits). `parlor-deal/2` (format 2): from the room code, the game's
 * number, the server seed and the revealed contributions in seat order; format 1 (older
 * records): from the server seed and the contributions only.
 */
export async function dealSeedOf(serverSeed, contributions, room, game, format = 2) {
  const parts = format >= 2 ? [DERIVATION, room, String(game), serverSeed, ...contributions] : [DERIVATION_1, serverSeed, ...contributions];
  return (await sha256Hex(new TextEncoder().encode(parts.join("\n")))).slice(0, 16);
}

/** A fresh contribution: 32 random bytes in hex (crypto.getRandomValues works on every page). */
export function newContribution() {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}

/** A value as canonical JSON: keys sorted, no spaces (as server/records.py view_digest). */
export function canonicalJson(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

/** What this page keeps of each view it is shown: 32 hex digits of the SHA-256 of its
 * canonical JSON, the same as server/records.py view_digest and `parlor verify --seen`. */
export async function viewDigest(view) {
  return (await sha256Hex(new TextEncoder().encode(canonicalJson(view)))).slice(0, 32);
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Check a revealed deal against what this page saw (docs/fairplay.md, "What your browser
 * checks"). `deal` is the room's `deal` once the game is over. What this page saw:
 * `seen`, the server's commitment before the deal (else `shown`, the seal it was shown during
 * the game); `locked`, the set of contribution commitments it saw locked before it revealed;
 * `bots`, which seats it saw as bots then; `seat` and `mine`, its seat and its revealed value.
 *
 * Resolves to {ok: true, prior} when everything holds; {ok: false, reason} when something
 * contradicts what the page saw; {ok: null, reason} when the page cannot tell the deal was
 * not steered (it did not contribute: it watched, came in after the deal, or its commitment
 * came after the lock) though nothing it saw contradicts it.
 */
export async function checkDeal(deal, { room, seen = null, shown = null, locked = null, bots = null, seat = null, mine = null, seats = null, lockedById = null, abandoned = null } = {}) {
  if (abandoned && abandoned.length) {
    return { ok: false, reason: "the server started this deal over after your browser had revealed its value" };
  }
  if (!deal.sealed) return { ok: false, reason: "this deal was not sealed" };
  if (!HEX64.test(deal.server_seed || "")) return { ok: false, reason: "no server seed was revealed" };
  if ((await commitmentOf(deal.server_seed)) !== deal.commitment) {
    return { ok: false, reason: "the revealed seed does not match the commitment" };
  }
  if (seen && seen !== deal.commitment) {
    return { ok: false, reason: "the commitment is not the one shown before the deal" };
  }
  if (!seen && shown && !deal.commitment.startsWith(shown)) {
    return { ok: false, reason: "the commitment is not the one shown during the game" };
  }
  const format = deal.format || 1;
  const values = deal.contributions || [];
  const hashes = format >= 2 ? deal.commitments || [] : [];
  // A page that took part in a parlor-deal/2 sealing accepts no other derivation.
  if (locked && format !== 2) return { ok: false, reason: "the deal was not made the way it was sealed (parlor-deal/2)" };
  if (seats && (values.length !== seats.length || (format >= 2 && hashes.length !== seats.length))) {
    return { ok: false, reason: "the deal has a slot for each of another number of seats" };
  }
  if (format >= 2 && seats && lockedById) {
    // Seat by seat (by seat id: indexes shift when someone leaves the lobby): the commitment
    // locked for that seat, or none; a seat that became a bot since may have none.
    for (let i = 0; i < seats.length; i++) {
      const expected = lockedById[seats[i].id] || "";
      if (hashes[i] !== expected && !(hashes[i] === "" && seats[i].bot)) {
        return { ok: false, reason: `seat ${i + 1}'s commitment is not the one locked for it before the reveals` };
      }
    }
  }
  if (format >= 2) {
    if (hashes.length !== values.length) return { ok: false, reason: "the deal's commitments and values do not pair up" };
    for (let i = 0; i < values.length; i++) {
      if (values[i] && (!HEX64.test(values[i]) || (await contributionCommitmentOf(values[i])) !== hashes[i])) {
        return { ok: false, reason: `seat ${i + 1}'s revealed value does not match its locked commitment` };
      }
      if (!lockedById && bots && bots[i] && (hashes[i] || values[i])) {
        return { ok: false, reason: `a bot's seat (seat ${i + 1}) carries a contribution` };
      }
    }
    if (locked) {
      const sawLocked = new Set(locked.filter(Boolean));
      const extra = hashes.filter((h) => h && !sawLocked.has(h));
      if (extra.length) return { ok: false, reason: "the deal uses a commitment that was not in the set locked before the reveals" };
    }
  }
  if ((await dealSeedOf(deal.server_seed, values, room, deal.round, format)) !== deal.seed) {
    return { ok: false, reason: "the deal seed was not derived from the seeds" };
  }
  const prior = seen ? "seen" : shown ? "shown" : null;
  const mineLocked = mine && seat !== null && (!lockedById || !seats || !seats[seat] || lockedById[seats[seat].id]);
  if (mine && seat !== null && !mineLocked) {
    return { ok: null, prior, reason: "your browser's commitment was not locked in before the deal" };
  }
  if (mine && seat !== null) {
    if (values[seat] !== mine) return { ok: false, reason: "your contribution was not used" };
    return { ok: true, prior };
  }
  if (seat === null) return { ok: null, prior, reason: "you watched; only a seated player's browser can tell the deal was not steered" };
  if (!seen) return { ok: null, prior, reason: "you joined after the deal" };
  return { ok: null, prior, reason: "your browser's commitment was not locked in before the deal" };
}

/**
 * Check the views this page was shown against the record's replay for its seat. `log` is
 * [[version, digest], ...] oldest first; `steps` is the replay's steps in order, each
 * {step, version, view} (step 0, the deal, has no version). Resolves to {ok, checked, reason}.
 */
export async function checkViews(log, steps) {
  const digests = [];
  for (const step of steps) digests.push(await viewDigest(step.view));
  let at = 0;
  for (const [version, digest] of log) {
    while (at + 1 < steps.length && steps[at + 1].version <= version) at++;
    if (digests[at] !== digest) {
      return { ok: false, checked: log.length, reason: `the table you were shown at version ${version} is not the one the record's replay gives your seat` };
    }
  }
  return { ok: true, checked: log.length };
}
