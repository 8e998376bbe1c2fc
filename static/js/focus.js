/**
 * Keyboard focus on the live table, which draws itself again on every state message (replacing
 * the nodes that changed, static/js/dom.js `morph`):
 *
 * - Focus survives a redraw: what had it before (a card, a button, a field) gets it back in the
 *   new drawing; a card that left the hand hands it to the nearest legal card (else the nearest
 *   card) in the same place of the hand.
 * - One tab stop per group (a "roving" tab stop): the hand is one stop, its cards reached with
 *   the arrow keys (Home/End: first/last); the action buttons under the hand likewise. Enter or
 *   Space plays or selects the card (cards are buttons).
 * - Dialogs (the hand's result, the play log) take focus when they open, keep Tab inside, close
 *   with Escape and give focus back to where it was.
 * - `keepFocus` gives other pages drawn anew for every message (the room's lobby) the first
 *   point: the field or button that had focus has it again, a text field's caret included. While
 *   an input method is composing in one of its fields (kana being turned into kanji), it holds the
 *   redraw back until the composition ends: a new copy of the field would take the half-made text
 *   as typed, and the converted word would then be added after it.
 */

const HAND = "[data-testid=hand]";
/** The groups' containers that listen for arrow keys already. */
const WIRED = new WeakSet();
const GROUPS = [
  { container: HAND, items: ".card" },
  { container: ".action-buttons", items: "button:not([disabled])" },
];
const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

/** A description of the focused element inside `root` that can find its copy in a new drawing
 * (`find`). `placed`: with its place among its likes (`index`, which `find` falls back on); a
 * description only compared (`sameThing`) goes without, which saves a search of the root. */
function describe(root, el, placed = true) {
  if (!el || el === document.body || !root.contains(el)) return null;
  const hand = el.closest(HAND);
  if (hand && el.dataset.card) {
    return { card: el.dataset.card, index: placed ? [...hand.querySelectorAll(".card")].indexOf(el) : -1 };
  }
  const testid = el.getAttribute("data-testid");
  const index = placed
    ? [...root.querySelectorAll(el.tagName)].filter((e) => e.className === el.className && e.getAttribute("data-testid") === testid).indexOf(el)
    : -1;
  return { tag: el.tagName, className: el.className, testid, text: el.textContent, index };
}

/** Whether two descriptions (`describe`) name the same card or control. */
function sameThing(a, b) {
  if (!a || !b) return a === b;
  if (a.card || b.card) return a.card === b.card;
  return a.tag === b.tag && a.className === b.className && a.testid === b.testid && a.text === b.text;
}

function find(root, key) {
  if (!key) return null;
  if (key.card) {
    const hand = root.querySelector(HAND);
    if (!hand) return null;
    const cards = [...hand.querySelectorAll(".card")];
    const same = cards.find((c) => c.dataset.card === key.card);
    if (same) return same;
    // The card left the hand: the nearest legal card, else the nearest card, from its place.
    const byDistance = (list) => list.sort((a, b) => Math.abs(cards.indexOf(a) - key.index) - Math.abs(cards.indexOf(b) - key.index))[0];
    return byDistance(cards.filter((c) => c.classList.contains("is-legal"))) || byDistance([...cards]) || null;
  }
  const same = [...root.querySelectorAll(key.tag)].filter((e) => e.className === key.className && e.getAttribute("data-testid") === key.testid);
  return same.find((e) => e.textContent === key.text) || same[key.index] || same[0] || null;
}

/** The card that holds the hand's tab stop now (the focused one, else the one remembered, else a legal one). */
function rovingItem(items, remembered, focused = document.activeElement) {
  return items.find((el) => el === focused)
    || (remembered && items.find((el) => el.dataset.card === remembered))
    || items.find((el) => el.classList.contains("is-legal"))
    || items[0];
}

function focusItem(items, index) {
  const item = items[Math.max(0, Math.min(items.length - 1, index))];
  if (!item) return;
  for (const el of items) el.tabIndex = el === item ? 0 : -1;
  item.focus();
}

/** Arrow keys, Home and End move within a group (the hand, the action buttons). */
function onGroupKey(event, group) {
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (!(event.key in moves) && event.key !== "Home" && event.key !== "End") return;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const items = [...event.currentTarget.querySelectorAll(group.items)];
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  event.preventDefault();
  if (event.key === "Home") focusItem(items, 0);
  else if (event.key === "End") focusItem(items, items.length - 1);
  else focusItem(items, at + moves[event.key]);
}

/** Tab stays inside the dialog; Escape closes it (its primary button, as a click would). */
function onDialogKey(event) {
  const dialog = event.currentTarget;
  if (event.key === "Escape") {
    event.preventDefault();
    const close = dialog.querySelector(".dialog-buttons button.primary") || dialog.querySelector(".dialog-buttons button");
    if (close) close.click();
    return;
  }
  if (event.key !== "Tab") return;
  const stops = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length);
  if (!stops.length) return;
  const first = stops[0];
  const last = stops[stops.length - 1];
  if (event.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (document.activeElement === last || !dialog.contains(document.activeElement))) {
    event.preventDefault();
    first.focus();
  }
}

