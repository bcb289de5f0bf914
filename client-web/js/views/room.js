// A room on screen: entering it (join or watch), the lobby, or the live table with its turn
// banner, players, chat and results. Game tables come from ./games/.

import { h } from "../dom.js";
import { byText, modeLine, moveBox, phoneSheet, sendBar, textTimerChoice } from "./bytext.js";
import { brandLink, button, countdown, listNames, standingsTable, optionsFields, seatName, timerChoice, timerField, who } from "./common.js";
import { gameModule as loadedGame, knownGame, turnActions } from "./games/index.js";
import { dealingNote, lobbyView, shareBox } from "./lobby.js";
import { gameCtx, gameSummary, namedReason, noTable, seatStrip, tableParts, winHeadline } from "./table.js";

// -- entering ---------------------------------------------------------------------------------

function entryView(model, intents) {
  const room = model.room;
  const summary = room.summary;
  const game = summary && (model.games || []).find((g) => g.id === summary.game);
  const open =
    summary &&
    summary.phase === "lobby" &&
    !summary.locked &&
    (!game || summary.seats.length < game.max_seats);
  let why = "";
  if (summary && !open) {
    if (summary.phase !== "lobby") why = "The game has already started: you can watch it.";
    else if (summary.locked) why = "The host has locked this room: you can watch.";
    else why = "Every seat is taken: you can watch.";
  }
  return h(
    "div",
    { class: "entry" },
    h("h1", { tabindex: -1 }, game ? `${game.name} · room ${room.code}` : `Room ${room.code}`),
    game ? h("p", null, `${game.summary} (${game.min_seats}–${game.max_seats} players)`) : null,
    summary
      ? h(
          "p",
          { class: "muted" },
          summary.seats.length
            ? `Players: ${listNames(summary.seats.map((s) => s.name))}.`
            : "Nobody has taken a seat yet.",
        )
      : h("p", { class: "muted" }, "Looking up the room…"),
    room.entryError ? h("p", { class: "error", role: "alert" }, room.entryError) : null,
    open
      ? h(
          "form",
          {
            class: "panel",
            onsubmit: (e) => {
              e.preventDefault();
              intents.join();
            },
          },
          h(
            "div",
            { class: "field" },
            h("label", { for: "join-name" }, "Your name"),
            h("input", {
              id: "join-name",
              type: "text",
              autocomplete: "nickname",
              maxlength: 24,
              required: true,
              value: model.name,
              oninput: (e) => intents.setName(e.target.value),
            }),
          ),
          h("button", { type: "submit", class: "primary" }, "Take a seat"),
        )
      : why
        ? h("p", null, why)
        : null,
    summary ? button("Just watch", intents.watch, { class: open ? "" : "primary" }) : null,
  );
}

function noticeView(model, intents) {
  return h(
    "div",
    { class: "entry" },
    h("h1", { tabindex: -1 }, `Room ${model.room.code}`),
    h("p", { role: "alert" }, model.room.notice),
    h("div", { class: "button-row" }, button("Back to the start", intents.goHome, { class: "primary" }), model.room.canWatch ? button("Watch the room", intents.watch) : null),
  );
}

// -- shared side panels -------------------------------------------------------------------------

/** What the host may do about another person's seat during play: let a bot play it for now
 * (`sit_out`) or remove the person (`kick`: a bot keeps the seat). Each asks first, in place:
 * the button that was pressed becomes the "yes" button, so keyboard focus stays on it. */
const SEAT_ACTIONS = {
  sit_out: {
    label: (name) => `Let a bot play for ${name}`,
    text: "Let a bot play",
    question: (name) => `Let a bot play for ${name} until ${name} is back?`,
    yes: "Yes, let a bot play",
    yesLabel: (name) => `Yes, let a bot play for ${name}`,
  },
  kick: {
    label: (name) => `Remove ${name}`,
    text: "Remove",
    question: (name) =>
      `Remove ${name} from the game? A bot plays the seat from now on; ${name} can only watch.`,
    yes: "Yes, remove",
    yesLabel: (name) => `Yes, remove ${name}`,
  },
};

