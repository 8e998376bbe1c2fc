/**
 * The room chat panel: the lines of a room (or, read-only, of a finished match), quick reactions
 * as one-tap buttons, and a line to type in.
 *
 * Every line is drawn as text (textContent), never as HTML: what a person types reaches other
 * screens exactly as typed and nothing in it runs.
 *
 * The panel is one long-lived element (`el`). On the table it is the table's dock
 * (table.js `setDock`): never detached by the table's redraws, so typing survives every state.
 * Laptops show it in the side column under the game panel, in the height the panel leaves (a
 * tall decision panel keeps its room: the chat then shrinks to its title, or out of sight,
 * until the panel is short again); phones fold it (the toggle button
 * sits in the table's status line and counts unread lines) and, when opened, it takes the felt's
 * place, never the hand's or the controls'. Lines arrive from the room socket (`receive`); the
 * history is read over HTTP on every (re)connect (`reload`) and page by page (`earlier`).
 */
import { h, replace, svg } from "./dom.js";
import { addStrings, lang, t } from "./i18n.js";
import { announce } from "./announce.js";

addStrings({
  en: {
    "chat.title": "Chat",
    "chat.open": "Open the chat",
    "chat.close": "Close the chat",
    "chat.placeholder": "Say something…",
    "chat.send": "Send",
    "chat.earlier": "Earlier",
    "chat.empty": "No messages yet.",
    "chat.empty.match": "Nobody wrote during this match.",
    "chat.offline": "Not connected; the message was not sent.",
    "chat.unread": "{n} unread",
    "chat.quick": "Quick reactions",
    "chat.quick.nice": "Nice!",
    "chat.quick.sorry": "Sorry",
    "chat.quick.well_played": "Well played",
    "chat.quick.thinking": "Thinking…",
  },
  ja: {
    "chat.title": "チャット",
    "chat.open": "チャットを開く",
    "chat.close": "チャットを閉じる",
    "chat.placeholder": "メッセージを入力…",
    "chat.send": "送信",
    "chat.earlier": "前を読む",
    "chat.empty": "まだメッセージはありません。",
    "chat.empty.match": "この対戦中の書き込みはありません。",
    "chat.offline": "接続していないため送信できませんでした。",
    "chat.unread": "未読{n}件",
    "chat.quick": "クイック返信",
    "chat.quick.nice": "ナイス!",
    "chat.quick.sorry": "ごめん",
    "chat.quick.well_played": "お見事",
    "chat.quick.thinking": "考え中…",
  },
});

export const QUICK_REACTIONS = ["chat.quick.nice", "chat.quick.sorry", "chat.quick.well_played", "chat.quick.thinking"];
const KEEP = 500; // lines held in memory; older ones are read again with "Earlier"
const PHONE = window.matchMedia("(max-width: 899px)");
const TOAST_MS = 4000; // how long a new line shows over the table while the panel is folded

