/** The landing page: a name (or sign-in) first, then create a room, join by invite, profile. */
import { h, replace } from "../dom.js";
import { games, me } from "../api.js";
import { t } from "../i18n.js";
import { loadPlugin } from "../table.js";
import { errorBox, header, joinForm, loading, loginForm, main, nameForm } from "./common.js";
import { createRoomPanel } from "./create-room.js";
import { profilePanel } from "./profile.js";

export async function landingPage() {
  loading();
  const person = await me();
  header(person);
  if (!person) {
    replace(main,
      h("section", { class: "hero" }, h("h1", null, t("app.title")), h("p", null, t("app.tagline"))),
      nameForm(() => landingPage()),
      joinForm(),
      loginForm(() => landingPage()));
    return;
  }
  let catalog = [];
  let plugins = {};
  try {
    catalog = await games();
    // Plugins carry the option labels, hints and pickers: have them all before the form draws.
    plugins = Object.fromEntries(await Promise.all(catalog.map(async (game) => [game.id, await loadPlugin(game.id)])));
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  replace(main,
    h("section", { class: "hero" }, h("h1", null, t("landing.welcome", { name: person.name }))),
    createRoomPanel(catalog, plugins, person),
    joinForm(),
    profilePanel(person));
  if (location.hash === "#profile") document.getElementById("profile")?.scrollIntoView();
}