function seatActions(model, intents, seat) {
  const asking = model.room.ui.confirm;
  const offered = seat.away ? ["kick"] : ["sit_out", "kick"];
  const cancel = (key) => intents.confirm(null, key);
  for (const what of offered) {
    if (!asking || asking.id !== seat.id || asking.what !== what) continue;
    const words = SEAT_ACTIONS[what];
    const key = `${what}-${seat.id}`;
    const escape = (e) => {
      if (e.key !== "Escape") return;
      e.preventDefault(); // this Escape takes back the question, it does not close the sheet
      cancel(key);
    };
    return h(
      "div",
      { class: "seat-actions asking", role: "group", "aria-label": words.label(seat.name), key: "actions" },
      h("p", { role: "status" }, words.question(seat.name)),
      button(
        words.yes,
        () => {
          intents.confirm(null);
          intents.send({ type: what, id: seat.id });
        },
        { key, class: "danger", "aria-label": words.yesLabel(seat.name), onkeydown: escape },
      ),
      button("Cancel", () => cancel(key), { key: `${key}-cancel`, onkeydown: escape }),
    );
  }
  return h(
    "div",
    { class: "seat-actions", key: "actions" },
    offered.map((what) =>
      button(SEAT_ACTIONS[what].text, () => intents.confirm({ id: seat.id, what }), {
        key: `${what}-${seat.id}`,
        "aria-label": SEAT_ACTIONS[what].label(seat.name),
      }),
    ),
  );
}

function playersPanel(model, intents, ctx, gameModule, view) {
  const info = model.room.state.room;
  const youHost = ctx.you !== null && info.host === ctx.you;
  const playing = info.phase === "playing";
  return h(
    "section",
    { class: "panel players-panel", "aria-labelledby": "players-title", "data-panel": "players", key: "players" },
    sheetHead(intents, "players", h("h2", { id: "players-title", tabindex: -1, "data-sheet-focus": "" }, "Players")),
    h(
      "ul",
      { class: "player-list" },
      info.seats.map((seat, index) => {
        const status = seatStatus(seat);
        const turn = view && view.to_act.includes(index) && !view.over;
        // The turn timer runs for the seats to act that a person plays (docs/protocol.md).
        const timed = turn && !seat.bot && !seat.away && ctx.deadlineAt !== null;
        return h(
          "li",
          { key: `s${seat.id}`, class: [turn && "turn", index === ctx.you && "mine"] },
          h("span", { class: ["presence", status], "aria-hidden": "true" }),
          h(
            "span",
            { class: "player-main" },
            h("span", { class: "seat-name", title: seat.name }, tableName(seat)),
            index === ctx.you ? h("span", { class: "badge you" }, "you") : null,
            info.host === index ? h("span", { class: "badge host" }, "host") : null,
            h("span", { class: `badge ${status}` }, STATUS_WORDS[status]),
            turn ? h("span", { class: "badge turn" }, "to play") : null,
            timed && status === "online" ? h("span", { class: "badge timer" }, countdown(ctx.deadlineAt)) : null,
            turn && status === "offline" && takeoverOf(model.room, index) !== null
              ? h("span", { class: "badge timer" }, countdown(takeoverOf(model.room, index), { label: "to the bot" }))
              : null,
          ),
          view && gameModule && gameModule.facts ? h("span", { class: "player-facts" }, gameModule.facts(view, index)) : null,
          youHost && playing && !seat.bot && index !== ctx.you ? seatActions(model, intents, seat) : null,
        );
      }),
    ),
    byText(info) ? modeLine(info) : null,
    youHost && playing && byText(info)
      ? textTimerChoice(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value }), { id: "table-turn-timer" })
      : null,
    youHost && playing && !byText(info)
      ? timerChoice(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value }), {
          id: "table-turn-timer",
        })
      : null,
    ctx.spectator ? null : alertToggle(model, intents),
    moveBox(model, intents),
    leaveBox(model, intents),
  );
}