export class ChatPanel {
  /**
   * @param {{
   *   load: (before?: number) => Promise<{messages: any[], has_more: boolean}>,
   *   send?: (text: string) => boolean,   // absent: read-only (a finished match's chat)
   *   me?: number | null,                 // the reader's person id (their own lines are marked)
   *   emptyKey?: string,
   * }} options
   */
  constructor(options) {
    this.load = options.load;
    this.sendLine = options.send || null;
    this.me = options.me ?? null;
    this.emptyKey = options.emptyKey || "chat.empty";
    this.lines = new Map(); // id -> message
    this.hasMore = false;
    this.open = false;
    this.unread = 0;
    this.lastSent = "";
    // Not a live region of its own: new lines are said through the page's one (announce.js).
    this.list = h("ol", { class: "chat-lines", "data-testid": "chat-lines" });
    // Phones, panel folded: a new line shows for a few seconds over the felt (hidden from screen
    // readers, which hear it from the live region) without opening the panel.
    this.toastEl = h("div", { class: "chat-toast", "data-testid": "chat-toast", "aria-hidden": "true", hidden: true });
    this.errorEl = h("p", { class: "chat-error", role: "alert", "data-testid": "chat-error" });
    this.earlierButton = h("button", { type: "button", class: "small chat-earlier", "data-testid": "chat-earlier",
      onclick: () => this.earlier() });
    this.titleEl = h("h2", { class: "chat-title" });
    this.input = null;
    this.form = null;
    this.quick = null;
    if (this.sendLine) {
      this.input = h("input", { type: "text", maxlength: "500", autocomplete: "off", "data-testid": "chat-input" });
      this.sendButton = h("button", { type: "submit", class: "chat-send", "data-testid": "chat-send" });
      this.form = h("form", { class: "chat-form", onsubmit: (event) => {
        event.preventDefault();
        this.submit(this.input.value);
      } }, this.input, this.sendButton);
      this.quick = h("div", { class: "chat-quick", role: "group" });
    }
    // The dock is the box the layout sizes; the panel inside it shows only what fits (style.css).
    this.el = h("section", { class: "chat-dock", "data-testid": "chat" }, h("div", { class: "chat-box" },
      h("div", { class: "chat-head" }, this.titleEl, this.earlierButton),
      this.list, this.errorEl, this.quick, this.form));
    this.toggle = h("button", { type: "button", class: "small chat-toggle", "data-testid": "chat-toggle",
      "aria-expanded": "false", onclick: () => this.setOpen(!this.open) });
    this.drawLabels();
    this.drawLines();
  }

  /** The table's dock: the panel, and the status line's toggle button (phones). */
  dock() {
    return { el: this.el, button: () => this.toggle };
  }

  /** Texts that follow the language (the page redraws on a language switch and calls this). */
  drawLabels() {
    this.titleEl.textContent = t("chat.title");
    this.earlierButton.textContent = t("chat.earlier");
    this.earlierButton.hidden = !this.hasMore;
    if (this.input) {
      this.input.placeholder = t("chat.placeholder");
      this.input.setAttribute("aria-label", t("chat.placeholder"));
      this.sendButton.textContent = t("chat.send");
      this.quick.setAttribute("aria-label", t("chat.quick"));
      replace(this.quick, QUICK_REACTIONS.map((key) => h("button", {
        type: "button", class: "small chat-reaction", "data-testid": "chat-reaction", "data-key": key,
        onclick: () => this.submit(t(key)),
      }, t(key))));
    }
    this.drawToggle();
  }

  drawToggle() {
    // A speech bubble (phones show only it, so the status line keeps its one row) and the word.
    const bubble = svg("svg", { class: "chat-icon", viewBox: "0 0 16 16", width: "14", height: "14", "aria-hidden": "true" },
      svg("path", { d: "M2 2.5h12a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H7l-3.5 3v-3H2a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1z", fill: "currentColor" }));
    const word = h("span", { class: "chat-toggle-word" });
    word.textContent = t("chat.title");
    this.toggle.replaceChildren(bubble, word);
    this.toggle.setAttribute("aria-label", this.unread > 0 ? `${t("chat.title")} (${t("chat.unread", { n: this.unread })})` : t("chat.title"));
    if (this.unread > 0) {
      const badge = h("span", { class: "chat-unread", "data-testid": "chat-unread", title: t("chat.unread", { n: this.unread }) });
      badge.textContent = String(this.unread);
      this.toggle.append(badge);
    }
    this.toggle.title = t(this.open ? "chat.close" : "chat.open");
    this.toggle.setAttribute("aria-expanded", this.open ? "true" : "false");
    this.toggle.classList.toggle("on", this.open);
  }

  setOpen(open) {
    this.open = open;
    this.el.classList.toggle("open", open);
    if (open) this.unread = 0;
    this.drawToggle();
    if (open) {
      this.scrollToEnd();
      if (this.input && !PHONE.matches) this.input.focus({ preventScroll: true });
    }
  }

  /** Whether a new line is seen at once (laptops, an open panel, or the lobby's full panel). */
  visible() {
    return this.open || !PHONE.matches || !this.el.closest(".table");
  }

