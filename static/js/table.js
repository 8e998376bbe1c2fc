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
import { h, replace } from "./dom.js";
import { addStrings, lang, pick, t } from "./i18n.js";
import { cardBack, cardEl, deckForGame, sortCards } from "./cards.js";

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
  return ctx.isMyTurn && ctx.legal.some(isSingleCardPlay) ? t("table.click_legal") : null;
}

/** The visible share of each fanned card's width: less for longer plays and crowded tables. */
function fanShow(count, small) {
  if (count < 2) return "1";
  const spread = small ? 1.4 : 2.2; // at most this many card widths beyond the first card
  return String(Math.min(0.45, spread / (count - 1)).toFixed(3));
}

export class Table {
  /**
   * @param {HTMLElement} root where the table is drawn
   * @param {{gameId: string, plugin: any, send: (message: any) => boolean, rulesHref: string}} options
   */
  constructor(root, options) {
    this.root = root;
    this.gameId = options.gameId;
    this.plugin = options.plugin;
    this.sendRaw = options.send;
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
  }

  setRoom(room) {
    this.room = room;
    this.render();
  }

  setConnection(status) {
    this.connection = status;
    const dot = this.root.querySelector(".table-conn");
    if (dot) dot.replaceWith(this.connectionBadge());
  }

  /** A new `state` message from the server. */
  setState(message) {
    const firstState = this.state === null || this.state.match_id !== message.match_id;
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
      // On (re)connect show the result of a just-finished hand or match only if the table waits on it.
      this.seenHands = view && (view.phase === "hand_over" || view.phase === "match_over") ? hands.length - 1 : hands.length;
    }
    if (hands.length > this.seenHands) {
      this.dialogHand = hands.length - 1;
      this.seenHands = hands.length;
    }
    const handKey = `${this.activeSeat}:${view ? (view.hand || []).join(",") : ""}`;
    if (handKey !== this.selectedFor) {
      this.selected = [];
      this.selectedFor = handKey;
    }
    this.render();
  }

  showNotice(text) {
    this.pending = false;
    this.notice = text;
    this.render();
    clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => {
      this.notice = null;
      this.render();
    }, 6000);
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
      seatName: (n) => this.seatName(n),
      card: (code, options) => cardEl(code, plugin.deck, options),
      h,
      t,
      lang: lang(),
      redraw: () => this.render(),
    };
  }

  sendAction(action) {
    if (this.activeSeat === null || !this.state) return false;
    const ok = this.sendRaw({ type: "action", seat: this.activeSeat, version: this.state.version, action });
    if (ok) {
      this.pending = true;
      this.render();
    } else {
      this.showNotice(t("conn.closed", { s: "…" }));
    }
    return ok;
  }

  connectionBadge() {
    const key = this.connection === "open" ? "conn.open" : this.connection === "closed" ? "conn.offline" : "conn.connecting";
    return h("span", { class: ["table-conn", `conn-${this.connection}`], "data-conn": this.connection }, h("span", { class: "dot" }), t(key));
  }

  render() {
    const view = this.currentView();
    if (!view) {
      replace(this.root);
      return;
    }
    const ctx = this.context();
    const players = view.players || (this.room ? this.room.seats.length : 0);
    const toAct = (view.to_act || []).filter((s) => s >= 0);
    replace(this.root,
      this.notice ? h("div", { class: "notice", role: "alert" }, this.notice) : null,
      this.statusBar(view, ctx, toAct),
      this.felt(view, ctx, players, toAct),
      this.lastTrick(view),
      this.plugin.renderPanel ? this.pluginPanel(ctx) : null,
      this.handArea(view, ctx),
      this.scoreTable(view, ctx),
      this.dialogHand !== null ? this.resultDialog(view, ctx) : null);
  }

  statusBar(view, ctx, toAct) {
    const names = toAct.map((s) => this.seatName(s)).join(", ");
    let turn;
    if (view.phase === "match_over" || (toAct.length === 0 && (view.to_act || []).length === 0)) turn = t("table.phase.match_over");
    else if (ctx.isMyTurn) turn = t("table.your_turn");
    else if (names) turn = t("table.waiting", { names });
    else turn = "";
    const handNo = view.hand_no
      ? view.hands_total ? t("table.hand_no_of", { n: view.hand_no, total: view.hands_total }) : t("table.hand_no", { n: view.hand_no })
      : "";
    return h("div", { class: "table-status" },
      h("span", { class: "table-hand-no" }, handNo),
      h("span", { class: ["table-turn", ctx.isMyTurn && "my-turn"], "data-testid": "turn" }, turn),
      view.message ? h("span", { class: "table-message" }, pick(view.message)) : null,
      this.pending ? h("span", { class: "table-pending" }, t("table.sent")) : null,
      this.connectionBadge(),
      h("a", { class: "table-rules", href: this.rulesHref, target: "_blank", rel: "noopener" }, t("nav.rules")));
  }

  /** Where seat `n` sits, in percent of the felt, the viewer's seat at the bottom. */
  seatPosition(n, players, viewer) {
    const relative = (n - viewer + players) % players;
    const step = (2 * Math.PI) / players;
    const sign = this.plugin.direction === "ccw" ? -1 : 1;
    const angle = Math.PI / 2 + sign * relative * step;
    return { x: 50 + 44 * Math.cos(angle), y: 50 + 40 * Math.sin(angle) };
  }

  felt(view, ctx, players, toAct) {
    const viewer = view.seat ?? (this.activeSeat ?? 0);
    const felt = h("div", { class: ["felt", `players-${players}`], "data-direction": this.plugin.direction });
    const trickPlays = latestPlays(view.trick && view.trick.cards ? view.trick.cards : []);
    // Until the next card is led, the finished trick stays on the felt, faded, so a trick that
    // ended with the last card is still seen where it was played.
    const last = view.last_trick;
    const donePlays = !trickPlays.size && view.phase !== "match_over" && last && last.cards
      ? latestPlays(last.cards)
      : new Map();
    const small = players > 6;
    for (let n = 0; n < players; n++) {
      const pos = this.seatPosition(n, players, viewer);
      const roomSeat = this.room && this.room.seats ? this.room.seats.find((s) => s.n === n) : null;
      const connected = roomSeat ? roomSeat.kind === "bot" || roomSeat.connected : true;
      const count = view.hand_counts ? view.hand_counts[n] : null;
      const badges = this.plugin.seatBadges ? this.plugin.seatBadges(n, ctx) : null;
      felt.append(h("div", {
        class: ["seat", toAct.includes(n) && "to-act", ctx.mySeats.includes(n) && "mine", n === view.seat && "viewer"],
        // Clamped so that a seat box at the far left or right stays on a phone's screen.
        style: { left: `clamp(var(--seat-half), ${pos.x}%, calc(100% - var(--seat-half)))`, top: `${pos.y}%` },
        dataset: { seat: String(n) },
      },
      h("div", { class: "seat-name" },
        h("span", { class: ["dot", connected ? "online" : "offline"], title: t(connected ? "conn.online" : "conn.offline") }),
        h("span", { class: "seat-no-chip", title: t("common.seat", { n: n + 1 }) }, String(n + 1)),
        h("span", { class: "seat-label", title: this.seatName(n) }, this.seatName(n, true)),
        view.dealer === n ? h("span", { class: "dealer-chip", title: t("table.dealer") }, t("table.dealer.chip")) : null),
      h("div", { class: "seat-meta" },
        h("span", { class: "seat-score", title: t("table.score") }, formatScore(view.scores ? view.scores[n] : 0)),
        count !== null && count !== undefined ? h("span", { class: "seat-count" }, t("table.cards", { n: count })) : null),
      badges ? h("div", { class: "seat-badges" }, badges) : null));
      const play = trickPlays.get(n) || donePlays.get(n);
      if (play) {
        const done = !trickPlays.size;
        const pull = small ? 0.42 : 0.5; // crowded tables keep the trick nearer the middle
        const tx = 50 + (pos.x - 50) * pull;
        const ty = 50 + (pos.y - 50) * (pull - 0.05);
        const cardClass = done ? "done-trick-card" : "trick-card";
        felt.append(h("div", {
          class: ["trick-play", small && "small", done && "done", done && n === last.winner && "winner", play.length > 1 && "fanned"],
          // A play of several cards is fanned: the more cards, the more they overlap, so that a
          // long straight still takes little more room than two cards side by side.
          // A string: the DOM helper's style object cannot carry a CSS custom property.
          style: `left: ${tx}%; top: ${ty}%; z-index: ${10 + play[play.length - 1].order}; --fan-show: ${fanShow(play.length, small)}`,
          dataset: { seat: String(n), count: String(play.length) },
        }, play.map((entry) => h("div", {
          class: [cardClass, done && n === last.winner && "winner"],
          dataset: { seat: String(n), card: entry.card, order: String(entry.order) },
        }, cardEl(entry.card, this.plugin.deck, { size: small ? "sm" : "" })))));
      }
    }
    if (!trickPlays.size) {
      let centre = view.phase === "match_over" ? t("table.phase.match_over") : "";
      if (donePlays.size && last.winner !== undefined && last.winner !== null) {
        centre = t("table.last_trick.winner", { name: this.seatName(last.winner) });
      }
      felt.append(h("div", { class: "felt-center" }, centre));
    }
    return felt;
  }

  lastTrick(view) {
    const last = view.last_trick;
    if (!last || !last.cards || !last.cards.length) return null;
    return h("div", { class: "last-trick", "data-testid": "last-trick" },
      h("span", { class: "label" }, t("table.last_trick")),
      h("div", { class: "card-row" }, last.cards.map((play) =>
        h("span", { class: ["last-play", play.seat === last.winner && "winner"], title: this.seatName(play.seat) },
          cardEl(play.card, this.plugin.deck, { size: "sm" }),
          h("span", { class: "last-play-seat" }, this.seatName(play.seat))))),
      last.winner !== undefined && last.winner !== null
        ? h("span", { class: "last-winner" }, t("table.last_trick.winner", { name: this.seatName(last.winner) }))
        : null);
  }

  pluginPanel(ctx) {
    const container = h("div", { class: "game-panel" });
    try {
      this.plugin.renderPanel(container, ctx);
    } catch (error) {
      console.error("plugin panel failed", error);
    }
    return container.childNodes.length ? container : null;
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
          class: ["hand-tab", seat === this.activeSeat && "active", this.legalFor(seat).length && "to-act"],
          "aria-selected": seat === this.activeSeat ? "true" : "false",
          onclick: () => {
            this.activeSeat = seat;
            this.render();
          },
        }, t("table.hand.seat", { n: seat + 1 }))))
      : null;
    const cards = this.plugin.sortHand ? this.plugin.sortHand([...view.hand], view) : sortCards(view.hand, this.plugin.deck);
    const singlePlays = new Set(ctx.legal.filter(isSingleCardPlay).map((action) => action.cards[0]));
    const stateOf = (card) => {
      if (this.plugin.cardState) return this.plugin.cardState(card, ctx);
      if (singlePlays.has(card)) return "legal";
      return ctx.isMyTurn ? "disabled" : "";
    };
    const onClick = (card) => {
      if (this.pending) return;
      if (this.plugin.onCardClick && this.plugin.onCardClick(card, ctx)) return;
      const action = ctx.legal.find((a) => isSingleCardPlay(a) && a.cards[0] === card);
      if (action) this.sendAction(action);
    };
    const hand = h("div", { class: ["hand", ctx.isMyTurn && "my-turn"], "data-testid": "hand", dataset: { seat: String(this.activeSeat) } },
      cards.length
        ? cards.map((card) => {
          const state = stateOf(card);
          return cardEl(card, this.plugin.deck, { state, onClick: state === "legal" || state === "selected" ? onClick : state === "disabled" ? onClick : null });
        })
        : h("p", { class: "muted" }, t("table.hand.empty")));
    const hint = this.handHint(ctx);
    const buttons = (this.plugin.buttonActions ? this.plugin.buttonActions(ctx) : ctx.legal.filter((a) => !isSingleCardPlay(a)))
      .map((action) => h("button", {
        type: "button",
        class: "action-button",
        disabled: this.pending,
        onclick: () => this.sendAction(action),
      }, this.plugin.actionLabel ? this.plugin.actionLabel(action, ctx) : defaultActionLabel(action)));
    return h("section", { class: "hand-area" },
      tabs,
      h("h3", { class: "hand-title" }, held.length > 1 ? null : t("table.hand"),
        hint ? h("span", { class: "hint", "data-testid": "hand-hint" }, hint) : null),
      hand,
      buttons.length ? h("div", { class: "action-buttons", "aria-label": t("table.actions") }, buttons) : null);
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
      this.render();
    };
    return h("div", { class: "dialog-backdrop" },
      h("div", { class: "dialog", role: "dialog", "aria-modal": "true", "data-testid": "hand-result" },
        h("h2", null, t("table.hand_result", { n: hand.hand_no ?? this.dialogHand + 1 })),
        h("div", { class: "table-scroll" }, h("table", { class: "score-table hand-score" },
          h("thead", null, h("tr", null, h("th", null, ""), seats.map((n) => h("th", { class: "num" }, this.seatName(n))))),
          h("tbody", null,
            h("tr", null, h("th", null, t("table.score")), seats.map((n) => h("td", { class: "num" }, formatScore(hand.scores[n])))),
            h("tr", null, h("th", null, t("table.total")), seats.map((n) => h("td", { class: "num" }, formatScore(view.scores[n]))))))),
        details.childNodes.length ? details : null,
        matchOver ? this.finalRanking(view) : null,
        h("div", { class: "dialog-buttons" }, h("button", { type: "button", class: "primary", onclick: close }, t("table.continue")))));
  }

  finalRanking(view) {
    return h("div", { class: "final-ranking" },
      h("h3", null, t("table.final")),
      h("ol", null, rankSeats(view.scores).map((entry) =>
        h("li", { value: entry.rank }, `${this.seatName(entry.seat)} ${formatScore(entry.score)}`))));
  }
}