/** Sound and vibration when it becomes your turn: off unless asked for (remembered). */
function alertToggle(model, intents) {
  return h(
    "label",
    { class: "check turn-alert" },
    h("input", {
      type: "checkbox",
      checked: model.turnAlert,
      onchange: (e) => intents.setTurnAlert(e.target.checked),
    }),
    " Beep and vibrate on my turn",
  );
}

function seatStatus(seat) {
  return seat.bot ? "bot" : seat.away ? "away" : seat.connected ? "online" : "offline";
}

/** A seat's presence in words (docs/protocol.md, "Seats"): what the server knows of it. */
const STATUS_WORDS = { bot: "bot", away: "bot playing", online: "online", offline: "connection lost" };

/** The name a seat goes by at the table: "Bot (for Ben)" while a bot plays for Ben. */
function tableName(seat) {
  return seat.away && !seat.bot ? `Bot (for ${seat.name})` : seat.name;
}

/** When a bot takes over the seat at ``index`` (its player dropped on their turn), or null. */
function takeoverOf(room, index) {
  const at = room.takeoverAt && room.takeoverAt[index];
  return at === undefined ? null : at;
}

/** A panel's heading; on a portrait phone the panel is a sheet, and this row closes it. */
function sheetHead(intents, name, heading) {
  return h(
    "div",
    { class: "sheet-head" },
    heading,
    button("Close", () => intents.closeSheet(), {
      class: "sheet-close",
      "aria-label": "Close",
      key: `close-${name}`,
    }),
  );
}

function chatPanel(model, intents) {
  const room = model.room;
  const lines = (room.chat && room.chat.lines) || [];
  const spectator = room.state && room.state.you === null;
  return h(
    "section",
    { class: "panel chat", "aria-labelledby": "chat-title", "data-panel": "chat", key: "chat" },
    sheetHead(intents, "chat", h("h2", { id: "chat-title", tabindex: -1 }, "Chat")),
    h(
      "ol",
      { class: "chat-log", "aria-live": "polite", tabindex: 0, "aria-label": "Chat messages" },
      lines.length
        ? lines.map((line, i) =>
            h("li", { key: `l${(room.chat.total - lines.length) + i}` }, h("strong", null, `${line.name}: `), line.text),
          )
        : h("li", { class: "muted" }, "No messages yet."),
    ),
    spectator
      ? h("p", { class: "muted" }, "Spectators can read the chat.")
      : h(
          "form",
          {
            class: "chat-form",
            onsubmit: (e) => {
              e.preventDefault();
              // The line stays in the box until the server takes it (main.js clears it on
              // the ack): a line refused as too fast is not lost.
              const input = e.target.elements.namedItem("chat-text");
              if (input.value.trim()) intents.chat(input.value);
            },
          },
          h("label", { for: "chat-text", class: "visually-hidden" }, "Message"),
          h("input", { id: "chat-text", name: "chat-text", type: "text", maxlength: 200, autocomplete: "off", placeholder: "Say something", "data-sheet-focus": "" }),
          h("button", { type: "submit" }, "Send"),
        ),
  );
}

function logPanel(model, intents) {
  const lines = model.room.log;
  return h(
    "section",
    { class: "panel log-panel", "aria-labelledby": "log-title", "data-panel": "log", key: "log" },
    sheetHead(intents, "log", h("h2", { id: "log-title", tabindex: -1, "data-sheet-focus": "" }, "Game log")),
    h(
      "ol",
      { class: "game-log", tabindex: 0, "aria-label": "What happened, latest last" },
      lines.length
        ? lines.map((line) => h("li", { key: `g${line.id}` }, line.text))
        : h("li", { class: "muted" }, "Nothing has happened yet."),
    ),
  );
}

function invitePanel(model, intents) {
  return h(
    "section",
    { class: "panel invite", "data-panel": "invite", key: "invite", "aria-labelledby": "invite-title" },
    sheetHead(intents, "invite", h("h2", { id: "invite-title", tabindex: -1, "data-sheet-focus": "" }, "Invite or share")),
    shareBox(model, intents),
  );
}

