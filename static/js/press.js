/**
 * Redraws wait for a press to end.
 *
 * The table and the room's lobby draw themselves anew when the server sends something (another
 * player's card, a seat taken, a timer). A click is a press and a release on the same element:
 * when a redraw replaces the element between the two, the browser makes no click at all, and the
 * person's card or button press is lost without a word. So while a press is under way (a mouse
 * button, a finger or a pen down, or Space held on a button), `afterPress(draw)` keeps `draw` and
 * runs it once the press has ended and its click has been handled; otherwise it runs at once.
 *
 * A press that never ends as expected (released outside the window, a finger that starts a
 * scroll) must not freeze the page: a cancelled pointer, a lost focus or `HOLD_LIMIT_MS` end it.
 */

/** The longest a press holds redraws back, in ms (a long press is no quick tap any more). */
const HOLD_LIMIT_MS = 3000;
/** After a finger is lifted, how long to wait for the tap's click (it comes as a later event). */
const TAP_CLICK_MS = 350;

let pressing = false;
let limit = null;
let fallback = null;
/** Draw functions waiting for the press to end, each once, in the order first asked. */
const waiting = new Set();

function begin() {
  pressing = true;
  clearTimeout(fallback);
  clearTimeout(limit);
  limit = setTimeout(end, HOLD_LIMIT_MS);
}

/** The press is over: draw what waited (each function once, with the state as it is now). */
function end() {
  pressing = false;
  clearTimeout(limit);
  clearTimeout(fallback);
  const draws = [...waiting];
  waiting.clear();
  for (const draw of draws) draw();
}

/** The release happened; the click it makes may still be on its way: end a little later. */
function endSoon(delay) {
  clearTimeout(fallback);
  fallback = setTimeout(end, delay);
}

if (typeof window !== "undefined") {
  const capture = { capture: true, passive: true };
  window.addEventListener("pointerdown", begin, capture);
  window.addEventListener("pointerup", (event) => endSoon(event.pointerType === "touch" ? TAP_CLICK_MS : 0), capture);
  window.addEventListener("pointercancel", end, capture);
  // The window itself losing focus (an element's blur reaches here too, as focus moves on a press).
  window.addEventListener("blur", (event) => {
    if (event.target === window) end();
  }, capture);
  window.addEventListener("keydown", (event) => {
    if (event.key === " " && !event.repeat) begin();
  }, capture);
  window.addEventListener("keyup", (event) => {
    if (event.key === " ") endSoon(0);
  }, capture);
  // The click is being delivered: draws made by its own handler happen at once (it expects to
  // see them), and what waited is drawn right after it.
  window.addEventListener("click", () => {
    if (!pressing) return;
    pressing = false;
    endSoon(0);
  }, capture);
}

/** Run `draw` now, or, while a press is under way, once it has ended (see above). */
export function afterPress(draw) {
  if (pressing) waiting.add(draw);
  else draw();
}
