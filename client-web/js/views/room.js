// A room on screen: entering it (join or watch), the lobby, or the live table with its turn
// banner, players, chat and results. Game tables come from ./games/.

import { h } from "../dom.js";
import { button, countdown, listNames, optionsFields, seatName, timerChoice, timerField } from "./common.js";
import { gameModule as loadedGame, knownGame } from "./games/index.js";
import { lobbyView, shareBox } from "./lobby.js";

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
    h("h1", null, game ? `${game.name} · room ${room.code}` : `Room ${room.code}`),
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
    h("h1", null, `Room ${model.room.code}`),
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
      if (e.key === "Escape") cancel(key);
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
    { class: "panel players-panel", "aria-labelledby": "players-title" },
    h("h2", { id: "players-title" }, "Players"),
    h(
      "ul",
      { class: "player-list" },
      info.seats.map((seat, index) => {
        const status = seat.bot ? "bot" : seat.away ? "away" : seat.connected ? "online" : "offline";
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
            h("span", { class: "seat-name" }, seat.name),
            index === ctx.you ? h("span", { class: "badge you" }, "you") : null,
            info.host === index ? h("span", { class: "badge host" }, "host") : null,
            h("span", { class: `badge ${status}` }, status),
            turn ? h("span", { class: "badge turn" }, "to play") : null,
            timed ? h("span", { class: "badge timer" }, countdown(ctx.deadlineAt)) : null,
          ),
          view && gameModule ? h("span", { class: "player-facts" }, gameModule.facts(view, index)) : null,
          youHost && playing && !seat.bot && index !== ctx.you ? seatActions(model, intents, seat) : null,
        );
      }),
    ),
    youHost && playing
      ? timerChoice(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value }), {
          id: "table-turn-timer",
        })
      : null,
  );
}

function chatPanel(model, intents) {
  const room = model.room;
  const lines = (room.chat && room.chat.lines) || [];
  const spectator = room.state && room.state.you === null;
  return h(
    "section",
    { class: "panel chat", "aria-labelledby": "chat-title" },
    h("h2", { id: "chat-title" }, "Chat"),
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
              const input = e.target.elements.namedItem("chat-text");
              if (input.value.trim() && intents.chat(input.value)) input.value = "";
            },
          },
          h("label", { for: "chat-text", class: "visually-hidden" }, "Message"),
          h("input", { id: "chat-text", name: "chat-text", type: "text", maxlength: 200, autocomplete: "off", placeholder: "Say something" }),
          h("button", { type: "submit" }, "Send"),
        ),
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

// -- the table ------------------------------------------------------------------------------------

function gameContext(model, intents) {
  const room = model.room;
  const state = room.state;
  const info = state.room;
  return {
    you: state.you,
    spectator: state.you === null,
    names: (seat) => seatName(info, seat),
    ui: room.ui.game || {},
    setUi: intents.setGameUi,
    act: intents.act,
    busy: room.busy || room.status !== "open",
    recent: (seat) => (room.recent[seat] ? room.recent[seat].text : null),
    deadlineAt: room.deadlineAt,
    away: state.you !== null && Boolean(info.seats[state.you] && info.seats[state.you].away),
  };
}

function resultsView(model, intents, view, gameModule, ctx) {
  const result = view.result;
  const info = model.room.state.room;
  const winners = result.winners.map((s) => (s === ctx.you ? "You" : ctx.names(s)));
  const headline =
    winners.length === 1
      ? `${winners[0]} ${winners[0] === "You" ? "win" : "wins"}!`
      : `${listNames(winners)} share the win!`;
  const order = result.places.map((place, seat) => ({ place, seat })).sort((a, b) => a.place - b.place || a.seat - b.seat);
  const youHost = ctx.you !== null && info.host === ctx.you;
  const game = model.gameInfo;
  return h(
    "section",
    { class: "panel results", "aria-labelledby": "results-title", "data-results": "" },
    h("h2", { id: "results-title" }, headline),
    h("p", { class: "muted" }, result.reason),
    h(
      "table",
      null,
      h("thead", null, h("tr", null, h("th", null, "Place"), h("th", null, "Player"), h("th", null, gameModule ? gameModule.scoreName : "Score"))),
      h(
        "tbody",
        null,
        order.map(({ place, seat }) =>
          h(
            "tr",
            { key: seat, class: result.winners.includes(seat) ? "winner" : null },
            h("td", null, String(place)),
            h("th", { scope: "row" }, ctx.names(seat), seat === ctx.you ? " (you)" : ""),
            h("td", null, String(result.scores[seat])),
          ),
        ),
      ),
    ),
    info.phase !== "finished"
      ? null
      : youHost
        ? h(
            "div",
            { class: "rematch" },
            game
              ? h(
                  "details",
                  { class: "options", key: "rematch-options" },
                  h("summary", null, "Options for the rematch"),
                  optionsFields(game.options, info.options, (name, value) => intents.send({ type: "options", options: { [name]: value } })),
                  timerField(info.turn_timer, (value) => intents.send({ type: "options", turn_timer: value })),
                )
              : null,
            button("Rematch", () => intents.send({ type: "rematch" }), { class: "primary", "data-rematch": "" }),
          )
        : h("p", null, ctx.spectator ? "The host may start a rematch." : "Waiting for the host to start a rematch."),
  );
}