function leaveBox(model, intents) {
  const room = model.room;
  const playing = room.state.room.phase === "playing";
  if (room.state.you === null) {
    return h(
      "div",
      { class: "button-row leave" },
      room.state.room.phase === "lobby" ? button("Take a seat", intents.takeSeat, { class: "primary" }) : null,
      button("Stop watching", intents.leave),
    );
  }
  if (room.ui.confirmLeave) {
    return h(
      "div",
      { class: "leave confirm", role: "group", "aria-label": "Leave the room?" },
      h("p", null, playing ? "Leave for good? A bot will play your seat." : "Leave the room?"),
      h("div", { class: "button-row" }, button("Leave", intents.leave, { class: "danger" }), button("Stay", () => intents.setRoomUi({ confirmLeave: false }))),
    );
  }
  return h("div", { class: "button-row leave" }, button("Leave the room", () => intents.setRoomUi({ confirmLeave: true })));
}

// Handlers in blocks: an `on…` property that returns false cancels the event (Enter on a
// button would no longer press it).
function closeOnEscape(intents) {
  return (e) => {
    if (e.key === "Escape" && !e.defaultPrevented) intents.closeSheet();
  };
}

function closeOnBackdrop(intents) {
  return (e) => {
    if (e.target === e.currentTarget) intents.closeSheet();
  };
}

/** The "How to play" sheet (lobby and table): the game module's own words, over the page. */
function howToSheet(model, intents) {
  const room = model.room;
  if (room.ui.sheet !== "howto" || !room.state) return null;
  const gameModule = loadedGame(room.state.room.game);
  const ctx = gameContext(model, intents);
  let content;
  try {
    content = gameModule && gameModule.howTo ? gameModule.howTo(ctx) : null;
  } catch (error) {
    console.error("could not draw the game's rules", error);
  }
  const game = model.gameInfo;
  return h(
    "div",
    { class: "sheet-backdrop", key: "howto-sheet", onclick: closeOnBackdrop(intents) },
    h(
      "section",
      {
        class: "panel sheet howto",
        role: "dialog",
        "aria-modal": "true",
        "aria-labelledby": "howto-title",
        "data-panel": "howto",
        onkeydown: closeOnEscape(intents),
      },
      sheetHead(
        intents,
        "howto",
        h("h2", { id: "howto-title", tabindex: -1, "data-sheet-focus": "" }, `How to play${game ? ` ${game.name}` : ""}`),
      ),
      h("div", { class: "howto-body" }, content || h("p", { class: "muted" }, game ? game.summary : "The rules of this game are not written here yet.")),
    ),
  );
}

function howToButton(intents) {
  return button("How to play", () => intents.openSheet("howto"), { class: "howto-button", key: "open-howto" });
}

// -- the table ------------------------------------------------------------------------------------

/** What a game module may read and do (see ./games/index.js). */
export function gameContext(model, intents) {
  const room = model.room;
  const state = room.state;
  const info = state.room;
  return gameCtx({
    you: state.you,
    names: (seat) => seatName(info, seat),
    ui: room.ui.game || {},
    setUi: intents.setGameUi,
    act: intents.act,
    busy: Boolean(room.sending) || room.status !== "open",
    pending: room.sending ? room.sending.action : null,
    deadlineAt: room.deadlineAt,
    away: state.you !== null && Boolean(info.seats[state.you] && info.seats[state.you].away),
    // The frame's own (the turn banner's): who a dropped player is, when a bot takes over.
    seats: info.seats,
    takeoverAt: (index) => takeoverOf(room, index),
  });
}

