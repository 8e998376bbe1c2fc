/** Names people read: a room's name (its own or the default the server built, in the reader's
 * language), "‹room› — match 3", and the browser tab's title. */
import { pick, t } from "../i18n.js";
import { setPageName } from "../title.js";

/** The room's name in the reader's language from a `display_name` {en, ja} (or a fallback). */
export function roomName(displayName, fallback = "") {
  return displayName ? pick(displayName) : fallback;
}

/** "‹room name› — match 3" / "‹room name› — 第3戦". */
export function matchTitle(displayName, number, fallback = "") {
  return t("match.numbered", { room: roomName(displayName, fallback), n: number });
}

/** The tab title: the page's own name first, then the product's (a turn mark may precede it). */
export function setTabTitle(text) {
  setPageName(text);
}
