/**
 * The turn finds you: when the page is hidden (another tab, another app, a locked phone) and it
 * becomes your turn, a friend writes in the chat, or the match starts, the page tells you with a
 * system notification (the Notification API), a short sound and, on phones, a vibration. Nothing
 * happens while the page is visible: you are looking at the table.
 *
 * The notification's permission is asked only when the person turns it on with the table's
 * "Tell me when it's my turn" control, which says why; never on page load. Each of the three can
 * be turned off in the same dialog; the choices are kept in localStorage (`cardtable.alerts`).
 */
import { h } from "./dom.js";
import { addStrings, t } from "./i18n.js";
import { beep } from "./sounds.js";

addStrings({
  en: {
    "alerts.button": "Tell me when it's my turn",
    "alerts.button.on": "Alerts on",
    "alerts.title": "Tell me when it's my turn",
    "alerts.why": "While this page is in the background (another tab or app), the table can tell you when it is your turn, when the match starts, or when a friend writes to you. Nothing comes while you are looking at the table.",
    "alerts.notify": "A notification from the browser",
    "alerts.sound": "A short sound",
    "alerts.vibrate": "A vibration (phones)",
    "alerts.denied": "The browser blocks notifications for this site: allow them in the browser's site settings.",
    "alerts.unsupported": "This browser cannot show notifications.",
    "alerts.turn": "Your turn",
    "alerts.turn.body": "{room}: it's your turn.",
    "alerts.start": "The match starts",
    "alerts.start.body": "{room}: the match has started.",
    "alerts.chat": "{name} wrote",
  },
  ja: {
    "alerts.button": "自分の番を知らせる",
    "alerts.button.on": "通知オン",
    "alerts.title": "自分の番を知らせる",
    "alerts.why": "このページが裏にあるとき（別のタブやアプリを見ているとき）、自分の番になったとき・対戦が始まったとき・友だちがチャットに書いたときにお知らせします。テーブルを見ている間は何も来ません。",
    "alerts.notify": "ブラウザの通知",
    "alerts.sound": "短い音",
    "alerts.vibrate": "振動（スマートフォン）",
    "alerts.denied": "このサイトの通知はブラウザでブロックされています。ブラウザのサイト設定で許可してください。",
    "alerts.unsupported": "このブラウザは通知を表示できません。",
    "alerts.turn": "あなたの番です",
    "alerts.turn.body": "{room}: あなたの番です。",
    "alerts.start": "対戦開始",
    "alerts.start.body": "{room}: 対戦が始まりました。",
    "alerts.chat": "{name}さんのメッセージ",
  },
});

const STORAGE_KEY = "cardtable.alerts";
const DEFAULTS = { notify: false, sound: true, vibrate: true };
const VIBRATION_MS = [180, 90, 180];
/** A bell drawn in the text's colour (the fonts here have no bell character). */
const BELL_SVG = '<svg viewBox="0 0 16 16" width="12" height="12" fill="currentColor"><path d="M8 1.5a1 1 0 0 1 1 1v.6A4.5 4.5 0 0 1 12.5 7.5V11l1.5 1.5v.5H2v-.5L3.5 11V7.5A4.5 4.5 0 0 1 7 3.1v-.6a1 1 0 0 1 1-1ZM6.3 14h3.4a1.7 1.7 0 0 1-3.4 0Z"/></svg>';

/** The person's choices: `notify` (off until they turn it on), `sound`, `vibrate`. */
export function alertSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

function saveSettings(settings) {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch { /* private mode: for this page only */ }
}

function notificationsSupported() {
  return typeof window.Notification === "function";
}

/** The notification permission as the Permissions API reports it (read without asking anyone,
 * and kept up to date): some browsers' `Notification.permission` stays "denied" after a grant. */
let permission = notificationsSupported() ? Notification.permission : "denied";
if (notificationsSupported() && navigator.permissions && navigator.permissions.query) {
  navigator.permissions.query({ name: "notifications" }).then((status) => {
    const read = () => (permission = status.state === "prompt" ? "default" : status.state);
    read();
    status.addEventListener("change", read);
  }, () => { /* not queryable here: Notification.permission stands */ });
}