function resultsView(model, intents, view, gameModule, ctx) {
  const result = view.result;
  const info = model.room.state.room;
  const headline = winHeadline(result, (s) => who(s, ctx));
  const youHost = ctx.you !== null && info.host === ctx.you;
  const game = model.gameInfo;
  if (model.room.ui.resultsHidden) return null;
  const summary = gameSummary(gameModule, view, ctx);
  return h(
    "div",
    { class: "results-backdrop", key: "results" },
    h(
      "section",
      {
        class: "panel results",
        role: "dialog",
        "aria-labelledby": "results-title",
        "data-results": "",
      },
      h("h2", { id: "results-title", tabindex: -1 }, headline),
      h("p", { class: "muted" }, namedReason(result.reason, info.seats)),
      standingsTable(result, ctx.names, gameModule && gameModule.scoreName, ctx.you),
      summary ? h("div", { class: "results-summary" }, summary) : null,
      dealCheckView(model.room, info, intents),
      dealingNote(model.room.state, model.room.deadlineAt),
      info.phase !== "finished"
        ? null
        : youHost && game
          ? h(
              "details",
              { class: "options", key: "rematch-options" },
              h("summary", null, "Options for the rematch"),
              optionsFields(game.options, info.options, (name, value) => intents.send({ type: "options", options: { [name]: value } })),
              timerField(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value })),
            )
          : youHost
            ? null
            : h("p", null, ctx.spectator ? "The host may start a rematch." : "Waiting for the host to start a rematch."),
      h(
        "div",
        { class: "button-row rematch" },
        youHost && info.phase === "finished" && !(info.next_deal && info.next_deal.stage)
          ? button("Rematch", () => intents.send({ type: "rematch" }), { class: "primary", "data-rematch": "" })
          : null,
        button("New game", intents.goHome, { "data-new-game": "" }),
        button("See the table", () => intents.setRoomUi({ resultsHidden: true }), { key: "hide-results" }),
      ),
      info.phase === "finished"
        ? h("p", { class: "replay-link" }, h("a", { href: `/r/${model.room.code}/replay/${info.round}${ctx.you === null ? "" : `?seat=${ctx.you}`}`, "data-replay-link": "" }, "Watch the replay"))
        : null,
    ),
  );
}

/** How the game's deal checked out in this browser (docs/fairplay.md), and its record. */
function dealCheckView(room, info, intents) {
  const deal = info.deal;
  if (!deal || info.phase !== "finished") return null;
  const check = room.dealCheck && room.dealCheck.round === deal.round ? room.dealCheck : { pending: true };
  const record = `/api/rooms/${room.code}/games/${deal.round}/record`;
  let line;
  if (check.pending) line = h("span", { "data-deal-check": "pending" }, "Checking the deal…");
  else if (check.ok) {
    const views = check.views ? ` and the ${check.views} tables you were shown are the record's` : "";
    line = h(
      "span",
      {
        "data-deal-check": "ok",
        "data-deal-prior": check.prior || "none",
        title: `The revealed seed matches the commitment this page saw before the deal (${deal.commitment}); your value was used${views}.`,
      },
      "Deal verified ✓",
    );
  } else if (check.ok === null) {
    line = h("span", { "data-deal-check": "unchecked", title: "Nothing this page saw contradicts the deal, but it cannot tell that the deal was not steered." }, `Deal not checked by this page: ${check.reason}`);
  } else line = h("span", { "data-deal-check": "failed", class: "error" }, `Deal not verified ✗: ${check.reason}`);
  return h(
    "p",
    { class: "deal-check", key: "deal-check" },
    line,
    " · ",
    h("a", { href: record, download: `parlor-${room.code}-${deal.round}.json`, "data-record-link": "" }, "Download the record"),
    room.state && room.state.you !== null
      ? [" · ", h("a", { href: "#", "data-my-game": "", onclick: (e) => { e.preventDefault(); intents.downloadMyGame(deal.round); } }, "Download my game")]
      : null,
  );
}

