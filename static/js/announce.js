/**
 * One polite live region for the whole page: screen readers say what happens at the table
 * ("Ben played 7 of Magic Sword", who took the trick, "Your turn", a hand's result, chat lines)
 * without moving focus. Callers gather what one action changed into one call, so a person hears
 * one announcement per action.
 */
import { h } from "./dom.js";

let region = null;
let pending = null;
let queued = [];

function liveRegion() {
  if (!region || !region.isConnected) {
    region = h("div", { class: "visually-hidden", role: "status", "aria-live": "polite", "aria-atomic": "true", "data-testid": "announcer" });
    document.body.append(region);
  }
  return region;
}

/** Say `parts` (strings; empty ones dropped) as one announcement. */
export function announce(...parts) {
  const text = parts.flat().filter(Boolean).join(" ");
  if (!text) return;
  const el = liveRegion();
  // Emptied first and filled a moment later, so the same words twice are said twice; what
  // arrives in between (a chat line during a play) joins the same announcement.
  queued.push(text);
  if (pending !== null) return;
  el.textContent = "";
  pending = setTimeout(() => {
    el.textContent = queued.join(" ");
    queued = [];
    pending = null;
  }, 60);
}
