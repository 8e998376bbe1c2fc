/** The browser tab's title, owned here so its two parts can change on their own: the page's name
 * (a room, a match) and, while the table awaits this person, a "● Your turn" mark in front. A
 * room update during the person's turn then renames the tab without losing the mark. */
import { t } from "./i18n.js";

let pageName = "";
let turnMark = "";

function render() {
  const base = pageName ? `${pageName} · ${t("app.title")}` : t("app.title");
  document.title = turnMark ? `● ${turnMark} — ${base}` : base;
}

/** The page's own name ("" for none: the product's name alone). */
export function setPageName(text) {
  pageName = text || "";
  render();
}

/** The turn mark ("Your turn", "Your turn: 8 s left"), or "" when the person is not awaited. */
export function setTurnMark(text) {
  turnMark = text || "";
  render();
}