function turnBanner(view, gameModule, ctx) {
  if (view.over) return h("p", { class: "turn-banner over", "data-turn": "over", role: "status", tabindex: -1 }, "The game is over.");
  // Your turn when the table waits for a move of yours; a move it does not wait for (the game's
  // optional ones) only adds the game's prompt to the banner.
  const waitedFor = turnActions(gameModule, view).length;
  const mine = !ctx.spectator && waitedFor > 0;
  const optional = !ctx.spectator && waitedFor < (view.legal || []).length;
  // Whom the table waits for, if that is a person who is not there: say so, not "is playing".
  const absent = mine ? null : absentActor(view, ctx);
  const banner = mine
    ? h(
        "p",
        { class: "turn-banner mine", "data-turn": "mine", role: "status", tabindex: -1 },
        h("strong", null, "Your turn. "),
        gameModule.prompt(view, ctx),
      )
    : h(
        "p",
        { class: "turn-banner", "data-turn": "other", "data-absent": absent ? absent.status : null, role: "status", tabindex: -1 },
        absent ? absent.text : gameModule.waiting(view, ctx) || "Waiting…",
        optional ? ` ${gameModule.prompt(view, ctx)}` : "",
      );
  // Beside the banner, not in it: the banner is a live region, and a clock in it would be
  // read out every second.
  return h(
    "div",
    { class: "turn-line" },
    banner,
    // An away seat has no clock (its bot plays now); a dropped player's shows when the bot
    // takes over.
    absent && absent.status === "offline" && absent.at !== null
      ? h("span", { class: "banner-timer" }, countdown(absent.at, { label: "to the bot" }))
      : ctx.deadlineAt === null || (mine && ctx.away) || (absent && absent.status === "away")
        ? null
        : h("span", { class: ["banner-timer", mine && "mine"] }, countdown(ctx.deadlineAt)),
  );
}

/** The one person the table waits for, if their connection dropped or a bot plays for them:
 * {status, text, at} (at: when a bot takes over, or null). */
function absentActor(view, ctx) {
  const acting = (view.to_act || []).filter((s) => s !== ctx.you);
  if (acting.length !== 1) return null;
  const index = acting[0];
  const seat = ctx.seats[index];
  if (!seat || seat.bot) return null;
  if (seat.away) return { status: "away", text: `A bot is playing for ${seat.name}.`, at: null };
  if (seat.connected) return null;
  const at = ctx.takeoverAt(index);
  const text = at !== null ? `${seat.name}'s connection dropped — a bot plays for ${seat.name} in ` : `${seat.name}'s connection dropped.`;
  return { status: "offline", text: at !== null ? [text, countdown(at, { label: "" })] : text, at };
}

/** Why a bot plays for you, from the moves the log holds (docs/protocol.md: `by`): the last
 * move made for you says whether your time ran out or your connection dropped; with none, the
 * host let a bot play for you. */
function awayCause(room, you) {
  // The first move made for you since your own last one started it.
  let first = null;
  for (let i = room.log.length - 1; i >= 0; i--) {
    const line = room.log[i];
    if (line.seat !== you || !line.by) continue;
    if (line.by === "act") break;
    first = line.by;
  }
  if (first === "timeout") return "your time ran out";
  if (first === "takeover") return "your connection dropped";
  return "the host let a bot take your turns";
}

/** Told once to a player who comes back (reconnect, reload, new device): what happened since
 * the last table they saw, in names. */
function digestNote(room, intents) {
  const digest = room.digest;
  const shown = digest.lines.slice(-8);
  const more = digest.lines.length - shown.length;
  const n = digest.forYou;
  return h(
    "section",
    { class: "covered-note digest", role: "status", key: `digest${digest.id}`, "data-digest": "" },
    h("p", null, h("strong", null, "While you were away"), n ? ` A bot played ${n} ${n === 1 ? "move" : "moves"} for you.` : ""),
    h("ol", { class: "digest-lines" }, more > 0 ? h("li", { class: "muted" }, `… and ${more} more before these`) : null, shown.map((text, i) => h("li", { key: `d${i}` }, text))),
    button("Got it", intents.dismissCovered, { "aria-label": "Dismiss what happened while you were away" }),
  );
}

