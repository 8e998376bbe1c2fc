/**
 * The generic card table: draws any game from the common view keys (docs/ARCHITECTURE.md) and
 * hands the game-specific parts to the game's plugin.
 *
 * ============================================================================================
 * GAME PLUGIN INTERFACE  (static/games/<game id>.js, see also static/games/README.md)
 * ============================================================================================
 * A plugin is an ES module whose default export is a plain object. Only `deck` is required;
 * every other member is optional and the table falls back to sensible generic behaviour.
 *
 *   export default {
 *     deck: "extarot" | "standard" | "french",   // which card faces to draw
 *     direction: "cw" | "ccw",      // the way play moves round the table (default "cw");
 *                                   // seat s+1 is drawn to the viewer's left for "cw", right for "ccw"
 *     strings: { en: {...}, ja: {...} },   // extra i18n keys, read with ctx.t (prefix them "<id>.")
 *
 *     sortHand(cards, view) -> cards        // display order of a hand (default: by suit, then rank)
 *     cardState(card, ctx) -> "legal" | "disabled" | "selected" | ""
 *                                           // how a hand card is drawn; default: "legal" when a legal
 *                                           // action {type:"play", cards:[card]} exists, "disabled"
 *                                           // otherwise while this seat is to act, "" when it is not
 *     onCardClick(card, ctx) -> boolean     // a click on an enabled hand card; return true when
 *                                           // handled. Default: send the single-card play of that card.
 *     handHint(ctx) -> string | null        // the hint beside "Your hand", already in ctx.lang (null:
 *                                           // none). Default: "click a highlighted card to play it"
 *                                           // while a single-card play is legal, but no hint at all
 *                                           // when the plugin has onCardClick (export genericHandHint
 *                                           // gives the default text for phases where a click plays)
 *     buttonActions(ctx) -> action[]        // legal actions shown as buttons under the hand; default:
 *                                           // every legal action that is not a single-card play
 *     actionLabel(action, ctx) -> string    // the text of such a button (default: type + fields)
 *     renderPanel(container, ctx)           // the game's own panel above the hand (bidding, kitty,
 *                                           // exchange, captured cards, …); redrawn on every state
 *     seatBadges(seat, ctx) -> node | string | array | null   // extra line in a seat's box
 *     refusalReason(card, ctx) -> string | null   // one line saying why a dimmed hand card cannot
 *                                           // be played, in ctx.lang (null: the table's own
 *                                           // reason: not your turn / follow suit / not allowed)
 *     handControls(ctx) -> node | null      // controls drawn right above the hand, within reach of it
 *                                           // (Yaya Fugou's Play and Give for the selected cards)
 *     actionHelp(action, ctx) -> string     // a button's tooltip (explain it on screen too: phones
 *                                           // have no hover)
 *     lastTrickLabel: "<i18n key>"          // the name of the last-trick box (Yaya Fugou: "Last play")
 *     statusText(ctx) -> string | null      // the line under the turn (default: view.message with
 *                                           // "Seat n" replaced by the seat's name)
 *     logEvent(event, ctx) -> string | null | undefined   // a public event as a play-log line
 *                                           // (null: leave it out; undefined: the generic line for
 *                                           // play, pass, bid and trick events, nothing for others)
 *     renderHandResult(container, ctx, hand) // explains one finished hand (an entry of view.hands)
 *                                           // under the per-seat score row of the result dialog
 *     renderOptions(container, ctx) -> names  // the game's own pickers in the create-room form and
 *                                           // the room's options; returns the option names it draws
 *                                           // (no generic input for those). Its ctx is not this one:
 *                                           // see static/games/README.md "Your own option pickers".
 *     optionsForSeats(options, seats) -> options | null   // the host's saved options adjusted
 *                                           // for a new seat count (null: nothing to change)
 *   }
 *
 * ctx, rebuilt for every redraw:
 *   game      the game id               view     the view of the shown seat (or the spectator view)
 *   seat      the shown seat, or null   legal    that seat's legal actions ([] when not to act)
 *   mySeats   every seat this person holds          isMyTurn  legal.length > 0
 *   players   seat count                version  state version (actions in the log)
 *   send(action)          sends `action` for ctx.seat at the current version
 *   sendAll(actions)      sends several actions of ctx.seat one after another, each once the state
 *                         after the previous one has come and only while it is still legal (a
 *                         choice of several cards the engine takes one at a time: French Tarot's
 *                         discard, confirmed at once)
 *   selected              card codes the player has selected (multi-card plays); kept until the
 *                         hand changes.  setSelected(cards) replaces it and redraws.
 *   seatName(n)           display name of seat n ("you" added for own seats)
 *   card(code, options)   a card element in the plugin's deck (options as cards.js `cardEl`)
 *   h                     the DOM helper from dom.js;  t(key, params), lang  i18n
 *   redraw()              draw the table again (after a plugin changes its own UI state)
 *
 * The server is authoritative: a plugin never changes state locally, it only sends actions the
 * legal list allows (or, for actions too many to enumerate, what the game's docstring allows).
 * ============================================================================================
 */
import { h, morph, replace } from "./dom.js";
import { addStrings, lang, pick, t } from "./i18n.js";
import { cardBack, cardEl, deckForGame, describeCard, sortCards, suitName } from "./cards.js";
import { setTurnMark } from "./title.js";
import { CATCH_UP_ACTIONS, Motion } from "./motion.js";
import { AUTO_NOTE_MS, autoNotices, awaySummary, awaySummaryBox, markedEvents } from "./notices.js";
import { beep, eventSounds } from "./sounds.js";
import { FocusKeeper } from "./focus.js";
import { afterPress } from "./press.js";
import { announce } from "./announce.js";
import { listenForUndoKey, takeBackButton, undoInLog } from "./takeback.js";
import { captureFelt, flyBack, takeBackNotices } from "./takeback.js";
import { leftSeatsLine, noteLeftSeats } from "./seatoffer.js";
import { alertPerson, alertsButton } from "./alerts.js";
import { reducedMotion } from "./motion.js";
import { hintButton } from "./hint.js";

const pluginCache = new Map();

/** Load static/games/<id>.js; a game without a plugin gets the generic table. */
export async function loadPlugin(gameId) {
  if (!pluginCache.has(gameId)) {
    pluginCache.set(gameId, (async () => {
      let plugin;
      try {
        plugin = (await import(`/static/games/${gameId}.js`)).default;
      } catch (error) {
        console.warn(`no plugin for ${gameId}, using the generic table`, error);
        plugin = {};
      }
      plugin = { deck: deckForGame(gameId), direction: "cw", ...plugin };
      if (plugin.strings) addStrings(plugin.strings);
      return plugin;
    })());
  }
  return pluginCache.get(gameId);
}

function isSingleCardPlay(action) {
  return action && action.type === "play" && Array.isArray(action.cards) && action.cards.length === 1;
}

