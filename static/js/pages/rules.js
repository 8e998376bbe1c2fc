/** A game's rule page: static/rules/<id>.<lang>.html in the reader's language (else the other). */
import { h, replace } from "../dom.js";
import { gameById, me } from "../api.js";
import { lang, t } from "../i18n.js";
import { gameName, header, loading, main } from "./common.js";

export async function rulesPage(gameId) {
  loading();
  header(await me().catch(() => null));
  const game = await gameById(gameId).catch(() => null);
  const languages = lang() === "ja" ? ["ja", "en"] : ["en", "ja"];
  let html = null;
  for (const code of languages) {
    try {
      const response = await fetch(`/static/rules/${encodeURIComponent(gameId)}.${code}.html`);
      if (response.ok) {
        // A line break inside Japanese text would show as a stray space: join such lines.
        html = (await response.text()).replace(/([\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef])[ \t]*\n\s*(?=[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef])/g, "$1");
        break;
      }
    } catch { /* try the other language */ }
  }
  replace(main,
    h("h1", null, t("rules.title", { game: gameName(game) || gameId })),
    html ? h("article", { class: "rules", html }) : h("p", { class: "muted" }, t("rules.missing")));
}
