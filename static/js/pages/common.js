/**
 * Pieces every page shares: the #main element, error lines, forms and fields, the top bar, the
 * name and sign-in forms, and the hook the language switch uses to redraw the current page.
 */
import { h, replace } from "../dom.js";
import { ApiError, post } from "../api.js";
import { lang, pick, setLang, t } from "../i18n.js";

export const main = document.getElementById("main");

/** Redraws the page shown now (the language switch calls it); each page sets its own. */
export const redraw = { current: () => {} };

// ---- shared bits ------------------------------------------------------------------------------
export function errorText(error) {
  if (error instanceof ApiError) return error.messages ? pick(error.messages) : t("common.error", { message: error.detail });
  return t("common.error", { message: error && error.message ? error.message : String(error) });
}

/** A seat's display name; bots share one name on the server, so their seat number tells them apart. */
export function seatLabel(seat, n) {
  if (!seat || !seat.kind) return t("common.seat", { n: n + 1 });
  if (seat.kind === "bot") return `${t("common.bot")} ${n + 1}`;
  return seat.name || t("common.seat", { n: n + 1 });
}

/** A person's name as a link to their record page (people/{id}); a bot's or a gone person's as text. */
export function personLink(personId, text) {
  if (personId === null || personId === undefined) return text;
  return h("a", { class: "tap person-link", href: `/people/${encodeURIComponent(personId)}` }, text);
}

export function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, errorText(error));
}

/** A form whose submit handler may throw: the error is shown inside the form. */
export function form(attrs, children, onSubmit) {
  const status = h("p", { class: "form-status", "aria-live": "polite" });
  const el = h("form", {
    ...attrs,
    onsubmit: async (event) => {
      event.preventDefault();
      status.textContent = "";
      status.className = "form-status";
      const button = el.querySelector("button[type=submit]");
      if (button) button.disabled = true;
      try {
        const message = await onSubmit(new FormData(el), el);
        if (message) status.textContent = message;
      } catch (error) {
        status.className = "form-status error";
        status.textContent = errorText(error);
      } finally {
        if (button) button.disabled = false;
      }
    },
  }, children, status);
  return el;
}

export function field(label, input, help) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), input, help ? h("span", { class: "help" }, help) : null);
}

export function header(person) {
  const bar = document.getElementById("topbar");
  replace(bar,
    h("a", { class: "brand", href: "/" }, t("app.title")),
    h("nav", null,
      h("a", { href: "/history" }, t("nav.history")),
      person ? h("a", { class: "who", href: "/#profile", title: t("profile.title") }, person.name) : null,
      h("button", { type: "button", class: "lang-switch", "data-testid": "lang-switch", onclick: () => setLang(lang() === "ja" ? "en" : "ja") },
        t("lang.switch"))));
}

export function loading() {
  replace(main, h("p", { class: "muted" }, t("common.loading")));
}

export function gameName(game) {
  return game ? pick(game.names) : "";
}

/**
 * The name a room gets when its host leaves it empty, as the server makes it (app/store/room_names.py):
 * a game whose name is an exclamation ("Get the Holy Grail!") is quoted after the word "table"
 * instead of standing inside the phrase.
 */
export function defaultRoomName(host, game) {
  return t(/[!！?？]$/.test(game) ? "room.name.default.exclaim" : "room.name.default", { host, game });
}

export function nameForm(onDone, title) {
  return h("section", { class: "card-panel", id: "name" },
    h("h2", null, title || t("landing.name.title")),
    h("p", { class: "help" }, t("landing.name.help")),
    form({ class: "inline-form", "data-testid": "name-form" }, [
      field(t("landing.name.label"), h("input", { name: "name", required: true, maxlength: 40, autocomplete: "nickname" })),
      h("button", { type: "submit", class: "primary" }, t("landing.name.submit")),
    ], async (data) => {
      const name = String(data.get("name") || "").trim();
      if (!name) return "";
      await post("/api/people", { name });
      await onDone();
      return "";
    }));
}

export function loginForm(onDone) {
  return h("section", { class: "card-panel" },
    h("h2", null, t("landing.login.title")),
    h("p", { class: "help" }, t("landing.login.help")),
    form({ class: "stack-form", "data-testid": "login-form" }, [
      field(t("landing.login.account"), h("input", { name: "account", required: true, autocomplete: "username" })),
      field(t("landing.login.password"), h("input", { name: "password", type: "password", required: true, autocomplete: "current-password" })),
      h("button", { type: "submit" }, t("landing.login.submit")),
    ], async (data) => {
      await post("/api/login", { account: String(data.get("account")).trim(), password: String(data.get("password")) });
      await onDone();
      return "";
    }));
}

/** Turn a pasted invite link (or bare code) into a room path. */
export function roomPathFromInvite(text) {
  const value = String(text || "").trim();
  if (!value) return null;
  const match = value.match(/\/r\/([A-Za-z0-9_-]+)/);
  if (match) return `/r/${match[1]}`;
  if (/^[A-Za-z0-9_-]{4,}$/.test(value)) return `/r/${value}`;
  return null;
}

export function joinForm() {
  return h("section", { class: "card-panel" },
    h("h2", null, t("landing.join.title")),
    form({ class: "inline-form", "data-testid": "join-form" }, [
      field(t("landing.join.label"), h("input", { name: "invite", required: true, placeholder: `${location.origin}/r/…` })),
      h("button", { type: "submit" }, t("landing.join.submit")),
    ], async (data) => {
      const path = roomPathFromInvite(data.get("invite"));
      if (!path) return t("landing.join.bad");
      location.assign(path);
      return "";
    }));
}