/** Whether the person is looking at the page (then no alert is needed). */
function pageSeen() {
  return document.visibilityState === "visible";
}

/**
 * Tell the person, if the page is hidden: `kind` is "turn", "start" or "chat" (the notification
 * of the same kind replaces the last one). Returns whether anything was done.
 */
export function alertPerson(kind, title, body) {
  if (pageSeen()) return false;
  const settings = alertSettings();
  if (settings.notify && notificationsSupported() && permission === "granted") {
    try {
      const note = new Notification(title, { body, tag: `cardtable-${kind}`, lang: document.documentElement.lang || undefined });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    } catch { /* a browser that only notifies from a service worker: sound and vibration still tell */ }
  }
  if (settings.sound) beep();
  if (settings.vibrate && typeof navigator.vibrate === "function") navigator.vibrate(VIBRATION_MS);
  return true;
}

/** Asks for notification permission (when the person turns it on) and reports the outcome. */
async function askPermission() {
  if (!notificationsSupported()) return "unsupported";
  if (permission === "granted") return permission;
  try {
    // Without a prompt when the person has already said no: the answer comes back at once.
    permission = await Notification.requestPermission();
  } catch { /* an old browser's callback form: keep what we knew */ }
  return permission;
}

/** The table's control: a button that opens the alerts' settings (`onChange`: a choice changed). */
export function alertsButton(onChange) {
  const on = alertSettings().notify && notificationsSupported() && permission === "granted";
  return h("button", {
    type: "button", class: ["small", "sound-toggle", "alerts-toggle", on && "on"], "data-testid": "alerts-toggle",
    "aria-haspopup": "dialog", "aria-label": t(on ? "alerts.button.on" : "alerts.button"), title: t("alerts.title"),
    onclick: () => openAlertsDialog(onChange),
  }, h("span", { class: "bell", "aria-hidden": "true", html: BELL_SVG }), h("span", { class: "sound-word" }, ` ${t(on ? "alerts.button.on" : "alerts.button")}`));
}

/** The settings: one switch each for the notification, the sound and the vibration. */
export function openAlertsDialog(onChange = () => {}) {
  const settings = alertSettings();
  let askedHere = permission === "denied";
  const status = h("p", { class: "form-status", role: "status", "data-testid": "alerts-status" });
  const showPermission = () => {
    if (!notificationsSupported()) status.textContent = t("alerts.unsupported");
    else if (permission === "denied" && alertSettings().notify === false && askedHere) status.textContent = t("alerts.denied");
    else status.textContent = "";
  };
  const box = (key, label) => h("label", { class: "check" },
    h("input", { type: "checkbox", checked: Boolean(settings[key]), "data-testid": `alerts-${key}`,
      onchange: async (event) => {
        const input = event.target;
        settings[key] = input.checked;
        if (key === "notify" && input.checked) {
          const answer = await askPermission();
          askedHere = true;
          if (answer !== "granted") {
            settings.notify = false;
            input.checked = false;
          }
          showPermission();
        }
        saveSettings(settings);
        onChange();
      } }),
    " ", label);
  const close = h("button", { type: "button", class: "primary", "data-testid": "alerts-close", onclick: () => dialog.close() }, t("common.close"));
  const dialog = h("dialog", { class: "confirm-dialog", "data-testid": "alerts-dialog", "aria-labelledby": "alerts-title" },
    h("h2", { id: "alerts-title" }, t("alerts.title")),
    h("p", { class: "help" }, t("alerts.why")),
    h("div", { class: "alerts-choices" }, box("notify", t("alerts.notify")), box("sound", t("alerts.sound")), box("vibrate", t("alerts.vibrate"))),
    status,
    h("div", { class: "dialog-buttons" }, close));
  const before = document.activeElement;
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (before && before.isConnected && typeof before.focus === "function") before.focus();
  });
  document.body.append(dialog);
  showPermission();
  dialog.showModal();
  dialog.querySelector("input").focus();
  return dialog;
}
