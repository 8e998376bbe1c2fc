/**
 * Bots that say what they did (issue 22). The server marks each move a bot made for a person's
 * seat with a public event `{type: "auto", seat, reason: "time" | "away", version, events: k}`
 * placed before the k events of that move (app/hand_log.py). From these marks:
 * - the player whose turn timer ran out reads "Time's up: 5♣ was played for you", the rest of
 *   the table "Bot played 5♣ for Ben (time)" (`autoNotices`);
 * - a person back after an absence reads "While you were away:" and what the stand-in played
 *   for their seats (`awaySummary`, from the whole hand's events a socket gets on connect);
 * - the play log marks those plays "(bot for Ben)" (`markedEvents`).
 */
import { h } from "./dom.js";
import { addStrings, t } from "./i18n.js";
import { describeCard } from "./cards.js";

addStrings({
  en: {
    "auto.time.you.play": "Time's up: {cards} was played for you.",
    "auto.time.you.pass": "Time's up: you passed (the bot chose for you).",
    "auto.time.you.move": "Time's up: the bot made this move for you.",
    "auto.time.table.play": "Bot played {cards} for {name} (time)",
    "auto.time.table.pass": "Bot passed for {name} (time)",
    "auto.time.table.move": "Bot moved for {name} (time)",
    "auto.log": "(bot for {name})",
    "auto.away.title": "While you were away:",
    "auto.away.pass": "passed",
    "auto.away.move": "a move",
    "auto.away.more": "and {n} more move(s)",
    "auto.dismiss": "OK",
  },
  ja: {
    "auto.time.you.play": "時間切れ: ボットがあなたの代わりに{cards}を出しました。",
    "auto.time.you.pass": "時間切れ: ボットがあなたの代わりにパスしました。",
    "auto.time.you.move": "時間切れ: ボットがあなたの代わりに手を選びました。",
    "auto.time.table.play": "ボットが{name}さんの代わりに{cards}を出しました(時間切れ)",
    "auto.time.table.pass": "ボットが{name}さんの代わりにパスしました(時間切れ)",
    "auto.time.table.move": "ボットが{name}さんの代わりに手を選びました(時間切れ)",
    "auto.log": "(ボットが{name}さんの代わりに)",
    "auto.away.title": "離席中にボットが代わりにしたこと:",
    "auto.away.pass": "パス",
    "auto.away.move": "手番",
    "auto.away.more": "ほか{n}手",
    "auto.dismiss": "OK",
  },
});

/** How long a "Time's up" / "Bot played … (time)" line stays on the table. */
export const AUTO_NOTE_MS = 8000;
/** At most this many of a stand-in's moves are listed one by one in the away summary. */
const SUMMARY_ROWS = 12;

/** A card as a player names it: "5♣" for the standard deck, else the deck's own label. */
export function shortCardName(code, deck) {
  const info = describeCard(code, deck);
  return info.kind === "suit" && info.symbol ? `${info.rank}${info.symbol}` : info.label;
}

/** Each `auto` mark in `events` with the events of the move it covers. */
export function autoMoves(events) {
  const moves = [];
  (events || []).forEach((event, index) => {
    if (event && event.type === "auto") {
      moves.push({ ...event, covered: events.slice(index + 1, index + 1 + (event.events || 0)) });
    }
  });
  return moves;
}

/** What a covered move did, as public facts: the cards it played (once played they are public),
 * or a pass, or something else (a hidden discard names no card). */
function moveFacts(move) {
  const plays = move.covered.filter((e) => e.type === "play" && e.seat === move.seat);
  const cards = plays.flatMap((e) => e.cards || (e.card ? [e.card] : []));
  if (cards.length) return { kind: "play", cards };
  if (move.covered.some((e) => e.type === "pass" && e.seat === move.seat)) return { kind: "pass", cards: [] };
  return { kind: "move", cards: [] };
}

/**
 * The lines a state's events call for: one per timed-out move, worded for its own player when
 * `mySeats` holds the seat, else for the table. `name(seat)` gives a seat's display name.
 * @returns {{seat: number, mine: boolean, text: string}[]}
 */
export function autoNotices(events, mySeats, name, deck) {
  return autoMoves(events)
    .filter((move) => move.reason === "time")
    .map((move) => {
      const facts = moveFacts(move);
      const cards = facts.cards.map((c) => shortCardName(c, deck)).join(" ");
      const mine = mySeats.includes(move.seat);
      const key = `auto.time.${mine ? "you" : "table"}.${facts.kind}`;
      return { seat: move.seat, mine, text: t(key, { cards, name: name(move.seat) }) };
    });
}

/**
 * The moves a stand-in made for `mySeats` after `sinceVersion` in a hand's events (the away
 * summary), or null when there were none.
 */
export function awaySummary(handEvents, mySeats, sinceVersion) {
  const moves = autoMoves(handEvents)
    .filter((move) => move.reason === "away" && mySeats.includes(move.seat) && move.version > sinceVersion)
    .map((move) => ({ seat: move.seat, version: move.version, ...moveFacts(move) }));
  return moves.length ? moves : null;
}

/** Which events of a list a bot made for a person: event index -> the seat it stood in for. */
export function markedEvents(events) {
  const marked = new Map();
  (events || []).forEach((event, index) => {
    if (event && event.type === "auto") {
      for (let i = 1; i <= (event.events || 0); i++) marked.set(index + i, event.seat);
    }
  });
  return marked;
}

/**
 * The away summary box: the title, then one row per move (several seats: with the seat's name),
 * and an OK button that dismisses it. `card(code)` draws a small card.
 */
export function awaySummaryBox(moves, { name, card, several, onDismiss }) {
  const rows = moves.slice(0, SUMMARY_ROWS).map((move) => h("li", { class: "away-summary-row" },
    several ? h("span", { class: "log-seat" }, name(move.seat)) : null,
    move.kind === "play"
      ? h("span", { class: "card-row" }, move.cards.map((c) => card(c)))
      : h("span", null, t(move.kind === "pass" ? "auto.away.pass" : "auto.away.move"))));
  const more = moves.length - SUMMARY_ROWS;
  return h("div", { class: "away-summary", role: "status", "data-testid": "away-summary" },
    h("strong", null, t("auto.away.title")),
    h("ol", { class: "away-summary-rows" }, rows),
    more > 0 ? h("span", { class: "muted" }, t("auto.away.more", { n: more })) : null,
    h("button", { type: "button", class: "small", "data-testid": "away-summary-ok", onclick: onDismiss }, t("auto.dismiss")));
}