function defaultActionLabel(action) {
  const fields = Object.entries(action)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(" ") : typeof value === "object" ? JSON.stringify(value) : value}`);
  return fields.length ? `${action.type} (${fields.join(", ")})` : action.type;
}

/** Competition ranking (1, 2, 2, 4) of seats by score, highest first. */
export function rankSeats(scores) {
  const order = scores.map((score, seat) => ({ seat, score })).sort((a, b) => b.score - a.score || a.seat - b.seat);
  let rank = 0;
  return order.map((entry, index) => {
    if (index === 0 || entry.score !== order[index - 1].score) rank = index + 1;
    return { ...entry, rank };
  });
}

export function formatScore(value) {
  if (typeof value !== "number") return String(value ?? "");
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return value > 0 ? `+${text}` : text.replace("-", "−");
}

/** Who led a finished trick: its `leader` when the game gives one, else the seat of its first card. */
export function trickLeader(trick) {
  if (!trick || !trick.cards || !trick.cards.length) return null;
  return trick.leader ?? trick.cards[0].seat;
}

/**
 * The latest play of each seat in a trick's card list. The list is flat (one entry per card), so
 * one play of several cards (a pair, a straight) is a run of entries of the same seat; a seat's
 * earlier plays in the same round are covered by its newest one, as on a real table.
 * @returns {Map<number, {card: string, order: number}[]>}
 */
export function latestPlays(cards) {
  const plays = new Map();
  let previousSeat = null;
  cards.forEach((entry, order) => {
    if (entry.seat !== previousSeat || !plays.has(entry.seat)) plays.set(entry.seat, []);
    plays.get(entry.seat).push({ card: entry.card, order });
    previousSeat = entry.seat;
  });
  return plays;
}

/**
 * "Click a highlighted card to play it" when a single-card play is legal, else null. A plugin
 * with its own `onCardClick` may return this from `handHint` in the phases where a click plays.
 */
export function genericHandHint(ctx) {
  if (!ctx.isMyTurn || !ctx.legal.some(isSingleCardPlay)) return null;
  return confirmCards() ? t("table.click_legal.confirm") : t("table.click_legal");
}

/** The phone layout's width limit, in CSS px: the stylesheet's `@media (max-width: 699px)`. */
const NARROW_BELOW_PX = 700;

/** Whether the window is drawn in the phone layout (as the stylesheet decides it). */
export function narrowScreen() {
  return window.innerWidth < NARROW_BELOW_PX;
}

/** Every fanned card on the felt shows at least this much of its left edge (rank and suit). */
const MIN_FAN_STRIP_PX = 15;

/** A fanned hand card shows at least this much to tap (WCAG 2.5.8's minimum target). */
const MIN_TAP_STRIP_PX = 24;

/** A card width from the stylesheet (`--card-w` or `--card-sm-w`), in px. */
function cardWidth(small) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(small ? "--card-sm-w" : "--card-w");
  return parseFloat(value) || (small ? 34 : 46);
}

/**
 * The visible share of each fanned card's width: less for longer plays and crowded tables, but
 * never under MIN_FAN_STRIP_PX, so a long play grows wider rather than hiding its ranks.
 */
function fanShow(count, small) {
  if (count < 2) return 1;
  const spread = small ? 1.4 : 2.2; // at most this many card widths beyond the first card
  return Math.max(MIN_FAN_STRIP_PX / cardWidth(small), Math.min(0.45, spread / (count - 1)));
}

/**
 * Plays on the felt that meet after all flow in rows instead (`.trick-zone.wrapped`): on a
 * crowded felt each play's place is fixed by its seat's, not by the plays' widths, so two long
 * plays near a corner (a top seat's and a side seat's) could cover each other's cards. Call after
 * the felt is in the page (it measures the drawn plays).
 */
export function separatePlays(root) {
  const zone = root.querySelector(".trick-zone:not(.stacked)");
  if (!zone) return;
  const boxes = [...zone.querySelectorAll(".trick-play")].map((play) => play.getBoundingClientRect());
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  if (boxes.some((a, i) => boxes.slice(i + 1).some((b) => meet(a, b)))) zone.classList.add("wrapped");
}

/** A play's width on the felt, in px (as style.css's --play-w computes it). */
function playWidth(count, small) {
  return cardWidth(small) * (1 + (count - 1) * fanShow(count, small));
}

const SOUND_KEY = "cardtable.sound";
const CONFIRM_KEY = "cardtable.confirm";
/** A turn countdown at or under this many seconds is drawn urgent (the player is warned). */
const URGENT_SECONDS = 10;
/** How long "X disconnected" / "X is back" stays on the table. */
const PRESENCE_NOTE_MS = 8000;

/** Whether the person turned the turn beep on (off until they do; the choice is remembered). */
export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false;
  }
}

/** Whether a card is played only at a second tap (or the Play button): the person's remembered
 * choice, else on for touch screens, where a stray tap is easy. */
export function confirmCards() {
  try {
    const stored = localStorage.getItem(CONFIRM_KEY);
    if (stored) return stored === "on";
  } catch { /* private mode: the default */ }
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches;
}

function setConfirmCards(on) {
  try {
    localStorage.setItem(CONFIRM_KEY, on ? "on" : "off");
  } catch { /* private mode: the toggle lasts for this page only */ }
}

function setSound(on) {
  try {
    localStorage.setItem(SOUND_KEY, on ? "on" : "off");
  } catch { /* private mode: the toggle lasts for this page only */ }
}

/** Why a card cannot be played, when the plugin has nothing more precise to say. */
export function genericRefusal(ctx, card, deck) {
  if (!ctx.isMyTurn) return t("refuse.not_your_turn");
  const plays = ctx.legal.filter((a) => a.type === "play" && Array.isArray(a.cards));
  if (!plays.length) return t("refuse.not_now");
  // Derived from the legal plays: when every one of them is of the suit led (the first card of
  // the trick that is not the French excuse) and this card is not, the rule is to follow suit.
  const led = ((ctx.view.trick && ctx.view.trick.cards) || []).map((e) => e.card).find((c) => c !== "EX");
  const suit = led ? led[0] : null;
  if (suit && card && card[0] !== suit && plays.every((a) => a.cards.every((c) => c[0] === suit || c === "EX"))) {
    return t("refuse.follow", { suit: suitName(suit, deck) });
  }
  return t("refuse.not_allowed");
}

/** The window listeners of the table on the page (see the Table constructor). */
let windowListeners = null;

export class Table {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {{gameId: string, plugin: any, send: (message: any) => boolean, rulesHref: string}} options
   */
  constructor(root, options) {
    this.drawNow = () => this.draw();
    this.root = root;
    this.gameId = options.gameId;
    this.plugin = options.plugin;
    this.sendRaw = options.send;
    // What the page lets the table do about a seat left to a bot (static/js/seatoffer.js):
    // `take(n)` seats this person, `invite()` is the room's invite link.
    this.seatActions = options.seatActions || null;
    this.leftSeats = new Map();
    // A hand's result closed by the person's own running clock, offered again from the status line.
    this.resultLater = null;
    this.resultPinned = false;
    // A take-back's events, for the card's way back at the next drawing.
    this.takeBackEvents = null;
    this.rulesHref = options.rulesHref;
    this.room = null;
    this.state = null;
    this.activeSeat = null;
    this.selected = [];
    this.selectedFor = "";
    this.pending = false;
    this.seenHands = null;
    this.dialogHand = null;
    this.connection = "connecting";
    this.notice = null;
    this.log = null;
    this.logOpen = false;
    this.wasMyTurn = false;
    this.dock = null;
    // Turn countdowns (seat -> performance.now() when it runs out) and presence notes.
    this.timers = new Map();
    this.timerTick = null;
    this.presenceNotes = [];
    // Cards that move (motion.js): off for the first state and whenever the client catches up.
    this.motion = new Motion();
    this.motionOk = false;
    // "Time's up" and "Bot played … (time)" lines, and the away summary (notices.js).
    this.autoNotes = [];
    this.awayMoves = null;
    // The version a refusal notice describes: it goes once the table has moved on.
    this.noticeVersion = null;
    // With "confirm each card": the card raised by a first tap, and the state it was raised in.
    this.raised = null;
    // Cards that came into the hand during the hand (kitty, dog, exchange), marked until the
    // person's next action: "seat:hand number" they belong to, and the cards.
    this.newCards = { key: "", cards: new Set() };
    // Keyboard focus kept across redraws, and what the live region said last (static/js/focus.js,
    // static/js/announce.js).
    this.focus = new FocusKeeper(root);
    this.announcedTurn = false;
    // The hand's rows depend on the width: draw again when it changes (a phone turned round).
    // A page shows one table at a time; when a page is drawn again (a language switch) the new
    // table takes the window listener over, so the old one is not kept alive and redrawn.
    windowListeners?.abort();
    windowListeners = new AbortController();
    let resizeFrame = null;
    window.addEventListener("resize", () => {
      cancelAnimationFrame(resizeFrame);
      resizeFrame = requestAnimationFrame(() => this.render());
    }, { signal: windowListeners.signal });
    listenForUndoKey(this, windowListeners.signal);
  }

  setRoom(room) {
    const before = this.room;
    this.room = room;
    if (before && this.state) this.notePresence(before, room);
    if (before && this.state) noteLeftSeats(this.leftSeats, before, room, this.matchRunning());
    if (room && room.timers) this.setTimers({ timers: room.timers }, false);
    this.render();
  }

  /** A panel the page keeps on the table across redraws (the room chat, static/js/chat.js):
   * `{el, button()}`. `el` is never detached by a redraw, so what a person types there survives
   * every state; `button()` is drawn among the status line's tools (phones open the panel). */
  setDock(dock) {
    this.dock = dock;
    this.render();
  }

  /** The room's voice (static/js/voice.js): its buttons among the tools, its marks on the seats. */
  setVoice(voice) {
    this.voice = voice;
    this.render();
  }

  /** Whether the match shown is still being played. */
  matchRunning() {
    const view = this.currentView();
    return Boolean(view && view.phase !== "match_over" && (view.to_act || []).length);
  }

  /** "X disconnected" / "X is back" for a seated person whose connection changed. */
  notePresence(before, after) {
    const now = Date.now();
    for (const seat of after.seats || []) {
      const old = (before.seats || []).find((s) => s.n === seat.n);
      if (seat.kind !== "person" || !old || old.kind !== "person" || old.person_id !== seat.person_id) continue;
      if (old.connected === seat.connected) continue;
      const key = seat.connected ? "away.back" : "away.left";
      this.presenceNotes = this.presenceNotes.filter((note) => note.seat !== seat.n && note.until > now);
      this.presenceNotes.push({ seat: seat.n, key, until: now + PRESENCE_NOTE_MS });
    }
    clearTimeout(this.presenceTimer);
    if (this.presenceNotes.length) {
      const next = Math.min(...this.presenceNotes.map((note) => note.until)) - now;
      this.presenceTimer = setTimeout(() => this.render(), Math.max(50, next + 50));
    }
  }

  /** Turn countdowns from the server: `timers` maps a seat to the seconds left when sent. */
  setTimers(message, redraw = true) {
    const now = performance.now();
    this.timers = new Map(Object.entries(message.timers || {}).map(([seat, left]) => [Number(seat), now + left * 1000]));
    if (this.timers.size && !this.timerTick) this.timerTick = setInterval(() => this.tickTimers(), 250);
    if (!this.timers.size && this.timerTick) {
      clearInterval(this.timerTick);
      this.timerTick = null;
    }
    if (redraw) this.render();
  }

  secondsLeft(seat) {
    const end = this.timers.get(seat);
    return end === undefined ? null : Math.max(0, Math.ceil((end - performance.now()) / 1000));
  }

  /** Every quarter second: the countdowns' text, and the urgent look in the last seconds. */
  tickTimers() {
    for (const el of this.root.querySelectorAll("[data-timer]")) {
      const left = this.secondsLeft(Number(el.dataset.timer));
      if (left === null) continue;
      el.textContent = t("timer.seconds", { s: left });
      el.classList.toggle("urgent", left <= URGENT_SECONDS);
    }
    const turn = this.root.querySelector("[data-turn-timer]");
    if (turn) {
      const left = this.secondsLeft(Number(turn.dataset.turnTimer));
      if (left !== null) {
        turn.textContent = t("table.your_turn_left", { s: left });
        turn.classList.toggle("urgent", left <= URGENT_SECONDS);
        setTurnMark(turn.textContent);
        // One beep (when sound is on) as the player's time starts to run low.
        const key = this.state ? `${this.state.match_id}:${this.state.version}:${turn.dataset.turnTimer}` : "";
        if (left <= URGENT_SECONDS && this.warnedTurn !== key) {
          this.warnedTurn = key;
          if (soundOn()) beep();
        }
      }
    }
  }

  /** The table's line about absent players: who left or came back just now, and every seat a
   * bot plays for while its person is away. */
  awayLine() {
    const now = Date.now();
    this.presenceNotes = this.presenceNotes.filter((note) => note.until > now);
    const standIns = (this.room && this.room.stand_ins) || [];
    const texts = this.presenceNotes
      .filter((note) => !(note.key === "away.left" && standIns.includes(note.seat)))
      .map((note) => t(note.key, { name: this.seatName(note.seat, true) }))
      .concat(standIns.map((n) => t("away.bot", { name: this.seatName(n, true) })));
    if (!texts.length) return null;
    return h("span", { class: "table-away", role: "status", "data-testid": "away-notice" }, texts.join(" · "));
  }

  setConnection(status) {
    this.connection = status;
    const dot = this.root.querySelector(".table-conn");
    if (dot) dot.replaceWith(this.connectionBadge());
  }

  /** A new `state` message from the server. */
  setState(message) {
    const firstState = this.state === null || this.state.match_id !== message.match_id;
    const newMatch = firstState && (this.state !== null || message.version <= CATCH_UP_ACTIONS);
    const previous = firstState ? null : this.state;
    // Motion for a state that follows the last one closely; a page that opens on a match that
    // has just begun still sees the deal fill the hand.
    this.motionOk = !document.hidden && (previous
      ? !message.hand_log && message.version - previous.version <= CATCH_UP_ACTIONS
      : message.version <= CATCH_UP_ACTIONS);
    this.state = message;
    this.pending = false;
    const held = this.heldSeats();
    if (!held.includes(this.activeSeat)) this.activeSeat = held.length ? held[0] : null;
    // With several seats held, follow the one that must act.
    const current = this.currentView();
    if (held.length > 1 && current && !(this.legalFor(this.activeSeat).length)) {
      const acting = held.find((seat) => this.legalFor(seat).length);
      if (acting !== undefined) this.activeSeat = acting;
    }
    const view = this.currentView();
    const hands = view && Array.isArray(view.hands) ? view.hands : [];
    if (firstState) {
      // On (re)connect show the result of a just-finished hand or match only if the table waits on
      // it and this person has not closed it already (remembered per match on this device).
      this.seenHands = view && view.phase === "match_over" && this.resultClosed(message.match_id) < hands.length
        ? hands.length - 1
        : hands.length;
    }
    const dialogBefore = this.dialogHand;
    if (hands.length > this.seenHands) {
      this.dialogHand = hands.length - 1;
      this.seenHands = hands.length;
      this.resultLater = null;
      this.resultPinned = false;
    }
    if (newMatch) this.leftSeats.clear();
    if (newMatch && this.heldSeats().length) alertPerson("start", t("alerts.start"), t("alerts.start.body", { room: this.roomTitle() }));
    this.takeBackEvents = !firstState && (message.events || []).some((event) => event.type === "take_back") ? message.events : null;
    let logged = this.log && this.log.handNo === (view && view.hand_no) ? this.log.entries.length : 0;
    this.recordLog(message, view, firstState);
    // A reconnect's whole-hand log is history, not news: nothing of it is announced again.
    if (Array.isArray(message.hand_log) && this.log) logged = this.log.entries.length;
    this.noteAutoMoves(message, previous, view);
    this.noteNewCards(previous, view);
    if (this.noticeVersion !== null && message.version !== this.noticeVersion) this.clearNotice();
    if (previous && soundOn()) eventSounds(message.events);
    this.announceState(view, firstState, logged, this.dialogHand !== null && this.dialogHand !== dialogBefore);
    const handKey = `${this.activeSeat}:${view ? (view.hand || []).join(",") : ""}`;
    if (handKey !== this.selectedFor) {
      this.selected = [];
      this.selectedFor = handKey;
    }
    this.render();
    this.continueSequence();
  }

  /** Cards in the shown hand that were not in it at the previous state of the same seat and hand
   * (a deal fills an empty hand: nothing is new then). */
  noteNewCards(previous, view) {
    const key = view ? `${this.activeSeat}:${view.hand_no}` : "";
    const before = previous && previous.views ? previous.views[String(this.activeSeat)] : null;
    const now = new Set(view ? view.hand || [] : []);
    if (key !== this.newCards.key) this.newCards = { key, cards: new Set() };
    if (before && before.hand_no === view.hand_no && (before.hand || []).length) {
      const had = new Set(before.hand);
      for (const card of now) if (!had.has(card)) this.newCards.cards.add(card);
    }
    for (const card of this.newCards.cards) if (!now.has(card)) this.newCards.cards.delete(card);
  }

  /**
   * What the server's marks of bot moves for people call for (notices.js): a line for each
   * timed-out move, and, when a socket's first state brings the hand's events after an
   * absence, the summary of what the stand-in played for this person's seats since they last
   * saw the table (kept per match in localStorage, so a new tab knows it too).
   */
  noteAutoMoves(message, previous, view) {
    const key = `cardtable.seen.${message.match_id}`;
    let seen = previous ? previous.version : null;
    try {
      if (seen === null) seen = Number(localStorage.getItem(key) || 0);
      localStorage.setItem(key, String(message.version));
    } catch { /* private mode: the summary covers the whole hand */ }
    const mine = this.heldSeats();
    if (Array.isArray(message.hand_log)) {
      const moves = awaySummary(message.hand_log, mine, seen || 0);
      if (moves) this.awayMoves = { moves, handNo: view ? view.hand_no : null };
    } else if (previous) {
      const now = Date.now();
      this.autoNotes = this.autoNotes.filter((note) => note.until > now)
        .concat(autoNotices(message.events, mine, (n) => this.seatName(n, true), this.plugin.deck)
          .map((note) => ({ ...note, until: now + AUTO_NOTE_MS })))
        .concat(takeBackNotices(message.events, mine, (n) => this.seatName(n, true),
          (cards) => cards.map((code) => describeCard(code, this.plugin.deck).label).join(", "))
          .map((note) => ({ ...note, until: now + AUTO_NOTE_MS })));
      if (this.autoNotes.length) {
        clearTimeout(this.autoTimer);
        const next = Math.min(...this.autoNotes.map((note) => note.until)) - now;
        this.autoTimer = setTimeout(() => this.render(), Math.max(50, next + 50));
      }
    }
    // The summary is about this hand: a new hand (or the match's end) ends it.
    if (this.awayMoves && view && this.awayMoves.handNo !== view.hand_no) this.awayMoves = null;
  }

  /** The timed-out moves' lines and the away summary, above the felt (null: none). */
  autoLine() {
    const now = Date.now();
    this.autoNotes = this.autoNotes.filter((note) => note.until > now);
    const lines = this.autoNotes.map((note) => h("span", {
      class: ["table-auto", note.mine && "mine"],
      "data-testid": note.takeBack ? "take-back-notice" : note.mine ? "auto-notice-mine" : "auto-notice",
    }, note.text));
    const summary = this.awayMoves ? awaySummaryBox(this.awayMoves.moves, {
      name: (n) => this.seatName(n, true),
      card: (code) => cardEl(code, this.plugin.deck, { size: "sm" }),
      several: this.heldSeats().length > 1,
      onDismiss: () => {
        this.awayMoves = null;
        this.render();
      },
    }) : null;
    if (!lines.length && !summary) return null;
    return h("div", { class: "table-auto-notes", role: "status" }, lines, summary);
  }

  /**
   * The play log of the current hand, built from the public events of successive state messages
   * (every bid, pass and card, and who took each trick). A socket's first state brings the
   * hand's events so far (`hand_log`), so the log is complete after a page load or a reconnect;
   * without them (an older server) it starts from the trick on the felt and says so.
   */
  recordLog(message, view, firstState) {
    if (!view) return;
    if (Array.isArray(message.hand_log)) {
      this.log = { handNo: view.hand_no, partial: false, entries: [] };
      this.logEvents(message.hand_log);
      return;
    }
    if (firstState || !this.log || this.log.handNo !== view.hand_no) {
      const cards = view.trick && view.trick.cards ? view.trick.cards : [];
      const started = Boolean(view.last_trick) || cards.length > 0;
      this.log = { handNo: view.hand_no, partial: firstState && started, entries: [] };
      if (firstState) {
        for (const play of latestPlays(cards)) this.log.entries.push({ kind: "play", seat: play[0], cards: play[1].map((p) => p.card) });
        return;
      }
    }
    this.logEvents(message.events || []);
  }

  /** Adds public events to the play log; a move a bot made for a person is marked so. */
  logEvents(events) {
    const botFor = markedEvents(events);
    events.forEach((event, index) => {
      if (event.type === "auto") return;
      const before = this.log.entries.length;
      this.logEvent(event);
      if (botFor.has(index)) for (const entry of this.log.entries.slice(before)) entry.bot = botFor.get(index);
    });
  }

  /** One public event as a play-log entry (a plugin may word it or leave it out). */
  logEvent(event) {
    if (event.hand_no !== undefined && event.hand_no !== this.log.handNo && ["deal", "dealt", "hand_start"].includes(event.type)) {
      this.log = { handNo: event.hand_no, partial: false, entries: [] };
      return;
    }
    let text;
    if (this.plugin.logEvent) {
      try {
        text = this.plugin.logEvent(event, this.context());
      } catch (error) {
        console.error("plugin log failed", error);
      }
    }
    if (text === null) return;
    if (text !== undefined) {
      this.log.entries.push({ kind: "note", seat: event.seat ?? null, text, cards: event.cards || (event.card ? [event.card] : []) });
    } else if (event.type === "play") {
      this.log.entries.push({ kind: "play", seat: event.seat, cards: event.cards || [event.card] });
    } else if (event.type === "pass") {
      this.log.entries.push({ kind: "note", seat: event.seat, text: t("log.pass"), cards: [] });
    } else if (event.type === "bid" && (event.contract ?? event.bid ?? event.value ?? null) === null) {
      // A pass sent as a bid of nothing (French Tarot's bidding).
      this.log.entries.push({ kind: "note", seat: event.seat, text: t("log.pass"), cards: [] });
    } else if (event.type === "bid") {
      const bid = `${event.contract ?? event.bid ?? event.value ?? ""}${event.points !== undefined ? ` (${event.points})` : ""}`;
      this.log.entries.push({ kind: "note", seat: event.seat, text: t("log.bid", { bid }), cards: [] });
    } else if (event.type === "trick") {
      this.log.entries.push({ kind: "trick", winner: event.winner });
    } else if (event.type === "take_back") {
      undoInLog(this.log.entries, event);
    }
  }

  /**
   * One announcement per state message for screen readers: each play, bid or pass and who took
   * the trick (from the play log's new entries), "Your turn" when it starts, and the hand's result.
   */
  announceState(view, firstState, logged, resultOpened) {
    if (!view) return;
    const parts = [];
    if (!firstState && this.log) {
      for (const entry of this.log.entries.slice(Math.min(logged, this.log.entries.length))) {
        const name = entry.seat !== null && entry.seat !== undefined ? this.seatName(entry.seat, true) : "";
        const cards = (entry.cards || []).map((code) => describeCard(code, this.plugin.deck).label).join(", ");
        if (entry.kind === "play") parts.push(t("announce.play", { name, cards }));
        else if (entry.kind === "trick") parts.push(t("announce.trick", { name: this.seatName(entry.winner, true) }));
        else if (entry.text) {
          // A bid, a pass, a take-back ("took back" and the cards): said with its cards, if any.
          const text = cards ? `${entry.text} ${cards}` : entry.text;
          parts.push(name ? t("announce.note", { name, text }) : text);
        }
      }
    }
    if (resultOpened) {
      const hand = view.hands[this.dialogHand];
      const scores = hand.scores.map((score, n) => `${this.seatName(n, true)} ${formatScore(score)}`).join(", ");
      parts.push(t("announce.result", { n: hand.hand_no ?? this.dialogHand + 1, scores }));
    }
    const mine = this.legalFor(this.activeSeat).length > 0 && view.phase !== "match_over";
    if (mine && !this.announcedTurn) parts.push(t("table.your_turn"));
    this.announcedTurn = mine;
    announce(parts.map((part) => (/[.!?。！？]$/.test(part) ? part : `${part}${lang() === "ja" ? "。" : "."}`)));
  }

  logDialog(view) {
    const close = () => {
      this.logOpen = false;
      this.render();
    };
    const log = this.log || { entries: [], partial: false };
    const groups = [];
    let current = [];
    let trickNo = 0;
    for (const entry of log.entries) {
      if (entry.kind === "trick") {
        trickNo += 1;
        groups.push({ title: t("log.trick", { n: trickNo, name: this.seatName(entry.winner, true) }), rows: current });
        current = [];
      } else current.push(entry);
    }
    if (current.length) groups.push({ title: t("log.trick.current", { n: trickNo + 1 }), rows: current });
    const row = (entry) => h("li", { class: "log-row" },
      h("span", { class: "log-seat" }, entry.seat !== null && entry.seat !== undefined ? this.seatName(entry.seat, true) : ""),
      entry.kind === "play" ? null : h("span", { class: "log-text" }, entry.text),
      entry.cards && entry.cards.length ? h("span", { class: "card-row" }, entry.cards.map((c) => cardEl(c, this.plugin.deck, { size: "sm" }))) : null,
      entry.bot !== undefined ? h("span", { class: "log-bot", "data-testid": "log-bot" }, t("auto.log", { name: this.seatName(entry.bot, true) })) : null);
    return h("div", { class: "dialog-backdrop", onclick: (e) => e.target === e.currentTarget && close() },
      h("div", { class: "dialog log-dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "play-log-title", "data-testid": "play-log" },
        h("h2", { id: "play-log-title" }, t("log.title", { n: view.hand_no ?? 1 })),
        log.partial ? h("p", { class: "help" }, t("log.partial")) : null,
        groups.length
          ? h("ol", { class: "log-groups" }, groups.map((g) => h("li", null, h("h3", null, g.title), h("ul", { class: "log-rows" }, g.rows.map(row)))))
          : h("p", { class: "muted" }, t("log.empty")),
        h("div", { class: "dialog-buttons" }, h("button", { type: "button", class: "primary", onclick: close }, t("common.close")))));
  }

  /** One line under the hand for 6 s; `untilMove`: only while the table is at this version (a
   * "must follow suit" goes once the trick it was about has moved on). */
  showNotice(text, untilMove = false) {
    this.pending = false;
    this.sequence = null; // a refusal or an error: the rest of a sequence is not sent
    this.notice = text;
    this.noticeVersion = untilMove && this.state ? this.state.version : null;
    this.render();
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => this.clearNotice(), 6000);
  }

  clearNotice() {
    clearTimeout(this.noticeTimer);
    this.noticeVersion = null;
    if (this.notice === null) return;
    this.notice = null;
    this.render();
  }

  heldSeats() {
    if (!this.state || !this.state.views) return [];
    return Object.keys(this.state.views).map(Number).sort((a, b) => a - b);
  }

  legalFor(seat) {
    if (seat === null || !this.state || !this.state.legal) return [];
    return this.state.legal[String(seat)] || [];
  }

  currentView() {
    if (!this.state) return null;
    if (this.activeSeat !== null && this.state.views) return this.state.views[String(this.activeSeat)] || null;
    return this.state.spectator || null;
  }

  /** Display name of seat n; `plain` leaves out the "(you)" mark (the felt shows it by colour). */
  seatName(n, plain = false) {
    const seat = this.room && this.room.seats ? this.room.seats.find((s) => s.n === n) : null;
    // Bots share one name on the server; the seat number tells them apart.
    let name;
    if (seat && seat.kind === "bot") name = `${t("common.bot")} ${n + 1}`;
    else name = seat && seat.name ? seat.name : t("common.seat", { n: n + 1 });
    return !plain && this.heldSeats().includes(n) ? `${name} (${t("common.you")})` : name;
  }

  context() {
    const view = this.currentView();
    const legal = this.legalFor(this.activeSeat);
    const plugin = this.plugin;
    const table = this;
    return {
      game: this.gameId,
      view,
      seat: this.activeSeat,
      legal,
      mySeats: this.heldSeats(),
      isMyTurn: legal.length > 0,
      players: view ? view.players : 0,
      version: this.state ? this.state.version : 0,
      selected: this.selected,
      setSelected(cards) {
        table.selected = [...cards];
        table.render();
      },
      send: (action) => this.sendAction(action),
      sendAll: (actions) => this.sendSequence(actions),
      seatName: (n) => this.seatName(n),
      card: (code, options) => cardEl(code, plugin.deck, options),
      h,
      t,
      lang: lang(),
      redraw: () => this.render(),
    };
  }

  /** Send `actions` one at a time for the shown seat (see ctx.sendAll). */
  sendSequence(actions) {
    const [first, ...rest] = actions;
    if (!first || !this.state) return false;
    this.sequence = rest.length ? { seat: this.activeSeat, matchId: this.state.match_id, actions: rest } : null;
    return this.sendAction(first);
  }

  /** After a state: the next action of a sequence, when its seat may make it now; a sequence
   * whose next action is not legal any more (the table changed) is dropped. */
  continueSequence() {
    const sequence = this.sequence;
    if (!sequence || !this.state) return;
    const legal = this.legalFor(sequence.seat);
    if (sequence.matchId !== this.state.match_id) this.sequence = null;
    if (!this.sequence || !legal.length) return;
    const wanted = JSON.stringify(sequence.actions[0]);
    const action = legal.find((a) => JSON.stringify(a) === wanted);
    sequence.actions.shift();
    if (!sequence.actions.length || !action) this.sequence = null;
    if (!action) return;
    this.activeSeat = sequence.seat;
    this.sendAction(action);
  }

  sendAction(action) {
    if (this.activeSeat === null || !this.state) return false;
    const ok = this.sendRaw({ type: "action", seat: this.activeSeat, version: this.state.version, action });
    if (ok) {
      this.pending = true;
      // A "Time's up" line has been read once the person plays again themselves, and the cards
      // new in the hand have been seen.
      this.autoNotes = this.autoNotes.filter((note) => !note.mine);
      this.newCards.cards.clear();
      this.render();
    } else {
      this.showNotice(t("conn.closed", { s: "…" }));
    }
    return ok;
  }

  connectionBadge() {
    const key = this.connection === "open" ? "conn.open" : this.connection === "closed" ? "conn.offline" : "conn.connecting";
    return h("span", { class: ["table-conn", `conn-${this.connection}`], "data-conn": this.connection, title: t(key) },
      h("span", { class: "dot" }), h("span", { class: "conn-text" }, t(key)));
  }

  /** Draw the table as it is now; while a press is under way, once it has ended, so that the
   * card or button under the finger stays the one the release clicks (static/js/press.js). */
  render() {
    afterPress(this.drawNow);
  }

  /** `render` without waiting: the whole table drawn from the current state. */
  draw() {
    this.focus.before();
    const view = this.currentView();
    if (!view) {
      replace(this.root);
      this.root.classList.remove("has-table");
      return;
    }
    this.root.classList.add("has-table");
    const before = this.motion.capture(this.root);
    const feltBefore = this.takeBackEvents ? captureFelt(this.root) : null;
    this.closeResultForClock(view);
    // The width this drawing was made for: a redraw after a resize is seen (tests wait on it).
    this.root.dataset.drawnWidth = String(window.innerWidth);
    const ctx = this.context();
    const players = view.players || (this.room ? this.room.seats.length : 0);
    const toAct = (view.to_act || []).filter((s) => s >= 0);
    this.noticeTurn(view, ctx);
    const panel = this.plugin.renderPanel ? this.pluginPanel(ctx) : null;
    const head = [this.statusBar(view, ctx, toAct), h("div", { class: "table-stage" }, this.felt(view, ctx, players, toAct))];
    const rest = [
      h("div", { class: ["table-side", panel && "has-panel"] }, this.lastTrick(view), panel, this.scoreTable(view, ctx)),
      this.handArea(view, ctx),
      this.logOpen ? this.logDialog(view) : null,
      this.dialogHand !== null ? this.resultDialog(view, ctx) : null,
    ].filter(Boolean);
    // Only what changed is redrawn (the other nodes stay, and keep hover, scroll and focus);
    // the chat dock stays as it is between the felt and the side column.
    const dock = this.dock ? this.dock.el : null;
    morph(this.root, [head, dock, rest], dock);
    // Both measure the new drawing, which the browser lays out once for them: before the motion
    // adds its animations and layer, which would make it lay the page out a second time.
    separatePlays(this.root);
    this.revealControls();
    this.motion.play(this.root, before, this.motionOk);
    if (feltBefore && this.motionOk && !reducedMotion()) flyBack(this.root, feltBefore, this.takeBackEvents, this.motion.ensureLayer());
    this.takeBackEvents = null;
    this.focus.after();
  }

  /** When the side column scrolls (a tall panel on a phone), scroll it so the panel's enabled
   * controls are in view: information may sit above the fold, the buttons of the decision not. */
  revealControls() {
    const side = this.root.querySelector(".table-side");
    if (!side || side.scrollHeight <= side.clientHeight) return;
    const controls = [...side.querySelectorAll(".game-panel button:not([disabled]), .game-panel select, .game-panel input")];
    if (!controls.length) return;
    const box = side.getBoundingClientRect();
    const bottom = Math.max(...controls.map((c) => c.getBoundingClientRect().bottom));
    if (bottom > box.bottom) side.scrollTop += bottom - box.bottom + 4;
  }

  /** The tab title says "● Your turn" while this person is awaited, and a short beep (when the
   * person turned sound on) marks the moment the turn arrives. */
  noticeTurn(view, ctx) {
    const mine = ctx.isMyTurn && view.phase !== "match_over";
    setTurnMark(mine ? t("table.your_turn") : "");
    // A hidden page is told (alerts.js); a visible one beeps only when the person turned sound on.
    if (mine && !this.wasMyTurn && !alertPerson("turn", t("alerts.turn"), t("alerts.turn.body", { room: this.roomTitle() })) && soundOn()) beep();
    this.wasMyTurn = mine;
  }

  statusBar(view, ctx, toAct) {
    let turn;
    const myLeft = ctx.isMyTurn && view.phase !== "match_over" ? this.secondsLeft(this.activeSeat) : null;
    if (view.phase === "match_over" || (toAct.length === 0 && (view.to_act || []).length === 0)) turn = t("table.phase.match_over");
    else if (myLeft !== null) turn = t("table.your_turn_left", { s: myLeft });
    else if (ctx.isMyTurn) turn = t("table.your_turn");
    else if (toAct.length) {
      const names = toAct.map((s) => this.seatName(s, true)).join(", ");
      turn = t("table.waiting", { names });
    } else turn = "";
    const handNo = view.hand_no
      ? view.hands_total ? t("table.hand_no_of", { n: view.hand_no, total: view.hands_total }) : t("table.hand_no", { n: view.hand_no })
      : "";
    const sound = soundOn();
    return h("div", { class: "table-status" },
      h("span", {
        class: ["table-turn", ctx.isMyTurn && "my-turn", myLeft !== null && myLeft <= URGENT_SECONDS && "urgent"],
        "data-testid": "turn",
        "data-turn-timer": myLeft !== null ? String(this.activeSeat) : null,
      }, turn),
      h("span", { class: "table-hand-no" }, handNo),
      this.pending ? h("span", { class: "table-pending" }, t("table.sent")) : null,
      takeBackButton(this),
      hintButton(this),
      this.resultLater !== null && this.dialogHand === null ? h("button", {
        type: "button", class: "small", "data-testid": "reopen-result", onclick: () => {
          this.dialogHand = this.resultLater;
          this.resultLater = null;
          this.resultPinned = true;
          this.render();
        },
      }, t("table.hand_result", { n: ((view.hands || [])[this.resultLater] || {}).hand_no ?? this.resultLater + 1 })) : null,
      this.connectionBadge(),
      h("span", { class: "table-tools" },
        h("button", { type: "button", class: "small", "data-testid": "open-log", onclick: () => {
          this.logOpen = true;
          this.render();
        } }, t("log.open")),
        h("button", {
          type: "button", class: ["small", "sound-toggle", sound && "on"], "data-testid": "sound-toggle",
          "aria-pressed": sound ? "true" : "false", title: t(sound ? "sound.on.title" : "sound.off.title"),
          onclick: () => {
            setSound(!sound);
            if (!sound) beep();
            this.render();
          },
        }, "♪", h("span", { class: "sound-word" }, ` ${t(sound ? "sound.on" : "sound.off")}`)),
        h("button", {
          type: "button", class: ["small", "sound-toggle", "confirm-toggle", confirmCards() && "on"], "data-testid": "confirm-toggle",
          "aria-pressed": confirmCards() ? "true" : "false", title: t("table.confirm.title"),
          onclick: () => {
            setConfirmCards(!confirmCards());
            this.raised = null;
            this.render();
          },
        }, "✓", h("span", { class: "sound-word" }, ` ${t("table.confirm.toggle")}`)),
        // Voice's buttons (drawn anew) before the chat's kept toggle, which morph must not mistake for one of them.
        this.voice ? this.voice.toolButtons() : null,
        alertsButton(() => this.render()),
        this.dock && this.dock.button ? this.dock.button() : null,
        h("a", { class: "table-rules", href: this.rulesHref, target: "_blank", rel: "noopener" }, t("nav.rules"))),
      this.awayLine(),
      leftSeatsLine(this, this.leftSeats, this.seatActions),
      this.autoLine(),
      // Once the match is over the felt says so, with the result and what comes next.
      view.message && view.phase !== "match_over"
        ? h("span", { class: "table-message", "data-testid": "table-message" }, this.messageText(view)) : null);
  }

  /** The view's explanation line; a plugin may word it itself (`statusText`, e.g. with names). */
  messageText(view) {
    if (this.plugin.statusText) {
      try {
        const text = this.plugin.statusText(this.context());
        if (text) return text;
      } catch (error) {
        console.error("plugin status failed", error);
      }
    }
    // The engine numbers seats ("Seat 2", "席2"); a person reads names.
    return pick(view.message)
      .replace(/\b[Ss]eat (\d+)\b/g, (whole, n) => this.seatName(Number(n) - 1, true))
      .replace(/(\d+)番の席/g, (whole, n) => this.seatName(Number(n) - 1, true))
      .replace(/席\s?(\d+)/g, (whole, n) => this.seatName(Number(n) - 1, true));
  }

  /**
   * The seats in play order from the viewer, split into the felt's rows: the viewer at the bottom,
   * the next seats up one side, across the top and down the other side ("cw": the next seat sits to
   * the viewer's left; "ccw": to the right). Side columns take at most a third of the others.
   */
  seatSlots(players, viewer) {
    const others = Array.from({ length: players - 1 }, (_, i) => (viewer + 1 + i) % players);
    const m = others.length;
    const side = m <= 1 ? 0 : m <= 5 ? 1 : m <= 8 ? 2 : 3;
    const first = others.slice(0, side).reverse(); // the column nearest the viewer, drawn top to bottom
    const top = others.slice(side, m - side);
    const last = others.slice(m - side);
    if (this.plugin.direction === "ccw") return { left: last, top: [...top].reverse(), right: first, bottom: [viewer] };
    return {
      left: first,
      top,
      right: last,
      bottom: [viewer],
    };
  }

  /** The direction from the trick area's centre towards seat n (its play is drawn that way). */
  static playAnchor(slots, n) {
    const at = (list) => list.indexOf(n);
    let x = 0.5;
    let y = 1;
    if (at(slots.left) >= 0) [x, y] = [0, (at(slots.left) + 0.5) / slots.left.length];
    else if (at(slots.right) >= 0) [x, y] = [1, (at(slots.right) + 0.5) / slots.right.length];
    else if (at(slots.top) >= 0) [x, y] = [(at(slots.top) + 0.5) / slots.top.length, 0];
    // On an ellipse inside the area, so neighbouring seats' cards do not pile into a corner.
    const angle = Math.atan2(y - 0.5, x - 0.5);
    const side = at(slots.left) >= 0 ? "left" : at(slots.right) >= 0 ? "right" : at(slots.top) >= 0 ? "top" : "bottom";
    // `along`: where along its side of the area (0..1), for crowded tables (see style.css).
    const along = side === "top" ? (at(slots.top) + 0.5) / slots.top.length : side === "bottom" ? 0.5 : y;
    return { dx: Math.cos(angle).toFixed(3), dy: Math.sin(angle).toFixed(3), side, along: along.toFixed(3) };
  }

  seatBox(n, view, ctx, toAct) {
    const roomSeat = this.room && this.room.seats ? this.room.seats.find((s) => s.n === n) : null;
    const connected = roomSeat ? roomSeat.kind === "bot" || roomSeat.connected : true;
    const away = Boolean(roomSeat && roomSeat.kind === "person" && !roomSeat.connected);
    const botPlays = away && ((this.room && this.room.stand_ins) || []).includes(n);
    const left = toAct.includes(n) && view.phase !== "match_over" ? this.secondsLeft(n) : null;
    const count = view.hand_counts ? view.hand_counts[n] : null;
    const badges = this.plugin.seatBadges ? this.plugin.seatBadges(n, ctx) : null;
    const score = view.scores ? view.scores[n] : 0;
    // Voice (static/js/voice.js): a microphone on the seat of a person in voice, a ring while they speak.
    const voiceMark = this.voice && roomSeat && roomSeat.kind === "person" ? this.voice.seatMark(roomSeat.person_id) : null;
    // Read by a screen reader as one group named after the seat (and whether it is to play);
    // the dot and the dealer chip are pictures with names, the countdown a timer.
    return h("div", {
      class: ["seat", toAct.includes(n) && "to-act", ctx.mySeats.includes(n) && "mine", n === view.seat && "viewer", away && "away",
        ...(voiceMark ? voiceMark.classes : [])],
      dataset: { seat: String(n), ...(roomSeat && roomSeat.kind === "person" ? { person: String(roomSeat.person_id) } : {}) },
      role: "group",
      "aria-label": toAct.includes(n) && view.phase !== "match_over" ? t("a11y.seat.to_act", { name: this.seatName(n) }) : this.seatName(n),
    },
    h("div", { class: "seat-name" },
      h("span", { class: ["dot", connected ? "online" : "offline"], title: t(connected ? "conn.online" : "conn.offline"),
        role: "img", "aria-label": t(connected ? "conn.online" : "conn.offline") }),
      h("span", { class: "seat-label", title: `${t("common.seat", { n: n + 1 })}: ${this.seatName(n)}` }, this.seatName(n, true)),
      voiceMark ? voiceMark.node : null,
      view.dealer === n ? h("span", { class: "dealer-chip", title: t("table.dealer"), role: "img", "aria-label": t("table.dealer") }, t("table.dealer.chip")) : null),
    h("div", { class: "seat-meta" },
      h("span", { class: "seat-score", title: t("table.score") }, t("table.points", { n: formatScore(score) })),
      count !== null && count !== undefined ? h("span", { class: "seat-count" }, t("table.cards", { n: count })) : null,
      away ? h("span", { class: ["away-tag", botPlays && "bot-plays"], "data-testid": `away-${n}`,
        title: botPlays ? t("away.bot", { name: this.seatName(n, true) }) : t("conn.offline") },
      botPlays ? `${t("away.tag")} · ${t("common.bot")}` : t("away.tag")) : null,
      left !== null ? h("span", { class: ["seat-timer", left <= URGENT_SECONDS && "urgent"], "data-timer": String(n),
        "data-testid": `timer-${n}`, title: t("timer.title"), role: "timer", "aria-label": t("timer.title") }, t("timer.seconds", { s: left })) : null),
    badges ? h("div", { class: "seat-badges" }, badges) : null);
  }

  felt(view, ctx, players, toAct) {
    const viewer = view.seat ?? (this.activeSeat ?? 0);
    const slots = this.seatSlots(players, viewer);
    const trickPlays = latestPlays(view.trick && view.trick.cards ? view.trick.cards : []);
    // Until the next card is led, the finished trick stays on the felt, faded, so a trick that
    // ended with the last card is still seen where it was played.
    const last = view.last_trick;
    const donePlays = !trickPlays.size && view.phase !== "match_over" && last && last.cards
      ? latestPlays(last.cards)
      : new Map();
    // Small cards on crowded tables and on phones, so the plays keep clear of each other.
    const small = players > 5 || narrowScreen();
    const shownPlays = trickPlays.size ? trickPlays : donePlays;
    // Plays too wide to sit side by side (long plays on a narrow felt) are stacked instead:
    // one row each, in seat order round the table, each still drawn towards its seat.
    const stacked = players <= 5 && this.playsCrowd(shownPlays, slots, small);
    const zone = h("div", {
      class: ["trick-zone", stacked && "stacked"],
      "data-testid": "trick-zone",
      style: `--plays: ${shownPlays.size}`,
    });
    const seatOrder = [...slots.left].reverse().concat(slots.top, slots.right, slots.bottom);
    // Who led the trick on the felt (the one under way, or the finished one still shown), and
    // the order of its plays (numbered, for phones, where the plays sit close together): the
    // leader's play is marked, and a finished trick's winner.
    const done = !trickPlays.size;
    const leader = done ? trickLeader(last) : view.trick ? view.trick.leader : null;
    const playOrder = [...shownPlays].sort((a, b) => a[1][0].order - b[1][0].order).map(([n]) => n);
    for (const [n, play] of [...shownPlays]) {
      const pos = Table.playAnchor(slots, n);
      const cardClass = done ? "done-trick-card" : "trick-card";
      zone.append(h("div", {
        class: ["trick-play", `at-${pos.side}`, small && "small", done && "done", done && n === last.winner && "winner", play.length > 1 && "fanned",
          n === leader && "led"],
        // Kept inside the area by half a play's size, so a card never reaches a seat box.
        // A string: the DOM helper's style object cannot carry a CSS custom property.
        style: `--dx: ${pos.dx}; --dy: ${pos.dy}; --along: ${pos.along}; z-index: ${10 + play[play.length - 1].order}; --fan-show: ${fanShow(play.length, small).toFixed(3)}; --fan-n: ${play.length}; order: ${seatOrder.indexOf(n)}`,
        dataset: { seat: String(n), count: String(play.length) },
      }, play.map((entry, i) => h("div", {
        class: [cardClass, done && n === last.winner && "winner"],
        dataset: { seat: String(n), card: entry.card, order: String(entry.order) },
      }, i === 0
        ? this.withBadge(cardEl(entry.card, this.plugin.deck, { size: small ? "sm" : "" }), n, playOrder.indexOf(n) + 1, n === leader, done && n === last.winner)
        : cardEl(entry.card, this.plugin.deck, { size: small ? "sm" : "" })))));
    }
    if (view.phase === "match_over") zone.append(h("div", { class: "felt-center" }, this.matchOverBox(view)));
    const row = (cls, seats) => h("div", { class: ["felt-row", cls] }, seats.map((n) => this.seatBox(n, view, ctx, toAct)));
    return h("div", {
      class: ["felt", `players-${players}`, players > 5 && "crowded"],
      "data-direction": this.plugin.direction,
      "data-testid": "felt",
    },
    row("felt-top", slots.top), row("felt-left", slots.left), zone, row("felt-right", slots.right), row("felt-bottom", slots.bottom));
  }

  /** A play's first card with its mark in the card's free corner: its place in the trick's
   * order (the leader's in yellow), a star on the winner's of a finished trick. */
  withBadge(card, seat, place, led, won) {
    const name = this.seatName(seat, true);
    const title = won ? t("table.play.won", { name }) : led ? t("table.play.led", { name }) : t("table.play.nth", { n: place, name });
    card.append(h("span", { class: ["play-badge", led && "led", won && "won"], title, "aria-label": title, "data-testid": led ? "lead-mark" : null },
      won ? "★" : String(place)));
    return card;
  }

  /**
   * Whether the plays would meet if drawn round the centre: the left and right plays share the
   * middle of the area, and the top plays its top edge, so their widths must fit its width
   * (estimated from the screen: the felt less its side seats and padding).
   */
  playsCrowd(plays, slots, small) {
    if (plays.size < 2) return false;
    const width = (n) => (plays.has(n) ? playWidth(plays.get(n).length, small) + 6 : 0);
    const seatW = slots.left.length || slots.right.length ? 2 * (narrowScreen() ? 92 : 130) : 0;
    const panelW = window.innerWidth >= 900 ? Math.min(26 * 16, window.innerWidth * 0.3) : 0;
    const room = Math.min(window.innerWidth, 1400) - panelW - seatW - 60;
    const middle = slots.left.concat(slots.right).reduce((sum, n) => sum + width(n), 0);
    const top = slots.top.reduce((sum, n) => sum + width(n), 0);
    return Math.max(middle, top) > room;
  }

  lastTrick(view) {
    const last = view.last_trick;
    if (!last || !last.cards || !last.cards.length) return null;
    // On a phone the felt itself shows the finished trick until the next lead: no second copy.
    const onFelt = !(view.trick && view.trick.cards && view.trick.cards.length) && view.phase !== "match_over";
    if (onFelt && narrowScreen()) return null;
    const label = this.plugin.lastTrickLabel ? t(this.plugin.lastTrickLabel) : t("table.last_trick");
    // One group per play (a run of one seat's cards, as a pair or a straight), named once; the
    // leader's and the winner's are marked.
    const leader = trickLeader(last);
    const plays = [];
    for (const entry of last.cards) {
      const group = plays[plays.length - 1];
      if (group && group.seat === entry.seat) group.cards.push(entry.card);
      else plays.push({ seat: entry.seat, cards: [entry.card] });
    }
    const mark = (play, index) => {
      const name = this.seatName(play.seat, true);
      if (play.seat === last.winner) return { title: t("table.play.won", { name }), word: t("table.play.won.short") };
      if (index === 0 && play.seat === leader) return { title: t("table.play.led", { name }), word: t("table.play.led.short") };
      return null;
    };
    return h("div", { class: "last-trick", "data-testid": "last-trick" },
      h("span", { class: "label" }, label),
      h("div", { class: "card-row" }, plays.map((play, index) => {
        const marked = mark(play, index);
        return h("span", {
          class: ["last-play", play.seat === last.winner && "winner", index === 0 && play.seat === leader && "led", play.cards.length > 1 && "several"],
          title: marked ? marked.title : this.seatName(play.seat),
          "data-testid": "last-play",
          dataset: { seat: String(play.seat) },
        },
        h("span", { class: "last-play-cards" }, play.cards.map((card) => cardEl(card, this.plugin.deck, { size: "sm" }))),
        h("span", { class: "last-play-seat" }, this.seatName(play.seat, true)),
        marked ? h("span", { class: "last-play-mark" }, marked.word) : null);
      })),
      last.winner !== undefined && last.winner !== null
        ? h("span", { class: "last-winner" }, t("table.last_trick.winner", { name: this.seatName(last.winner, true) }))
        : null);
  }

  pluginPanel(ctx) {
    const container = h("div", { class: "game-panel", "data-testid": "game-panel" });
    try {
      this.plugin.renderPanel(container, ctx);
    } catch (error) {
      console.error("plugin panel failed", error);
    }
    if (!container.childNodes.length) return null;
    // Named for screen readers, so the panel's own headings follow the page's outline.
    container.prepend(h("h2", { class: "visually-hidden" }, t("table.panel")));
    return container;
  }

  /** One line under the hand saying why a clicked card cannot be played (or a server error). */
  refuse(card, ctx) {
    let reason = null;
    if (this.plugin.refusalReason) {
      try {
        reason = this.plugin.refusalReason(card, ctx);
      } catch (error) {
        console.error("plugin refusal failed", error);
      }
    }
    this.showNotice(reason || genericRefusal(ctx, card, this.plugin.deck), true);
  }

  handArea(view, ctx) {
    const held = ctx.mySeats;
    if (this.activeSeat === null) return h("div", { class: "hand-area spectator" }, t("room.spectator"));
    if (!(view.to_act || []).length && !view.hand.length) return null; // the match is over
    const tabs = held.length > 1
      ? h("div", { class: "hand-tabs", role: "tablist" }, held.map((seat) =>
        h("button", {
          type: "button",
          role: "tab",
          class: ["hand-tab", "small", seat === this.activeSeat && "active", this.legalFor(seat).length && "to-act"],
          "aria-selected": seat === this.activeSeat ? "true" : "false",
          onclick: () => {
            this.activeSeat = seat;
            this.render();
          },
        }, t("table.hand.seat", { n: seat + 1 }))))
      : null;
    const cards = this.plugin.sortHand ? this.plugin.sortHand([...view.hand], view) : sortCards(view.hand, this.plugin.deck);
    const singlePlays = new Set(ctx.legal.filter(isSingleCardPlay).map((action) => action.cards[0]));
    const raisedKey = `${this.activeSeat}:${ctx.version}`;
    const raised = this.raised && this.raised.key === raisedKey && singlePlays.has(this.raised.card) ? this.raised.card : null;
    const stateOf = (card) => {
      if (card === raised) return "selected";
      if (this.plugin.cardState) return this.plugin.cardState(card, ctx);
      if (singlePlays.has(card)) return "legal";
      return ctx.isMyTurn ? "disabled" : "";
    };
    const play = (card) => this.sendAction(ctx.legal.find((a) => isSingleCardPlay(a) && a.cards[0] === card));
    const onClick = (card) => {
      if (this.pending) return;
      if (this.plugin.onCardClick && this.plugin.onCardClick(card, ctx)) return;
      if (!singlePlays.has(card)) this.refuse(card, ctx);
      else if (confirmCards() && card !== raised) {
        // The first tap raises the card and says what a second one does.
        this.raised = { card, key: raisedKey };
        this.render();
      } else play(card);
    };
    const onRefused = (card) => this.refuse(card, ctx);
    const fresh = this.newCards.cards;
    const elements = cards.map((card) => {
      const state = stateOf(card);
      const el = cardEl(card, this.plugin.deck, {
        state, onClick: state === "disabled" ? onRefused : onClick, extraClasses: fresh.has(card) ? ["is-new"] : [],
      });
      if (fresh.has(card)) {
        el.dataset.new = "true";
        el.title = `${el.title} (${t("table.card.new")})`;
      }
      return el;
    });
    const hand = h("div", { class: ["hand", ctx.isMyTurn && "my-turn"], "data-testid": "hand", dataset: { seat: String(this.activeSeat) } },
      cards.length ? this.handRows(elements) : h("p", { class: "muted" }, t("table.hand.empty")));
    const hint = this.handHint(ctx);
    const buttons = (this.plugin.buttonActions ? this.plugin.buttonActions(ctx) : ctx.legal.filter((a) => !isSingleCardPlay(a)))
      .map((action) => h("button", {
        type: "button",
        class: "action-button",
        disabled: this.pending,
        title: this.plugin.actionHelp ? this.plugin.actionHelp(action, ctx) || null : null,
        onclick: () => this.sendAction(action),
      }, this.plugin.actionLabel ? this.plugin.actionLabel(action, ctx) : defaultActionLabel(action)));
    return h("section", { class: ["hand-area", ctx.isMyTurn && "my-turn"] },
      h("div", { class: "hand-title" },
        tabs || h("h2", null, t("table.hand")),
        hint ? h("span", { class: "hint", "data-testid": "hand-hint" }, hint) : null),
      this.notice ? h("p", { class: "notice", role: "alert", "data-testid": "table-notice" }, this.notice) : null,
      raised ? h("p", { class: "raised-card", "data-testid": "raised-card" },
        h("span", null, t("table.confirm.what", { card: describeCard(raised, this.plugin.deck).label })),
        h("button", { type: "button", class: "primary small", "data-testid": "play-raised", disabled: this.pending, onclick: () => play(raised) },
          t("table.confirm.play"))) : null,
      this.plugin.handControls ? this.plugin.handControls(ctx) : null,
      hand,
      buttons.length ? h("div", { class: "action-buttons", "aria-label": t("table.actions") }, buttons) : null);
  }

  /**
   * The hand in at most two rows (three when two would leave strips under MIN_TAP_STRIP_PX). When a row has more cards than fit side by side, the cards of
   * that row overlap as a fan (each still shows its corner): the overlap is a share of the row's
   * width (CSS `--per-row`), so it follows the screen without measuring it.
   */
  handRows(elements) {
    const width = this.root.clientWidth || window.innerWidth;
    const styles = getComputedStyle(document.documentElement);
    const cardW = parseFloat(styles.getPropertyValue("--card-w")) || 46;
    const fit = Math.max(1, Math.floor((width - 16 + 4) / (cardW + 4)));
    // One fanned row while each card still shows a comfortable strip, else two rows.
    const oneRowStep = (width - 16 - cardW) / Math.max(1, elements.length - 1);
    let rows = elements.length <= fit || oneRowStep >= cardW * 0.6 ? 1 : 2;
    // A third row rather than strips too narrow to tap (a 30-card hand on a phone).
    const twoRowStep = (width - 16 - cardW) / Math.max(1, Math.ceil(elements.length / 2) - 1);
    if (rows === 2 && twoRowStep < MIN_TAP_STRIP_PX) rows = 3;
    const perRow = Math.ceil(elements.length / rows);
    const fanned = perRow > fit;
    const out = [];
    for (let i = 0; i < elements.length; i += perRow) {
      out.push(h("div", { class: ["hand-row", fanned && "fan-row"], style: `--per-row: ${perRow}` }, elements.slice(i, i + perRow)));
    }
    return out;
  }

  /**
   * The line next to "Your hand". A plugin's `handHint` decides when it has one; a plugin that
   * handles clicks itself (`onCardClick`) but has no `handHint` gets none, since "click to play"
   * may be wrong there (a click may select a card instead).
   */
  handHint(ctx) {
    if (this.plugin.handHint) {
      try {
        return this.plugin.handHint(ctx) || null;
      } catch (error) {
        console.error("plugin hand hint failed", error);
        return null;
      }
    }
    if (this.plugin.onCardClick) return null;
    return genericHandHint(ctx);
  }

  scoreRows(view) {
    const players = view.players;
    const seats = Array.from({ length: players }, (_, n) => n);
    const hands = view.hands || [];
    return h("table", { class: "score-table" },
      h("thead", null, h("tr", null, h("th", null, "#"), seats.map((n) => h("th", { class: "num" }, this.seatName(n))))),
      h("tbody", null, hands.map((hand, index) => h("tr", null,
        h("td", null, String(hand.hand_no ?? index + 1)),
        seats.map((n) => h("td", { class: "num" }, formatScore(hand.scores ? hand.scores[n] : 0)))))),
      h("tfoot", null, h("tr", null, h("th", null, t("table.total")),
        seats.map((n) => h("th", { class: "num" }, formatScore(view.scores ? view.scores[n] : 0))))));
  }

  scoreTable(view) {
    if (!view.hands || !view.hands.length) return null;
    return h("details", { class: "scores-panel", open: view.phase === "match_over" },
      h("summary", null, t("table.scores")),
      h("div", { class: "table-scroll" }, this.scoreRows(view)));
  }

  resultDialog(view, ctx) {
    const hand = (view.hands || [])[this.dialogHand];
    if (!hand) return null;
    const seats = Array.from({ length: view.players }, (_, n) => n);
    const details = h("div", { class: "hand-details" });
    if (this.plugin.renderHandResult) {
      try {
        this.plugin.renderHandResult(details, ctx, hand);
      } catch (error) {
        console.error("plugin hand result failed", error);
      }
    }
    const matchOver = view.phase === "match_over" || (view.to_act || []).length === 0;
    const close = () => {
      this.dialogHand = null;
      this.resultPinned = false;
      try {
        localStorage.setItem(`cardtable.result.${this.state.match_id}`, String(view.hands.length));
      } catch { /* private mode: closed for this page only */ }
      this.render();
    };
    return h("div", { class: "dialog-backdrop" },
      h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "hand-result-title", "data-testid": "hand-result" },
        h("h2", { id: "hand-result-title" }, t("table.hand_result", { n: hand.hand_no ?? this.dialogHand + 1 })),
        this.dialogClock(view),
        h("div", { class: "dialog-body" },
        h("div", { class: "table-scroll" }, narrowScreen()
          // A phone: one row per seat, so no column runs off the screen however many seats.
          ? h("table", { class: "score-table hand-score by-seat" },
            h("thead", null, h("tr", null, h("th", null, t("table.player")), h("th", { class: "num" }, t("table.score")),
              h("th", { class: "num" }, t("table.total")))),
            h("tbody", null, seats.map((n) => h("tr", null, h("th", null, this.seatName(n)),
              h("td", { class: "num" }, formatScore(hand.scores[n])), h("td", { class: "num" }, formatScore(view.scores[n]))))))
          : h("table", { class: "score-table hand-score" },
            h("thead", null, h("tr", null, h("td", null, ""), seats.map((n) => h("th", { class: "num" }, this.seatName(n))))),
            h("tbody", null,
              h("tr", null, h("th", null, t("table.score")), seats.map((n) => h("td", { class: "num" }, formatScore(hand.scores[n])))),
              h("tr", null, h("th", null, t("table.total")), seats.map((n) => h("td", { class: "num" }, formatScore(view.scores[n]))))))),
        details.childNodes.length ? details : null,
        matchOver ? this.finalRanking(view) : null,
        matchOver ? this.matchLinks() : null),
        h("div", { class: "dialog-buttons" }, h("button", { type: "button", class: "primary", onclick: close }, t("table.continue")))));
  }

  /**
   * The result dialog never hides a running clock: when this person's own turn clock runs (an
   * exchange right after a hand) the dialog closes itself and the status line offers it again.
   * Opened again while the clock runs, it shows the clock itself.
   */
  closeResultForClock(view) {
    if (this.dialogHand === null || this.resultPinned) return;
    const mine = this.legalFor(this.activeSeat).length > 0 && view.phase !== "match_over";
    if (!mine || this.secondsLeft(this.activeSeat) === null) return;
    this.resultLater = this.dialogHand;
    this.dialogHand = null;
  }

  /** The room's name for notifications ("Card Table" when it has none). */
  roomTitle() {
    const room = this.room;
    if (!room) return t("app.title");
    const names = room.display_name || {};
    return names[lang()] || names.en || room.name || t("app.title");
  }

  /** In the result dialog while this person's turn clock runs: the clock, so it is never hidden. */
  dialogClock(view) {
    const mine = this.legalFor(this.activeSeat).length > 0 && view.phase !== "match_over";
    const left = mine ? this.secondsLeft(this.activeSeat) : null;
    if (left === null) return null;
    return h("p", { class: ["dialog-clock", left <= URGENT_SECONDS && "urgent"], "data-testid": "dialog-clock" },
      t("table.your_turn"), " · ",
      h("span", { "data-timer": String(this.activeSeat), role: "timer", "aria-label": t("timer.title") }, t("timer.seconds", { s: left })));
  }

  /** How many finished hands' results this person closed on this device for a match. */
  resultClosed(matchId) {
    try {
      return Number(localStorage.getItem(`cardtable.result.${matchId}`) || 0);
    } catch {
      return 0;
    }
  }

  /** Links to a finished match's page (scores hand by hand) and its replay. */
  matchLinks() {
    if (!this.state) return null;
    const id = encodeURIComponent(this.state.match_id);
    return h("span", { class: "match-links", "data-testid": "match-links" },
      h("a", { href: `/matches/${id}`, "data-testid": "match-page-link" }, t("table.match_page")),
      h("a", { href: `/matches/${id}/replay`, "data-testid": "replay-link" }, t("table.replay")));
  }

  /** On the felt of a finished match: the final ranking, where to read it again, and what the
   * room does next (the host starts a rematch; everyone else waits for them). */
  matchOverBox(view) {
    const room = this.room || {};
    const host = (room.members || []).find((m) => m.is_host || m.person_id === room.host_id);
    const next = room.me && room.me.is_host ? t("table.over.host") : t("table.over.wait", { name: host ? host.name : t("room.host") });
    return h("div", { class: "match-over", "data-testid": "match-over" },
      this.finalRanking(view, "h2"),
      this.matchLinks(),
      h("p", { class: "match-over-next" }, next));
  }

  finalRanking(view, heading = "h3") {
    return h("div", { class: "final-ranking" },
      h(heading, null, t("table.final")),
      h("ol", null, rankSeats(view.scores).map((entry) =>
        h("li", { value: entry.rank }, `${this.seatName(entry.seat)} ${formatScore(entry.score)}`))));
  }
}
