/**
 * Taking back one's own last action. The server's state message names
 * the seat that may take back now (`take_back`: its last action is still the match's last, and
 * the engine found that it showed nobody a hidden card); the table then offers a "Take back"
 * button and Ctrl+Z / ⌘Z to the person holding that seat. The server checks everything again.
 */
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The seat of this person whose last action may be taken back now, or null. */
export function takeBackSeat(table) {
  const seat = table.state ? table.state.take_back : null;
  return seat !== undefined && seat !== null && table.heldSeats().includes(seat) ? seat : null;
}

/** Ask the server to take back; false when there is nothing to take back or it was not sent. */
export function sendTakeBack(table) {
  const seat = takeBackSeat(table);
  if (seat === null || table.pending) return false;
  const { match_id: matchId, version } = table.state;
  const sent = table.sendRaw({ type: "take_back", match_id: matchId, seat, version });
  if (sent) {
    table.pending = true;
    table.render();
  }
  return sent;
}

/** The status line's "Take back" button, while this person may take back. */
export function takeBackButton(table) {
  if (takeBackSeat(table) === null) return null;
  return h("button", {
    type: "button", class: "small take-back", "data-testid": "take-back", title: t("takeback.keys"),
    onclick: () => sendTakeBack(table),
  }, t("takeback.button"));
}

/** Ctrl+Z / ⌘Z takes back, except while typing (the chat keeps its own undo). */
export function listenForUndoKey(table, signal) {
  window.addEventListener("keydown", (event) => {
    if (event.key.toLowerCase() !== "z" || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    if (sendTakeBack(table)) event.preventDefault();
  }, { signal });
}

/** The cards of a taken-back action (shown face up in the play log), if it had any. */
export function takenBackCards(action) {
  if (!action) return [];
  return action.cards || (action.card ? [action.card] : []);
}

/** What was taken back, in words: "7♠" for cards (via `cardsText`), else the bid or the kind. */
export function takenBackText(action, cardsText) {
  if (!action) return "";
  const cards = takenBackCards(action);
  if (cards.length) return cardsText(cards);
  if (action.type === "pass") return t("log.pass");
  return String(action.bid ?? action.contract ?? action.pile ?? action.crest ?? action.type);
}

/** The play log's line for a `take_back` event: "‹name› took back" and the cards. */
export function takeBackLogEntry(event) {
  const cards = takenBackCards(event.action);
  const text = cards.length ? t("log.take_back") : t("log.take_back_what", { what: takenBackText(event.action, () => "") });
  return { kind: "note", seat: event.seat, text, cards };
}

/** Replay steps: mark each take-back with the action it undid (`step.undone`). */
export function markUndone(steps) {
  const played = [];
  for (const step of steps) {
    if (step.action && step.action.type === "take_back") step.undone = (played.pop() || {}).action || null;
    else played.push(step);
  }
  return steps;
}

/** The match page's note of how often each person took back (nothing when nobody did). */
export function takeBackCounts(seats, seatName) {
  const counted = (seats || []).filter((seat) => seat.take_backs > 0);
  if (!counted.length) return null;
  return h("p", { class: "muted", "data-testid": "take-back-counts" },
    t("match.take_backs"), " ",
    counted.map((seat) => t("match.take_backs.seat", { name: seatName(seat.n), n: seat.take_backs })).join(" · "));
}