/** The field an input method's composition is under way in, if any. */
let composing = null;
/** Draws `keepFocus` held back until that composition ends: each draw function once, with its roots. */
const heldForComposition = new Map();

if (typeof document !== "undefined") {
  document.addEventListener("compositionstart", (event) => {
    composing = event.target;
  }, true);
  document.addEventListener("compositionend", () => {
    composing = null;
    // After the composition's last input event, which some browsers send after this one.
    setTimeout(() => {
      if (composing) return;
      const held = [...heldForComposition];
      heldForComposition.clear();
      for (const [draw, roots] of held) {
        if (roots.some((r) => r.isConnected)) keepFocus(roots, draw); // not for a page left meanwhile
      }
    }, 0);
  }, true);
}

/** Run `draw`, which may replace what the elements `roots` hold, and give focus back to the new
 * copy of the element that had it, a text field with its caret and selection: a page drawn anew
 * for every message (the room's lobby) would otherwise drop focus, and what the person typed or
 * pressed next would go nowhere. While an input method composes in a field of `roots`, `draw`
 * waits for the composition to end (see the top of this file). */
export function keepFocus(roots, draw) {
  if (composing && composing.isConnected && roots.some((r) => r.contains(composing))) {
    heldForComposition.set(draw, roots);
    return undefined;
  }
  const active = document.activeElement;
  const root = roots.find((r) => r !== active && r.contains(active));
  if (!root) return draw();
  const key = describe(root, active);
  const caret = typeof active.selectionStart === "number"
    ? [active.selectionStart, active.selectionEnd, active.selectionDirection] : null;
  const drawn = draw();
  if (!active.isConnected) {
    const again = find(root, key);
    if (again && !again.disabled) {
      again.focus({ preventScroll: true });
      if (caret && typeof again.setSelectionRange === "function") {
        try {
          again.setSelectionRange(...caret);
        } catch {
          // a field without a caret (a number field): focus alone
        }
      }
    }
  }
  return drawn;
}

export class FocusKeeper {
  /** @param {HTMLElement} root the element the table draws into */
  constructor(root) {
    this.root = root;
    this.saved = null;
    this.card = null; // the card code holding the hand's tab stop between drawings
    this.beforeDialog = null; // where focus was when a dialog opened, to give it back
    this.dialogOpen = false;
  }

  /** Call before a redraw: note what has focus. */
  before() {
    this.saved = describe(this.root, document.activeElement);
  }

  /** Call after a redraw: roving tab stops, dialogs, and focus back where it was. */
  after() {
    const active = document.activeElement;
    // Lost: gone with the redraw, or kept by it (static/js/dom.js, `morph`) for something else.
    const lost = !active || active === document.body || !active.isConnected || !sameThing(describe(this.root, active, false), this.saved);
    for (const group of GROUPS) {
      const container = this.root.querySelector(group.container);
      if (!container) continue;
      const items = [...container.querySelectorAll(group.items)];
      const keep = group.container === HAND ? rovingItem(items, this.card, lost ? null : active) : items[0];
      for (const el of items) el.tabIndex = el === keep ? 0 : -1;
      if (!WIRED.has(container)) { // a container the redraw kept has its listener already
        WIRED.add(container);
        container.addEventListener("keydown", (event) => onGroupKey(event, group));
      }
    }
    const dialog = this.root.querySelector(".dialog-backdrop .dialog");
    if (dialog) {
      dialog.addEventListener("keydown", onDialogKey);
      if (!this.dialogOpen) {
        // Opening: remember where focus was (a card, the log button) and move it into the dialog.
        this.dialogOpen = true;
        this.beforeDialog = this.saved;
        const primary = dialog.querySelector(".dialog-buttons button.primary") || dialog.querySelector(FOCUSABLE);
        (primary || dialog).focus({ preventScroll: true });
        this.noteCard();
        return;
      }
    } else if (this.dialogOpen) {
      // Closed: focus goes back to where it was before the dialog, or to the hand.
      this.dialogOpen = false;
      const back = find(this.root, this.beforeDialog) || this.root.querySelector(`${HAND} .card[tabindex='0']`);
      this.beforeDialog = null;
      if (back) back.focus({ preventScroll: true });
      this.noteCard();
      return;
    }
    if (lost && this.saved) {
      // A control that went with the redraw (a play button after the play) hands focus to the hand.
      // So does one the redraw disabled (every button waits while an action is on its way).
      const found = find(this.root, this.saved);
      const again = found && !found.disabled ? found : this.root.querySelector(`${HAND} .card[tabindex='0']`);
      if (again) {
        if (again.closest(HAND)) for (const el of this.root.querySelectorAll(`${HAND} .card`)) el.tabIndex = el === again ? 0 : -1;
        again.focus({ preventScroll: true });
      }
    }
    this.noteCard();
  }

  noteCard() {
    const stop = this.root.querySelector(`${HAND} .card[tabindex='0']`);
    if (stop) this.card = stop.dataset.card;
  }
}