function turnBanner(view, gameModule, ctx) {
  if (view.over) return h("p", { class: "turn-banner over", "data-turn": "over", role: "status" }, "The game is over.");
  const mine = !ctx.spectator && (view.legal || []).some((a) => a.type !== "undo");
  const undo = !ctx.spectator && (view.legal || []).some((a) => a.type === "undo");
  const banner = mine
    ? h(
        "p",
        { class: "turn-banner mine", "data-turn": "mine", role: "status" },
        h("strong", null, "Your turn. "),
        gameModule.prompt(view, ctx),
      )
    : h(
        "p",
        { class: "turn-banner", "data-turn": "other", role: "status" },
        gameModule.waiting(view, ctx) || "Waiting…",
        undo ? ` ${gameModule.prompt(view, ctx)}` : "",
      );
  // Beside the banner, not in it: the banner is a live region, and a clock in it would be
  // read out every second.
  return h(
    "div",
    { class: "turn-line" },
    banner,
    // An away seat has no clock: the one running is someone else's.
    ctx.deadlineAt === null || (mine && ctx.away)
      ? null
      : h("span", { class: ["banner-timer", mine && "mine"] }, countdown(ctx.deadlineAt)),
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
    button("Dismiss", intents.dismissCovered, { "aria-label": "Dismiss the note about the bot's moves" }),
  );
}

function tableView(model, intents) {
  const room = model.room;
  const state = room.state;
  const view = state.view;
  const gameModule = loadedGame(state.room.game);
  const ctx = gameContext(model, intents);
  const me = state.you === null ? null : state.room.seats[state.you];
  let main;
  if (!view || (!gameModule && knownGame(state.room.game))) {
    main = h("p", null, "Setting up the table…");
  } else if (!gameModule) {
    main = h("p", { class: "error" }, `This client cannot draw the game "${state.room.game}" yet.`);
  } else {
    main = [
      turnBanner(view, gameModule, ctx),
      view.over && view.result ? resultsView(model, intents, view, gameModule, ctx) : null,
      coveredNote(room, intents),
      me && me.away
        ? h(
            "p",
            { class: "away-banner", role: "status" },
            // The room does not say why (timer, lost connection or the host): say all three.
            "A bot is playing for you for now: your time ran out, you were disconnected, or the host let a bot take your turns. ",
            button("I'm back", () => intents.send({ type: "back" }), { class: "primary" }),
          )
        : null,
      ctx.spectator ? h("p", { class: "spectating" }, "You are watching this game.") : null,
      gameModule.table(view, ctx),
    ];
  }
  return h(
    "div",
    { class: "table-layout" },
    h("div", { class: "table-main", "aria-busy": room.busy ? "true" : "false" }, main),
    h(
      "aside",
      { class: "table-side", "aria-label": "Players and chat" },
      playersPanel(model, intents, ctx, gameModule, view),
      chatPanel(model, intents),
      leaveBox(model, intents),
      h("details", { class: "panel invite", key: "invite" }, h("summary", null, "Invite or share"), shareBox(model, intents)),
    ),
    h("p", { class: "visually-hidden", "aria-live": "polite" }, room.announce || ""),
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
  else if (screen === "connecting") body = h("p", { class: "connecting" }, "Connecting to the room…");
  else if (screen === "lobby") {
    body = h(
      "div",
      { class: "lobby-layout" },
      lobbyView(model, intents),
      h("aside", { class: "lobby-chat" }, chatPanel(model, intents), leaveBox(model, intents)),
    );
  } else body = tableView(model, intents);
  return [error, body];
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
    h(
      "a",
      {
        href: "/",
        class: "brand",
        onclick: (e) => {
          e.preventDefault();
          intents.goHome();
        },
      },
      "Parlor",
    ),
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
