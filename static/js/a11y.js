/**
 * Page-wide accessibility helpers that no single page owns:
 *
 * - Scroll regions a keyboard can reach: a box that scrolls (a wide score table, a long result)
 *   is given tabindex=0 while its content overflows, so arrow keys can scroll it; one that does
 *   not overflow is left out of the tab order.
 * - The skip link, first in the tab order: "To your hand" while a table with a hand is shown
 *   (it focuses the hand's current card), else "To the content".
 */
import { h } from "./dom.js";
import { t } from "./i18n.js";

const SCROLLERS = ".table-scroll, .dialog-body, .table-side, .chat-lines";

function overflows(el) {
  return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
}

/** Give every overflowing scroll box a tab stop, now and after each change of the page. Every box
 * is measured before any is changed: a change between two measurements would make the browser
 * lay the page out again for the second. */
function markScrollRegions() {
  const boxes = [...document.querySelectorAll(SCROLLERS)].map((el) => [el, overflows(el)]);
  for (const [el, overflowing] of boxes) {
    if (overflowing) {
      if (!el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.dataset.scrollStop = "1";
      }
    } else if (el.dataset.scrollStop) {
      el.removeAttribute("tabindex");
      delete el.dataset.scrollStop;
    }
  }
}

/** The hand's card that should take focus: the one holding the roving tab stop, else a legal one. */
export function handFocusTarget() {
  const hand = document.querySelector("[data-testid=hand]");
  if (!hand) return null;
  return hand.querySelector(".card[tabindex='0']") || hand.querySelector(".card.is-legal") || hand.querySelector(".card");
}

function drawSkipLink(link) {
  const toHand = Boolean(document.querySelector("[data-testid=hand] .card"));
  const text = t(toHand ? "a11y.skip.hand" : "a11y.skip.content");
  if (link.textContent !== text) link.textContent = text;
  link.dataset.target = toHand ? "hand" : "main";
}

/** Start the page-wide helpers (once, from app.js). */
export function startAccessibility() {
  const link = h("a", { class: "skip-link", href: "#main", "data-testid": "skip-link", onclick: (event) => {
    event.preventDefault();
    const target = link.dataset.target === "hand" ? handFocusTarget() : document.getElementById("main");
    if (!target) return;
    if (target.id === "main") target.setAttribute("tabindex", "-1");
    target.focus();
  } });
  document.body.prepend(link);
  let frame = null;
  const update = () => {
    frame = null;
    markScrollRegions();
    drawSkipLink(link);
  };
  const schedule = () => {
    if (frame === null) frame = requestAnimationFrame(update);
  };
  // No resize listener of its own: a new width redraws the table, which this observer sees.
  new MutationObserver(schedule).observe(document.body, { childList: true, subtree: true, characterData: true });
  update();
}