  submit(raw) {
    const text = String(raw || "").trim();
    if (!text || !this.sendLine) return;
    if (!this.sendLine(text)) {
      this.showError(t("chat.offline"));
      return;
    }
    this.lastSent = text;
    this.showError(null);
    if (this.input && this.input.value.trim() === text) this.input.value = "";
  }

  /** A refused line (`bad_chat`, `rate_limited`): say why, and give the text back to edit. */
  refused(message) {
    const text = lang() === "ja" && message.messages && message.messages.ja ? message.messages.ja : message.message;
    this.showError(text);
    if (this.input && !this.input.value && this.lastSent) this.input.value = this.lastSent;
  }

  showError(text) {
    this.errorEl.textContent = text || "";
  }

  /** A line from the room socket. */
  receive(message) {
    if (!message || this.lines.has(message.id)) return;
    const atEnd = this.atEnd();
    this.lines.set(message.id, message);
    if (message.person_id === this.me) this.lastSent = "";
    else {
      if (!this.visible()) {
        this.unread += 1;
        this.toast(message);
      }
      if (this.sendLine) announce(t("announce.chat", { name: message.name ?? "?", text: message.text }));
    }
    this.trim();
    this.drawLines();
    this.drawToggle();
    if (atEnd || message.person_id === this.me) this.scrollToEnd();
  }

  /** Show `message` for a few seconds as a bubble over the table (phones, panel folded). */
  toast(message) {
    if (!this.el.closest(".table")) return;
    if (!this.toastEl.isConnected) document.body.append(this.toastEl);
    const name = h("span", { class: "chat-name" });
    name.textContent = message.name ?? "?";
    const body = h("span", { class: "chat-text" });
    body.textContent = message.text;
    replace(this.toastEl, name, " ", body);
    this.toastEl.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => {
      this.toastEl.hidden = true;
    }, TOAST_MS);
  }

  /** The newest page again (after a (re)connect: lines sent while away are read back). */
  async reload() {
    try {
      const page = await this.load();
      if (!this.lines.size) this.hasMore = page.has_more;
      for (const message of page.messages) this.lines.set(message.id, message);
      this.trim();
      this.drawLines();
      this.drawLabels();
      this.scrollToEnd();
    } catch (error) {
      console.warn("chat history failed", error);
    }
  }

  async earlier() {
    const first = Math.min(...this.lines.keys());
    try {
      const page = await this.load(Number.isFinite(first) ? first : undefined);
      const height = this.list.scrollHeight;
      for (const message of page.messages) this.lines.set(message.id, message);
      this.hasMore = page.has_more;
      this.drawLines();
      this.drawLabels();
      this.list.scrollTop += this.list.scrollHeight - height; // keep the line being read in place
    } catch (error) {
      this.showError(error.message);
    }
  }

  trim() {
    const ids = [...this.lines.keys()].sort((a, b) => a - b);
    for (const id of ids.slice(0, Math.max(0, ids.length - KEEP))) this.lines.delete(id);
    if (ids.length > KEEP) this.hasMore = true;
  }

  drawLines() {
    const ids = [...this.lines.keys()].sort((a, b) => a - b);
    if (!ids.length) {
      const empty = h("li", { class: "chat-empty muted" });
      empty.textContent = t(this.emptyKey);
      replace(this.list, empty);
      return;
    }
    replace(this.list, ids.map((id) => this.line(this.lines.get(id))));
  }

  line(message) {
    const name = h("span", { class: "chat-name" });
    name.textContent = message.name ?? "?";
    const body = h("span", { class: "chat-text", "data-testid": "chat-text" });
    body.textContent = message.text;
    const time = h("time", { class: "chat-time", datetime: message.at });
    time.textContent = formatTime(message.at);
    return h("li", { class: ["chat-line", message.person_id === this.me && "mine"], dataset: { id: String(message.id) } },
      time, " ", name, " ", body);
  }

  atEnd() {
    return this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 8;
  }

  scrollToEnd() {
    this.list.scrollTop = this.list.scrollHeight;
  }
}

function formatTime(at) {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleTimeString(lang() === "ja" ? "ja-JP" : "en-GB", { hour: "2-digit", minute: "2-digit" });
}
