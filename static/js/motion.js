/**
 * Cards that move (issue 22): a played card travels from its player's seat (or from the hand) to
 * its place on the felt, a finished trick stays readable with its winner marked for about a
 * second and then gathers toward the winner, and a new deal fills the hand.
 *
 * Motion never delays the game or input: every state is drawn at once, and the movement is laid
 * over the drawing with the Web Animations API (an animation is only a transform from where the
 * card was to where it is now). A redraw in the middle of a flight continues it on the new
 * element; a state that arrives far ahead of the last one (a reconnect, a hidden tab catching up)
 * is drawn without motion; `prefers-reduced-motion: reduce` turns all of it off.
 *
 * Use: `const before = motion.capture(root)` before the table redraws, then
 * `motion.play(root, before, animate)` after it.
 */

/** How long a card takes from its seat to the felt, in ms. */
export const FLIGHT_MS = 380;
/** How long a finished trick stays on the felt, its winner marked, before it gathers. */
export const TRICK_READ_MS = 1000;
/** How long the gathering of a finished trick toward its winner takes. */
const GATHER_MS = 450;
/** A state more than this many actions past the last one drawn is shown without motion. */
export const CATCH_UP_ACTIONS = 8;

const CARD_ON_FELT = ".felt .trick-card, .felt .done-trick-card";

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

function keyOf(el) {
  return `${el.dataset.seat}:${el.dataset.card}`;
}

export class Motion {
  constructor() {
    /** Card key -> {dx, dy, start}: flights under way, continued across redraws. */
    this.flights = new Map();
    /** When the trick now shown finished (performance.now()), for the reading pause. */
    this.doneSince = null;
    this.doneKey = "";
    this.layer = null;
    /** The animations running on the table's own elements (flights, a deal). */
    this.onTable = new Set();
  }

  /** Keep `animation` (on a table element) until it ends or the next drawing replaces it. */
  track(animation) {
    this.onTable.add(animation);
    animation.addEventListener("finish", () => this.onTable.delete(animation));
  }

  /** What the drawing about to be replaced shows: where each seat, hand card and felt card is. */
  capture(root) {
    const seats = new Map();
    for (const el of root.querySelectorAll(".felt .seat[data-seat]")) seats.set(el.dataset.seat, el.getBoundingClientRect());
    const hand = new Map();
    for (const el of root.querySelectorAll("[data-testid=hand] .card[data-card]")) hand.set(el.dataset.card, el.getBoundingClientRect());
    const handEl = root.querySelector("[data-testid=hand]");
    const onFelt = new Set([...root.querySelectorAll(CARD_ON_FELT)].map(keyOf));
    // A copy of each finished trick's card as it looks now: the redraw may reuse the element for
    // another card (static/js/dom.js, `morph`), and the gathering draws the old one.
    const done = [...root.querySelectorAll(".felt .done-trick-card")].map((el) => ({
      copy: el.cloneNode(true), key: keyOf(el), rect: el.getBoundingClientRect(),
    }));
    const winnerEl = root.querySelector(".felt .trick-play.done.winner");
    // The redraw may keep these elements (or give them to other cards): the flights under way
    // start again on the new drawing (`play`), from where they were.
    for (const animation of this.onTable) animation.cancel();
    this.onTable.clear();
    return {
      seats, hand, handSeat: handEl ? handEl.dataset.seat : null, onFelt, done,
      winner: winnerEl ? winnerEl.dataset.seat : null, handSize: hand.size,
    };
  }

  /**
   * After a redraw: fly the cards that are new on the felt, continue the flights under way,
   * gather a finished trick that left the felt, and deal a hand that was empty. `animate` false
   * (a reconnect, catching up, reduced motion) shows the new drawing as it is.
   */
  play(root, before, animate) {
    if (!before) return;
    if (!animate || reducedMotion()) {
      this.flights.clear();
      this.clearLayer();
      this.noteDone(root);
      return;
    }
    const now = performance.now();
    for (const [key, flight] of this.flights) if (now - flight.start >= FLIGHT_MS) this.flights.delete(key);
    for (const el of root.querySelectorAll(CARD_ON_FELT)) {
      const key = keyOf(el);
      let flight = this.flights.get(key);
      if (!flight && !before.onFelt.has(key)) flight = this.launch(el, before);
      if (flight) this.fly(el, flight, now);
    }
    this.gather(root, before, now);
    this.deal(root, before);
    this.noteDone(root);
  }