/** Shown once to a player who comes back to a seat a bot played for them. */
function coveredNote(room, intents) {
  if (!room.covered) return null;
  const n = room.covered.count;
  return h(
    "p",
    { class: "covered-note", role: "status", key: `covered${room.covered.id}` },
    `A bot played ${n} ${n === 1 ? "move" : "moves"} for you. `,
    button("Dismiss", intents.dismissCovered, { "aria-label": "Dismiss what happened while you were away" }),
  );
}

/** The other players, across the top (./table.js), with what the room knows of each: presence
 * in words, the clock of a seat to play, when a bot takes over a dropped one. */
function stripView(model, ctx, gameModule, view) {
  return seatStrip(model.room.state.room.seats, view, ctx, gameModule, (seat, index, turn) => {
    const status = seatStatus(seat);
    const takeover = turn && status === "offline" ? takeoverOf(model.room, index) : null;
    const timed = turn && status === "online" && ctx.deadlineAt !== null;
    return {
      status,
      name: tableName(seat),
      key: `o${seat.id}`,
      extra: [
        status === "offline" || status === "away"
          ? h(
              "span",
              { class: ["strip-presence", status], "data-presence": status },
              STATUS_WORDS[status],
              takeover !== null ? [" · bot in ", countdown(takeover, { label: "" })] : null,
            )
          : null,
        timed ? h("span", { class: "strip-timer" }, countdown(ctx.deadlineAt)) : null,
      ],
    };
  });
}

/** On a portrait phone the side things are sheets, opened from this bar. */
function sideBar(model, intents, ctx) {
  const room = model.room;
  const unread = room.unread || 0;
  const open = (name) => () => intents.openSheet(room.ui.sheet === name ? null : name);
  const item = (name, text, extra = null, props = {}) =>
    button([text, extra], open(name), {
      key: `open-${name}`,
      class: ["bar-button", room.ui.sheet === name && "open"],
      "aria-expanded": room.ui.sheet === name ? "true" : "false",
      ...props,
    });
  return h(
    "nav",
    { class: "side-bar", "aria-label": "Table menu" },
    item("players", "Players"),
    item(
      "chat",
      "Chat",
      unread ? h("span", { class: "unread", "data-unread": String(unread), "aria-hidden": "true" }, String(unread)) : null,
      { "aria-label": unread ? `Chat, ${unread} unread` : "Chat" },
    ),
    item("log", "Log"),
    // Its accessible name starts with the word it shows (WCAG "label in name").
    button("Rules", () => intents.openSheet("howto"), { key: "open-howto-bar", class: "bar-button", "aria-label": "Rules: how to play" }),
    ctx.spectator ? null : item("invite", "Invite"),
  );
}

