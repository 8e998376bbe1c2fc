/** The profile panel: rename, set a password (to sign in elsewhere), sign out. */
import { h } from "../dom.js";
import { me, patch, post } from "../api.js";
import { t } from "../i18n.js";
import { field, form, header } from "./common.js";

export function profilePanel(person) {
  return h("section", { class: "card-panel", id: "profile" },
    h("h2", null, t("profile.title")),
    person.account ? h("p", null, t("profile.account", { account: "" }), h("strong", { "data-testid": "account" }, person.account)) : null,
    form({ class: "inline-form" }, [
      field(t("landing.name.label"), h("input", { name: "name", value: person.name, required: true, maxlength: 40 })),
      h("button", { type: "submit" }, t("profile.rename")),
    ], async (data) => {
      await patch("/api/me", { name: String(data.get("name")).trim() });
      header(await me());
      return t("profile.saved");
    }),
    h("p", { class: "help" }, t(person.has_password ? "profile.password.has" : "profile.password.none")),
    form({ class: "inline-form", "data-testid": "password-form" }, [
      // Lets password managers store the account id with the new password.
      h("input", { type: "text", name: "username", autocomplete: "username", value: person.account || "", hidden: true, readonly: true }),
      field(t("profile.password.label"), h("input", { name: "password", type: "password", minlength: 8, required: true, autocomplete: "new-password" })),
      h("button", { type: "submit" }, t(person.has_password ? "profile.password.change" : "profile.password.set")),
    ], async (data) => {
      const password = String(data.get("password"));
      if (password.length < 8) return t("profile.password.short");
      await post("/api/me/password", { password });
      return t("profile.password.saved");
    }),
    h("button", { type: "button", class: "link-button", onclick: async () => {
      await post("/api/logout");
      location.assign("/");
    } }, t("profile.logout")));
}