  /** A new flight for a card that just reached the felt: from the hand when it was there, else
   * from its player's seat box. */
  launch(el, before) {
    const to = centre(el.getBoundingClientRect());
    const fromHand = before.handSeat === el.dataset.seat ? before.hand.get(el.dataset.card) : null;
    const fromRect = fromHand || before.seats.get(el.dataset.seat)
      || el.closest(".felt")?.querySelector(`.seat[data-seat='${el.dataset.seat}']`)?.getBoundingClientRect();
    if (!fromRect) return null;
    const from = centre(fromRect);
    const flight = { dx: from.x - to.x, dy: from.y - to.y, start: performance.now() };
    this.flights.set(keyOf(el), flight);
    return flight;
  }

  fly(el, flight, now) {
    const animation = el.animate(
      [
        { transform: `translate(${flight.dx}px, ${flight.dy}px) scale(0.7)` },
        { transform: "none" },
      ],
      { duration: FLIGHT_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" },
    );
    animation.currentTime = Math.min(FLIGHT_MS, Math.max(0, now - flight.start));
    this.track(animation);
  }

  /** When the finished trick shown before is gone from the felt (the next card was led, or the
   * hand ended), draw it on a layer above the table where it was, leave it there until it has
   * been seen for TRICK_READ_MS, then move it into the winner's seat, shrinking away (no fading:
   * a half-transparent card would be a card nobody can read). */
  gather(root, before, now) {
    if (!before.done.length) return;
    const still = new Set([...root.querySelectorAll(".felt .done-trick-card")].map(keyOf));
    if (before.done.some((card) => still.has(card.key))) return;
    const winnerBox = before.winner !== null
      ? root.querySelector(`.felt .seat[data-seat='${before.winner}']`) || null
      : null;
    const target = winnerBox ? centre(winnerBox.getBoundingClientRect()) : null;
    const shown = this.doneSince === null ? TRICK_READ_MS : now - this.doneSince;
    const wait = Math.max(0, TRICK_READ_MS - shown);
    const layer = this.ensureLayer();
    for (const card of before.done) {
      const ghost = card.copy;
      ghost.className = ghost.classList.contains("winner") ? "gathering winner" : "gathering";
      // A picture only: nothing a page or a test looks cards up by (the real cards are on the felt).
      for (const el of [ghost, ...ghost.querySelectorAll("*")]) {
        for (const name of ["data-card", "data-seat", "data-order", "data-testid", "title", "aria-label"]) el.removeAttribute(name);
      }
      Object.assign(ghost.style, {
        position: "fixed", left: `${card.rect.left}px`, top: `${card.rect.top}px`,
        width: `${card.rect.width}px`, height: `${card.rect.height}px`, margin: "0",
      });
      layer.append(ghost);
      const from = centre(card.rect);
      const end = target
        ? `translate(${target.x - from.x}px, ${target.y - from.y}px) scale(0.15)`
        : "scale(0.15)";
      const total = wait + GATHER_MS;
      const animation = ghost.animate(
        [
          { transform: "none", offset: 0 },
          { transform: "none", offset: wait / total },
          { transform: end, offset: 1 },
        ],
        { duration: total, easing: "ease-in", fill: "forwards" },
      );
      animation.onfinish = () => ghost.remove();
      animation.oncancel = () => ghost.remove();
    }
  }

  /** A hand drawn where there was none (a deal): its cards arrive one after another. */
  deal(root, before) {
    if (before.handSize > 0) return;
    const cards = [...root.querySelectorAll("[data-testid=hand] .card[data-card]")];
    if (cards.length < 2) return;
    const step = Math.min(30, 600 / cards.length);
    cards.forEach((el, i) => {
      this.track(el.animate(
        [{ transform: "translateY(-2.5rem) scale(0.6)" }, { transform: "none" }],
        { duration: 260, delay: i * step, easing: "ease-out", fill: "backwards" },
      ));
    });
  }

  /** Remember since when the finished trick on the felt has been shown. */
  noteDone(root) {
    const done = [...root.querySelectorAll(".felt .done-trick-card")].map(keyOf).join(",");
    if (done !== this.doneKey) {
      this.doneKey = done;
      this.doneSince = done ? performance.now() : null;
    }
  }

  ensureLayer() {
    if (!this.layer || !this.layer.isConnected) {
      this.layer = document.createElement("div");
      this.layer.className = "motion-layer";
      this.layer.setAttribute("aria-hidden", "true");
      document.body.append(this.layer);
    }
    return this.layer;
  }

  clearLayer() {
    if (this.layer) this.layer.replaceChildren();
  }
}