function tableView(model, intents) {
  const room = model.room;
  const state = room.state;
  const view = state.view;
  const gameModule = loadedGame(state.room.game);
  const ctx = gameContext(model, intents);
  const me = state.you === null ? null : state.room.seats[state.you];
  let parts = { middle: null, tray: null, moves: null, hint: null };
  let banner = null;
  let results = null;
  if (!view || !gameModule) {
    parts.middle = noTable(state.room.game, !view || knownGame(state.room.game));
  } else {
    banner = turnBanner(view, gameModule, ctx);
    results = view.over && view.result ? resultsView(model, intents, view, gameModule, ctx) : null;
    parts = tableParts(gameModule, view, ctx);
  }
  const latest = room.log.length ? room.log[room.log.length - 1] : null;
  const sheet = room.ui.sheet && room.ui.sheet !== "howto" ? room.ui.sheet : null;
  return h(
    "div",
    { class: "table-layout", "data-sheet": sheet, key: "table-layout" },
    h(
      "div",
      { class: "table-area", "aria-busy": room.sending ? "true" : "false", tabindex: -1, "aria-label": "The table", key: "table-area" },
      // Everything but the tray, in one column: it is the tray's neighbour on a phone held
      // sideways, and no box at all (display: contents) otherwise.
      h(
        "div",
        { class: "table-column", key: "column" },
        stripView(model, ctx, gameModule, view),
        // The live region below reads each new line out; the ticker only shows the latest.
        h(
          "p",
          { class: "ticker", "data-ticker": "", role: "status", "aria-live": "off", key: "ticker" },
          latest ? latest.text : "",
        ),
        banner,
        sendBar(model, intents),
        room.digest ? digestNote(room, intents) : coveredNote(room, intents),
        me && me.away
          ? h(
              "p",
              { class: "away-banner", role: "status" },
              `A bot is playing for you for now: ${awayCause(room, ctx.you)}. `,
              button("I'm back", () => intents.send({ type: "back" }), { class: "primary" }),
            )
          : null,
        ctx.spectator ? h("p", { class: "spectating" }, "You are watching this game.") : null,
        h("div", { class: "table-middle", key: "middle" }, parts.middle),
      ),
      h(
        "div",
        { class: ["tray", ctx.spectator && "spectator"], key: "tray" },
        h("p", { class: "tray-hint", key: "hint" }, parts.hint || ""),
        h(
          "div",
          { class: "tray-moves", key: "moves" },
          view && view.over && room.ui.resultsHidden
            ? button("Show the results", () => intents.setRoomUi({ resultsHidden: false }), { class: "primary", key: "show-results" })
            : parts.moves,
        ),
        h("div", { class: "tray-hand", key: "hand" }, parts.tray),
      ),
    ),
    sideBar(model, intents, ctx),
    h(
      "aside",
      { class: "table-side", "aria-label": "Players, chat and the game log", key: "side", onkeydown: closeOnEscape(intents) },
      h("div", { class: "side-tools" }, howToButton(intents)),
      playersPanel(model, intents, ctx, gameModule, view),
      chatPanel(model, intents),
      logPanel(model, intents),
      ctx.spectator ? null : invitePanel(model, intents),
    ),
    results,
    h("p", { class: "visually-hidden", "aria-live": "polite", key: "announce" }, room.announce || ""),
  );
}

// -- the whole room -------------------------------------------------------------------------------

export function screenOf(model) {
  const room = model.room;
  if (room.notice) return "notice";
  if (room.entry === "ask") return "entry";
  if (!room.state) return "connecting";
  return room.state.room.phase === "lobby" ? "lobby" : "table";
}

export function roomView(model, intents) {
  const room = model.room;
  const screen = screenOf(model);
  const error = room.error
    ? h(
        "div",
        { class: "toast", role: "alert", key: `err${room.error.id}` },
        h("span", null, room.error.text),
        button("Dismiss", intents.dismissError, { "aria-label": "Dismiss the message" }),
      )
    : null;
  let body;
  if (screen === "notice") body = noticeView(model, intents);
  else if (screen === "entry") body = entryView(model, intents);
  else if (screen === "connecting") body = h("p", { class: "connecting", role: "status" }, room.claiming ? "Moving your seat to this device…" : "Connecting to the room…");
  else if (screen === "lobby") {
    body = h(
      "div",
      { class: "lobby-layout" },
      lobbyView(model, intents, howToButton(intents)),
      h("aside", { class: "lobby-chat" }, chatPanel(model, intents), leaveBox(model, intents)),
    );
  } else body = tableView(model, intents);
  return [error, body, screen === "lobby" || screen === "table" ? howToSheet(model, intents) : null, screen === "table" ? phoneSheet(model, intents) : null];
}

const STATUS_TEXT = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Connection lost — reconnecting…",
  closed: "Offline",
};

export function headerView(model, intents) {
  const room = model.route === "room" ? model.room : null;
  return h(
    "div",
    { class: "bar" },
    brandLink(intents.goHome),
    room ? h("span", { class: "bar-code", "aria-label": `Room ${room.code}` }, room.code) : null,
    room && room.entry !== "ask" && !room.notice
      ? h(
          "span",
          { class: ["conn", room.status], role: "status", "data-connection": room.status },
          STATUS_TEXT[room.status] || room.status,
        )
      : null,
  );
}
