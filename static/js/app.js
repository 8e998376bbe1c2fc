/**
 * The client's entry point: a small router over `location.pathname` and the pages.
 *
 *   /                landing: name, create a room, open an invite link, sign in, profile
 *   /r/{code}        room and table (lobby, seats, options, start/rematch, live table)
 *   /history         your matches and the overall leaderboard (also /leaderboard)
 *   /matches/{id}    one match: hand-by-hand score table and final ranking
 *   /rules/{game}    a game's rule page (static/rules/<id>.<lang>.html)
 *
 * Pages are plain functions that draw into #main; links are ordinary links (full loads), which
 * keeps every page addressable and the WebSocket lifetime obvious.
 */
import { h, replace } from "./dom.js";
import { ApiError, del, gameById, games, get, me, patch, post } from "./api.js";
import { lang, onLangChange, pick, setLang, t } from "./i18n.js";
import { RoomSocket } from "./socket.js";
import { Table, formatScore, loadPlugin, rankSeats } from "./table.js";
import { cardEl } from "./cards.js";

const main = document.getElementById("main");
let rerender = () => {};

// ---- shared bits ------------------------------------------------------------------------------
function errorText(error) {
  if (error instanceof ApiError) return error.messages ? pick(error.messages) : t("common.error", { message: error.detail });
  return t("common.error", { message: error && error.message ? error.message : String(error) });
}

/** A seat's display name; bots share one name on the server, so their seat number tells them apart. */
function seatLabel(seat, n) {
  if (!seat || !seat.kind) return t("common.seat", { n: n + 1 });
  if (seat.kind === "bot") return `${t("common.bot")} ${n + 1}`;
  return seat.name || t("common.seat", { n: n + 1 });
}

function errorBox(error) {
  return h("p", { class: "error", role: "alert" }, errorText(error));
}

/** A form whose submit handler may throw: the error is shown inside the form. */
function form(attrs, children, onSubmit) {
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

function field(label, input, help) {
  return h("label", { class: "field" }, h("span", { class: "field-label" }, label), input, help ? h("span", { class: "help" }, help) : null);
}

function header(person) {
  const bar = document.getElementById("topbar");
  replace(bar,
    h("a", { class: "brand", href: "/" }, t("app.title")),
    h("nav", null,
      h("a", { href: "/history" }, t("nav.history")),
      person ? h("a", { class: "who", href: "/#profile", title: t("profile.title") }, person.name) : null,
      h("button", { type: "button", class: "lang-switch", "data-testid": "lang-switch", onclick: () => setLang(lang() === "ja" ? "en" : "ja") },
        t("lang.switch"))));
}

function loading() {
  replace(main, h("p", { class: "muted" }, t("common.loading")));
}

function gameName(game) {
  return game ? pick(game.names) : "";
}

function nameForm(onDone, title) {
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

function loginForm(onDone) {
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

function joinForm() {
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

// ---- options from a JSON schema ------------------------------------------------------------------
function optionLabel(gameId, name, schema) {
  for (const key of [`${gameId}.option.${name}`, `option.${name}`]) {
    const text = t(key);
    if (text !== key) return text;
  }
  return schema.title || name;
}

function resolveSchema(prop, root) {
  if (prop && prop.$ref) {
    const name = prop.$ref.split("/").pop();
    return { ...(root.$defs || root.definitions || {})[name], ...prop, $ref: undefined };
  }
  return prop || {};
}

/** The phrase for a game's default match length: `<game>.option.hands.default` when the plugin
 * defines it (fairy-500 plays to ±500), else a fixed count from the schema (yaya-fugou's 5),
 * else the generic one hand per player. */
function handsDefaultText(gameId, prop) {
  const key = `${gameId}.option.hands.default`;
  if (t(key) !== key) return t(key);
  if (Number.isInteger(prop.default)) return t("option.hands.default.count", { n: prop.default });
  return t("option.hands.default");
}

/** A game's option names in the order the game defines them. The catalog sends that order as
 * `options_order`, because the stored schema's `properties` come back sorted by name (JSONB
 * does not keep key order); names it does not list keep their schema order, after the rest. */
export function orderedOptionNames(game) {
  const props = (game.options_schema || {}).properties || {};
  const listed = (Array.isArray(game.options_order) ? game.options_order : []).filter((name) => name in props);
  return [...listed, ...Object.keys(props).filter((name) => !listed.includes(name))];
}

/** Inputs for every option of a game's options schema, filled from `values`; options named in
 * `skip` are drawn by the plugin, and `pluginBox` takes the place of the first of them. */
function optionInputs(game, values, disabled, skip = [], pluginBox = null) {
  const schema = game.options_schema || {};
  const props = schema.properties || {};
  const fields = [];
  for (const name of orderedOptionNames(game)) {
    const raw = props[name];
    if (skip.includes(name)) {
      if (pluginBox && !fields.includes(pluginBox)) fields.push(pluginBox);
      continue;
    }
    let prop = resolveSchema(raw, schema);
    let nullable = false;
    if (prop.anyOf) {
      const kinds = prop.anyOf.map((p) => resolveSchema(p, schema));
      nullable = kinds.some((k) => k.type === "null");
      prop = { ...prop, ...(kinds.find((k) => k.type !== "null") || {}) };
    }
    const value = values && name in values ? values[name] : prop.default;
    const label = optionLabel(game.id, name, prop);
    const common = { name, disabled, dataset: { option: name, kind: prop.type || (prop.enum ? "enum" : "string"), nullable: nullable ? "1" : "" } };
    const handsDefault = name === "hands" && nullable ? handsDefaultText(game.id, prop) : null;
    let input;
    if (prop.enum) {
      input = h("select", common, nullable ? h("option", { value: "" }, "—") : null,
        prop.enum.map((choice) => h("option", { value: String(choice), selected: choice === value }, optionLabel(game.id, `${name}.${choice}`, { title: String(choice) }))));
    } else if (prop.type === "boolean") {
      input = h("input", { ...common, type: "checkbox", checked: Boolean(value) });
    } else if (prop.type === "integer" || prop.type === "number") {
      input = h("input", {
        ...common, type: "number", step: prop.type === "integer" ? 1 : "any",
        min: prop.minimum ?? prop.exclusiveMinimum, max: prop.maximum ?? prop.exclusiveMaximum,
        value: value === null || value === undefined ? "" : String(value),
        placeholder: handsDefault ? t("option.hands.placeholder", { default: handsDefault }) : nullable ? "—" : null,
      });
    } else {
      input = h("input", { ...common, type: "text", value: value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value) });
    }
    const helpKey = `${game.id}.option.${name}.help`;
    const help = t(helpKey) !== helpKey ? t(helpKey) : handsDefault ? t("option.hands.help", { default: handsDefault }) : null;
    fields.push(field(label, input, help));
  }
  if (pluginBox && !fields.includes(pluginBox)) fields.push(pluginBox);
  return fields;
}

/** Read the option inputs back into a JSON object (empty nullable fields become null; an empty
 * list or object field is left out, or null when the option may be null, never ""). */
function readOptions(container) {
  const options = {};
  for (const input of container.querySelectorAll("[data-option]")) {
    const { option, kind, nullable } = input.dataset;
    if (kind === "boolean") options[option] = input.checked;
    else if (kind === "integer" || kind === "number") {
      if (input.value === "") {
        if (nullable) options[option] = null;
      } else options[option] = kind === "integer" ? parseInt(input.value, 10) : Number(input.value);
    } else if (kind === "enum") {
      options[option] = input.value === "" && nullable ? null : input.value;
      if (/^-?\d+$/.test(options[option] ?? "") && input.querySelector("option[value]")) {
        const numeric = Number(options[option]);
        if (!Number.isNaN(numeric) && String(numeric) === options[option]) options[option] = numeric;
      }
    } else if (kind === "array" || kind === "object") {
      const text = input.value.trim();
      if (text === "") {
        if (nullable) options[option] = null;
        continue;
      }
      try {
        options[option] = JSON.parse(text);
      } catch {
        options[option] = text;
      }
    } else options[option] = input.value;
  }
  return options;
}

/**
 * A game's options as one editable part of a form: the generic inputs built from the schema,
 * plus the plugin's own pickers when it defines `renderOptions(container, ctx)` (which returns
 * the names of the options it draws itself). `read()` gives the options to send; `onEdit` hears
 * every change, so a caller can keep an unsaved draft across redraws.
 */
function optionsEditor(game, plugin, values, { disabled, seats, seatName, onEdit }) {
  const box = h("div", { class: "options-box" });
  const pluginBox = h("div", { class: "plugin-options" });
  const start = values || {};
  const pluginValues = {};
  const listeners = new Set();
  let drawn = [];
  let inputsDrawn = false;
  const read = () => {
    // While the plugin draws (before the generic inputs exist) the starting values stand in.
    const options = inputsDrawn ? readOptions(box) : { ...start };
    for (const name of drawn) options[name] = name in pluginValues ? pluginValues[name] : start[name] ?? null;
    return options;
  };
  const changed = () => {
    const options = read();
    for (const listener of listeners) listener(options);
    if (onEdit) onEdit(options);
  };
  if (plugin && typeof plugin.renderOptions === "function") {
    const ctx = {
      game: game.id,
      seats,
      options: { ...start },
      schema: game.options_schema || {},
      disabled,
      seatName,
      setOption(name, value) {
        pluginValues[name] = value === undefined || value === "" ? null : value;
        changed();
      },
      currentOptions: read,
      onChange(listener) {
        listeners.add(listener);
      },
      h,
      t,
      lang: lang(),
    };
    try {
      const names = plugin.renderOptions(pluginBox, ctx);
      drawn = Array.isArray(names) ? names : [];
    } catch (error) {
      console.error("plugin options failed", error);
      drawn = [];
    }
  }
  replace(box, optionInputs(game, start, disabled, drawn, drawn.length ? pluginBox : null));
  inputsDrawn = true;
  for (const kind of ["input", "change"]) {
    box.addEventListener(kind, (event) => {
      if (!pluginBox.contains(event.target)) changed();
    });
  }
  return { el: box, read };
}

function defaultsFor(game, seats) {
  const byPlayers = game.default_options_by_players || game.defaults_by_players;
  if (byPlayers && byPlayers[String(seats)]) return byPlayers[String(seats)];
  return game.default_options || {};
}

// ---- landing ----------------------------------------------------------------------------------
async function landingPage() {
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
    createRoomPanel(catalog, plugins),
    joinForm(),
    profilePanel(person));
  if (location.hash === "#profile") document.getElementById("profile")?.scrollIntoView();
}

function createRoomPanel(catalog, plugins) {
  const gameSelect = h("select", { name: "game_id", "data-testid": "game-select" },
    catalog.map((game) => h("option", { value: game.id }, gameName(game))));
  const seatsSelect = h("select", { name: "seats", "data-testid": "seats-select" });
  const presetSelect = h("select", { name: "preset", "data-testid": "preset-select" });
  const presetField = field(t("landing.create.preset"), presetSelect);
  const optionsHolder = h("div");
  let editor = null;
  const currentGame = () => catalog.find((g) => g.id === gameSelect.value);
  const currentPreset = () => ((currentGame() || {}).presets || []).find((p) => p.key === presetSelect.value) || null;
  /** Options shown = the defaults for this seat count, with the chosen preset's choices on top. */
  const fillOptions = () => {
    const game = currentGame();
    const preset = currentPreset();
    editor = optionsEditor(game, plugins[game.id], { ...defaultsFor(game, Number(seatsSelect.value)), ...(preset ? preset.options : {}) }, {
      disabled: false,
      seats: Number(seatsSelect.value),
      seatName: () => "", // nobody sits yet
    });
    replace(optionsHolder, editor.el);
  };
  const rulesLink = h("a", { class: "small-link", target: "_blank", rel: "noopener" });
  const fill = (keepSeats) => {
    const game = catalog.find((g) => g.id === gameSelect.value);
    if (!game) return;
    const previous = Number(seatsSelect.value);
    replace(seatsSelect, Array.from({ length: game.max_players - game.min_players + 1 }, (_, i) => game.min_players + i)
      .map((n) => h("option", { value: String(n) }, t("common.players", { n }))));
    const wanted = keepSeats && previous >= game.min_players && previous <= game.max_players ? previous : Math.min(Math.max(4, game.min_players), game.max_players);
    seatsSelect.value = String(wanted);
    const presets = game.presets || [];
    replace(presetSelect, presets.map((preset) => h("option", { value: preset.key }, pick(preset.names))));
    presetField.hidden = presets.length < 2;
    fillOptions();
    rulesLink.href = game.rules_url || `/rules/${game.id}`;
    rulesLink.textContent = t("room.rules", { game: gameName(game) });
  };
  gameSelect.addEventListener("change", () => fill(false));
  seatsSelect.addEventListener("change", fillOptions);
  presetSelect.addEventListener("change", () => {
    const preset = currentPreset();
    if (preset && preset.seats) seatsSelect.value = String(preset.seats);
    fillOptions();
  });
  const preferred = catalog.find((g) => g.id === "holy-grail");
  if (preferred) gameSelect.value = preferred.id;
  fill(false);
  return h("section", { class: "card-panel" },
    h("h2", null, t("landing.create.title")),
    form({ class: "stack-form", "data-testid": "create-room" }, [
      field(t("landing.create.game"), gameSelect),
      rulesLink,
      presetField,
      field(t("landing.create.seats"), seatsSelect),
      h("fieldset", null, h("legend", null, t("landing.create.options")), optionsHolder),
      h("button", { type: "submit", class: "primary" }, t("landing.create.submit")),
    ], async () => {
      const room = await post("/api/rooms", { game_id: gameSelect.value, seats: Number(seatsSelect.value), options: editor ? editor.read() : {} });
      location.assign(`/r/${room.code}`);
      return "";
    }));
}

function profilePanel(person) {
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

// ---- room and table ---------------------------------------------------------------------------
function roomPage(code) {
  const page = {
    code,
    person: null,
    room: null,
    game: null,
    plugin: null,
    table: null,
    socket: null,
    leaderboard: null,
    connection: "connecting",
    notice: null,
    lobbyEl: h("div", { class: "lobby" }),
    tableEl: h("div", { class: "table", "data-testid": "table" }),
    noticeEl: h("div", { class: "page-notice" }),
    barEl: h("div", { class: "start-bar" }),
    hasState: false,
    lobbyOpen: null,
    optionsDraft: null,
    optionsStatus: null,
  };

  async function start() {
    loading();
    page.person = await me();
    header(page.person);
    if (!page.person) {
      replace(main, nameForm(start, t("landing.name.title")), loginForm(start));
      return;
    }
    try {
      page.room = await get(`/api/rooms/${encodeURIComponent(code)}`);
    } catch (error) {
      replace(main, h("p", { class: "error" }, error instanceof ApiError && error.status === 404 ? t("room.notfound") : errorText(error)));
      return;
    }
    page.game = await gameById(page.room.game_id);
    page.plugin = await loadPlugin(page.room.game_id);
    page.table = new Table(page.tableEl, {
      gameId: page.room.game_id,
      plugin: page.plugin,
      send: (message) => (page.socket ? page.socket.send(message) : false),
      rulesHref: rulesHref(),
    });
    page.table.setRoom(page.room);
    replace(main, page.noticeEl, page.barEl, page.tableEl, page.lobbyEl);
    renderLobby();
    loadLeaderboard();
    page.socket = new RoomSocket(code, {
      onStatus: (status, seconds) => {
        if (status === "signed-out") {
          location.reload(); // the page asks for a name or a sign-in again
          return;
        }
        if (status === "gone") {
          replace(main, h("p", { class: "error" }, t("room.notfound")));
          return;
        }
        page.connection = status;
        page.table.setConnection(status);
        renderConnection(seconds);
      },
      onMessage: handleMessage,
    });
    window.addEventListener("beforeunload", () => page.socket.close());
  }

  function rulesHref() {
    return (page.game && page.game.rules_url) || `/rules/${page.room.game_id}`;
  }

  function renderConnection(seconds) {
    const el = document.getElementById("conn-line");
    if (!el) return;
    const key = page.connection === "open" ? "conn.open" : page.connection === "closed" ? "conn.closed" : "conn.connecting";
    replace(el, h("span", { class: ["conn-line", `conn-${page.connection}`], "data-conn": page.connection },
      h("span", { class: "dot" }), t(key, { s: seconds ?? "" })));
  }

  function handleMessage(message) {
    if (message.type === "room") {
      const previousStatus = page.room && page.room.match ? page.room.match.status : null;
      page.room = message.room;
      page.table.setRoom(page.room);
      renderLobby();
      const status = page.room.match ? page.room.match.status : null;
      if (status !== previousStatus) loadLeaderboard();
    } else if (message.type === "state") {
      const before = matchStatus();
      const firstState = !page.hasState;
      page.hasState = true;
      page.table.setState(message);
      if (before !== matchStatus()) {
        page.lobbyOpen = null;
        loadLeaderboard();
      }
      if (firstState || before !== matchStatus()) renderLobby();
    } else if (message.type === "error") {
      const key = { stale: "error.stale", illegal: "error.illegal", malformed: "error.malformed", forbidden: "error.forbidden" }[message.code];
      // The server words the reason in English; its Japanese line is the general kind of error.
      let text = key ? t(key, { message: message.message }) : message.message;
      if (lang() === "ja" && message.messages && message.messages.ja && message.code !== "stale") {
        text = `${message.messages.ja}（${message.message}）`;
      }
      page.table.showNotice(text);
      if (!page.hasState) showNotice(text);
    }
  }

  function showNotice(text, isError = true) {
    replace(page.noticeEl, text ? h("p", { class: isError ? "error" : "ok", role: "alert" }, text) : null);
  }

  /** Run lobby requests one after another, so a quick second click (take a seat, then fill
   * the rest with bots) sees the result of the first. */
  let queue = Promise.resolve();
  function enqueue(task) {
    queue = queue.then(task, task);
    return queue;
  }

  function setRoom(room) {
    if (room && room.code) {
      page.room = room;
      page.table.setRoom(page.room);
      renderLobby();
    }
  }

  function act(request) {
    return enqueue(async () => {
      showNotice(null);
      try {
        setRoom(await request());
      } catch (error) {
        showNotice(errorText(error));
      }
    });
  }

  /** Host: a bot in every seat that is empty now (the room is re-read first). */
  function fillWithBots() {
    return enqueue(async () => {
      showNotice(null);
      try {
        let room = await get(`/api/rooms/${encodeURIComponent(code)}`);
        for (const seat of room.seats.filter((s) => !s.kind)) {
          try {
            room = await post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot" });
          } catch (error) {
            // Someone sat down there meanwhile: leave them be and go on.
            if (!(error instanceof ApiError && error.status === 409)) throw error;
          }
        }
        setRoom(await get(`/api/rooms/${encodeURIComponent(code)}`));
      } catch (error) {
        showNotice(errorText(error));
      }
    });
  }

  async function loadLeaderboard() {
    try {
      page.leaderboard = await get(`/api/rooms/${encodeURIComponent(code)}/leaderboard`);
    } catch {
      page.leaderboard = null;
    }
    renderLobby();
  }

  const isHost = () => Boolean(page.person && page.room && page.room.host_id === page.person.id);
  /** The room's latest match status; a state showing that match over counts as finished even
   * before the next room message says so. */
  const matchStatus = () => {
    const roomMatch = page.room ? page.room.match : null;
    const state = page.table && page.table.state;
    // The live state can be ahead of the last room message (a match just started or ended).
    if (state && (!roomMatch || state.match_id >= roomMatch.id)) {
      const view = page.table.currentView();
      if (view) return view.phase === "match_over" || (view.to_act || []).length === 0 ? "finished" : "running";
    }
    return roomMatch ? roomMatch.status : null;
  };
  const matchRunning = () => {
    const status = matchStatus();
    return status !== null && !["finished", "over", "abandoned", "done"].includes(status);
  };

  function seatRow(seat) {
    const mine = seat.kind === "person" && page.person && seat.person_id === page.person.id;
    const host = isHost();
    const buttons = [];
    if (seat.kind === null || seat.kind === undefined) {
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `take-${seat.n}`,
        onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "me" })) }, t("room.seat.take")));
      if (host) {
        buttons.push(h("button", { type: "button", class: "small", "data-testid": `bot-${seat.n}`,
          onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot" })) }, t("room.seat.bot")));
      }
    } else if (mine) {
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `leave-${seat.n}`,
        onclick: () => act(() => del(`/api/rooms/${code}/seats/${seat.n}`)) }, t("room.seat.leave")));
    } else if (host) {
      buttons.push(h("button", { type: "button", class: "small", "data-testid": `remove-${seat.n}`,
        onclick: () => act(() => del(`/api/rooms/${code}/seats/${seat.n}`)) }, t("room.seat.remove")));
      if (seat.kind === "person" && matchRunning()) {
        buttons.push(h("button", { type: "button", class: "small", "data-testid": `takeover-${seat.n}`,
          title: t("room.seat.takeover_title"),
          onclick: () => act(() => post(`/api/rooms/${code}/seats/${seat.n}`, { as: "bot", replace: true })) },
          t("room.seat.takeover")));
      }
    }
    const connected = seat.kind === "bot" || seat.connected;
    return h("li", { class: ["seat-row", mine && "mine", !seat.kind && "empty"], dataset: { seat: String(seat.n) } },
      h("span", { class: "seat-no" }, t("common.seat", { n: seat.n + 1 })),
      seat.kind ? h("span", { class: ["dot", connected ? "online" : "offline"], title: t(connected ? "conn.online" : "conn.offline") }) : null,
      h("span", { class: "seat-who" },
        seat.kind ? seatLabel(seat, seat.n) : h("span", { class: "muted" }, t("room.seat.empty")),
        mine ? h("span", { class: "tag" }, t("common.you")) : null,
        seat.kind === "person" && seat.person_id === page.room.host_id ? h("span", { class: "tag" }, t("room.host")) : null),
      h("span", { class: "seat-buttons" }, buttons));
  }

  function renderLobby() {
    const room = page.room;
    if (!room) return;
    const host = isHost();
    const running = matchRunning();
    const finished = matchStatus() !== null && !running;
    const seats = room.seats || [];
    const emptySeats = seats.filter((s) => !s.kind);
    const inviteUrl = room.invite_url ? new URL(room.invite_url, location.origin).href : `${location.origin}/r/${room.code}`;
    const inviteInput = h("input", { value: inviteUrl, readonly: true, "data-testid": "invite-url", onfocus: (e) => e.target.select() });
    const copyButton = h("button", { type: "button", "data-testid": "copy-invite", onclick: async () => {
      try {
        await navigator.clipboard.writeText(inviteUrl);
      } catch {
        inviteInput.select();
        document.execCommand("copy");
      }
      copyButton.textContent = t("room.invite.copied");
      setTimeout(() => (copyButton.textContent = t("room.invite.copy")), 2000);
    } }, t("room.invite.copy"));
    const seated = seats.some((s) => s.kind === "person" && page.person && s.person_id === page.person.id);
    const members = room.members || [];

    const startBar = [];
    if (host && !running) {
      startBar.push(h("button", {
        type: "button", class: "primary big", "data-testid": "start", disabled: emptySeats.length > 0,
        onclick: () => act(() => post(`/api/rooms/${code}/start`)),
      }, t(finished ? "room.rematch" : "room.start")));
      if (emptySeats.length) startBar.push(h("p", { class: "help" }, t("room.need.seats")));
    } else if (!running) {
      startBar.push(h("p", { class: "muted" }, t("room.waiting.host")));
    }

    const optionsPanel = page.game && (page.game.options_schema && Object.keys(page.game.options_schema.properties || {}).length)
      ? optionsSection(host && !running)
      : null;

    const seatCount = host && !running && page.game
      ? h("label", { class: "field inline" }, h("span", { class: "field-label" }, t("room.seats.count")),
        h("select", { "data-testid": "seat-count", onchange: (e) => changeSeatCount(Number(e.target.value)) },
          Array.from({ length: page.game.max_players - page.game.min_players + 1 }, (_, i) => page.game.min_players + i)
            .map((n) => h("option", { value: String(n), selected: n === seats.length }, t("common.players", { n })))))
      : null;

    const content = [
      h("div", { class: "lobby-head" },
        h("h2", null, gameName(page.game) || room.game_id, " ", h("span", { class: "muted small" }, t("room.title", { code: room.code }))),
        h("a", { href: rulesHref(), target: "_blank", rel: "noopener", class: "small-link" }, t("room.rules", { game: gameName(page.game) })),
        h("div", { id: "conn-line" })),
      h("section", { class: "lobby-section" },
        h("h3", null, t("room.invite")),
        h("div", { class: "invite" }, inviteInput, copyButton),
        h("p", { class: "help" }, t("room.invite.help"))),
      h("section", { class: "lobby-section" },
        h("h3", null, t("room.seats")),
        seatCount,
        h("ul", { class: "seat-list", "data-testid": "seat-list" }, seats.map(seatRow)),
        host && emptySeats.length ? h("button", { type: "button", "data-testid": "fill-bots", onclick: fillWithBots }, t("room.seat.fill")) : null,
        !seated ? h("p", { class: "muted" }, t("room.spectator")) : null),
      h("section", { class: "lobby-section" },
        h("h3", null, t("room.members")),
        h("ul", { class: "member-list" }, members.map((m) => h("li", null,
          h("span", { class: ["dot", m.connected === false ? "offline" : "online"] }),
          m.name ?? "",
          m.is_host || m.person_id === room.host_id ? h("span", { class: "tag" }, t("room.host")) : null,
          seats.some((s) => s.kind === "person" && s.person_id === m.person_id) ? null : h("span", { class: "tag" }, t("room.watching")))))),
      optionsPanel,
      leaderboardSection(),
    ];
    replace(page.barEl, startBar);
    const showTable = page.hasState;
    if (showTable) {
      // Folded during play unless the person opened it; their choice survives redraws.
      const details = h("details", { class: "lobby-details", open: page.lobbyOpen ?? !running },
        h("summary", { onclick: () => (page.lobbyOpen = !details.open) }, t("room.title", { code: room.code })), content);
      replace(page.lobbyEl, details);
    } else {
      replace(page.lobbyEl, content);
    }
    renderConnection();
  }

  /** The room's options; the host edits them (an unsaved draft survives redraws) and saves. */
  function optionsSection(editable) {
    const room = page.room;
    const seats = room.seats || [];
    const status = page.optionsStatus;
    const statusLine = h("p", { class: ["form-status", status && status.error && "error"], role: "status", "data-testid": "options-status" },
      status ? status.text : "");
    const editor = optionsEditor(page.game, page.plugin, editable && page.optionsDraft ? page.optionsDraft : room.options, {
      disabled: !editable,
      seats: seats.length,
      seatName: (n) => {
        const seat = seats.find((s) => s.n === n);
        return seat && seat.kind ? seatLabel(seat, n) : "";
      },
      onEdit: (options) => {
        page.optionsDraft = options;
        page.optionsStatus = null;
        replace(statusLine);
      },
    });
    const save = () => enqueue(async () => {
      page.optionsStatus = null;
      try {
        const saved = await patch(`/api/rooms/${code}`, { options: editor.read() });
        page.optionsDraft = null;
        page.optionsStatus = { text: t("room.options.saved"), error: false };
        setRoom(saved);
      } catch (error) {
        page.optionsStatus = { text: errorText(error), error: true };
        renderLobby();
      }
    });
    return h("section", { class: "lobby-section", "data-testid": "room-options" },
      h("h3", null, t("room.options")),
      editor.el,
      editable ? h("button", { type: "button", "data-testid": "save-options", onclick: save }, t("room.options.save")) : null,
      statusLine);
  }

  /** A new seat count starts the options from what is saved (a draft was made for the old count);
   * a plugin's `optionsForSeats` drops choices that only fit the old count (Familia's per-seat lists). */
  function changeSeatCount(seats) {
    return act(async () => {
      const body = { seats };
      const saved = page.room.option_overrides;
      if (page.plugin && typeof page.plugin.optionsForSeats === "function" && saved) {
        const adjusted = page.plugin.optionsForSeats({ ...saved }, seats);
        if (adjusted) body.options = adjusted;
      }
      const room = await patch(`/api/rooms/${code}`, body);
      page.optionsDraft = null;
      page.optionsStatus = null;
      return room;
    });
  }

  function leaderboardSection() {
    const rows = normaliseLeaderboard(page.leaderboard);
    if (!rows.length) return null;
    return h("section", { class: "lobby-section", "data-testid": "room-leaderboard" },
      h("h3", null, t("room.leaderboard")),
      leaderboardTable(rows));
  }

  page.rerender = () => {
    if (!page.room) return start();
    page.table.render();
    renderLobby();
  };
  rerender = () => page.rerender();
  start().catch((error) => replace(main, errorBox(error)));
}

// ---- history, match, leaderboards ----------------------------------------------------------------
function normaliseLeaderboard(data) {
  const rows = Array.isArray(data) ? data : data && Array.isArray(data.rows) ? data.rows : data && Array.isArray(data.entries) ? data.entries : [];
  return rows.map((row, index) => ({
    rank: row.rank ?? index + 1,
    gameId: row.game_id ?? null,
    name: row.kind === "bot" ? t("board.bots") : row.name ?? "",  // the server adds every bot into one entry
    bot: row.kind === "bot",
    me: Boolean(row.is_me),
    matches: row.matches ?? null,
    wins: row.wins ?? null,
    total: row.score ?? row.total ?? 0,
  }));
}

/** Leaderboard rows; with `gameNames` (overall board: one ranking per game) a game column is added. */
function leaderboardTable(rows, gameNames) {
  const byGame = Boolean(gameNames) && rows.some((r) => r.gameId);
  return h("div", { class: "table-scroll" }, h("table", { class: "score-table leaderboard", "data-testid": "leaderboard" },
    h("thead", null, h("tr", null, byGame ? h("th", null, t("history.game")) : null, h("th", null, "#"), h("th", null, t("leaderboard.player")),
      h("th", { class: "num" }, t("leaderboard.matches")), rows.some((r) => r.wins !== null) ? h("th", { class: "num" }, t("leaderboard.wins")) : null,
      h("th", { class: "num" }, t("leaderboard.total")))),
    h("tbody", null, rows.map((row) => h("tr", { class: row.me ? "me" : null },
      byGame ? h("td", null, gameNames(row.gameId)) : null,
      h("td", null, String(row.rank)),
      h("td", null, row.name),
      h("td", { class: "num" }, row.matches === null ? "" : String(row.matches)),
      rows.some((r) => r.wins !== null) ? h("td", { class: "num" }, row.wins === null ? "" : String(row.wins)) : null,
      h("td", { class: "num" }, formatScore(row.total)))))));
}

function formatDate(value) {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(lang() === "ja" ? "ja-JP" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
}

async function historyPage() {
  loading();
  const person = await me();
  header(person);
  if (!person) {
    replace(main, nameForm(() => historyPage()), loginForm(() => historyPage()));
    return;
  }
  let matches;
  let board;
  let catalog = [];
  try {
    [matches, board, catalog] = await Promise.all([get("/api/me/matches"), get("/api/leaderboard").catch(() => null), games().catch(() => [])]);
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  const list = Array.isArray(matches) ? matches : matches && Array.isArray(matches.matches) ? matches.matches : [];
  const nameOf = (id) => gameName(catalog.find((g) => g.id === id)) || id;
  const rows = normaliseLeaderboard(board);
  replace(main,
    h("h1", null, t("history.title")),
    list.length
      ? h("div", { class: "table-scroll" }, h("table", { class: "score-table history", "data-testid": "history" },
        h("thead", null, h("tr", null, ["history.date", "history.game", "history.room", "history.status", "history.score", "history.rank", ""]
          .map((key) => h("th", null, key ? t(key) : "")))),
        h("tbody", null, list.map((m) => h("tr", { dataset: { match: String(m.id) } },
          h("td", null, formatDate(m.created_at)),
          h("td", null, m.game_names ? pick(m.game_names) : nameOf(m.game_id)),
          h("td", null, m.room_code ? h("a", { href: `/r/${m.room_code}` }, m.room_code) : ""),
          h("td", null, t(`status.${m.status}`)),
          h("td", { class: "num" }, m.my_score !== undefined && m.my_score !== null ? formatScore(m.my_score) : ""),
          h("td", { class: "num" }, m.my_rank ?? ""),
          h("td", null, h("a", { href: `/matches/${m.id}` }, t("history.open"))))))))
      : h("p", { class: "muted" }, t("history.none")),
    h("h2", null, t("leaderboard.overall")),
    rows.length ? leaderboardTable(rows, nameOf) : h("p", { class: "muted" }, t("leaderboard.none")));
}

async function matchPage(id) {
  loading();
  const person = await me();
  header(person);
  let match;
  try {
    match = await get(`/api/matches/${encodeURIComponent(id)}`);
  } catch (error) {
    replace(main, errorBox(error));
    return;
  }
  const game = await gameById(match.game_id).catch(() => null);
  const plugin = await loadPlugin(match.game_id);
  const seats = match.seats || [];
  const seatName = (n) => seatLabel(seats.find((s) => s.n === n), n);
  const players = match.players || seats.length;
  const seatNumbers = Array.from({ length: players }, (_, n) => n);
  const hands = match.hands || [];
  const totals = match.totals || seatNumbers.map((n) => hands.reduce((sum, hand) => sum + (hand.scores[n] || 0), 0));
  // Until the match ends there is no stored ranking; rank the running totals instead.
  const ranking = Array.isArray(match.ranking) && match.ranking.length ? match.ranking : rankSeats(totals);
  replace(main,
    h("p", null, h("a", { href: "/history" }, `← ${t("nav.history")}`)),
    h("h1", null, gameName(game) || match.game_id, " ", h("span", { class: "muted small" }, t("match.title", { id: match.id }))),
    h("p", { class: "muted" }, formatDate(match.created_at), " · ", t(`status.${match.status}`),
      match.room_code ? [" · ", h("a", { href: `/r/${match.room_code}` }, t("room.title", { code: match.room_code }))] : null),
    h("h2", null, t("match.ranking")),
    h("ol", { class: "final-ranking", "data-testid": "ranking" }, ranking.map((r) => h("li", { value: r.rank }, `${seatName(r.seat)} ${formatScore(r.score)}`))),
    h("h2", null, t("match.hands")),
    h("div", { class: "table-scroll" }, h("table", { class: "score-table", "data-testid": "match-hands" },
      h("thead", null, h("tr", null, h("th", null, "#"), seatNumbers.map((n) => h("th", { class: "num" }, seatName(n))))),
      h("tbody", null, hands.map((hand, index) => h("tr", null, h("td", null, String(hand.hand_no ?? index + 1)),
        seatNumbers.map((n) => h("td", { class: "num" }, formatScore(hand.scores[n])))))),
      h("tfoot", null, h("tr", null, h("th", null, t("match.total")), seatNumbers.map((n) => h("th", { class: "num" }, formatScore(totals[n])))))),
    handExplanations(plugin, match, hands, seatName, totals)));
}

/** Each hand's explanation from the game plugin (the same as the table's result dialog). */
function handExplanations(plugin, match, hands, seatName, totals) {
  if (!plugin.renderHandResult || !hands.length) return null;
  const ctx = {
    game: match.game_id,
    view: { game: match.game_id, seat: null, players: match.players, phase: "match_over", to_act: [], hand: [], hands, scores: totals },
    seat: null,
    legal: [],
    mySeats: [],
    isMyTurn: false,
    players: match.players,
    selected: [],
    setSelected() {},
    send: () => false,
    seatName,
    card: (code, options) => cardEl(code, plugin.deck, options),
    h,
    t,
    lang: lang(),
    redraw() {},
  };
  return hands.map((stored, index) => {
    // The server stores the engine's whole hand record (minus scores) as `details`.
    const inner = stored.details && stored.details.details && typeof stored.details.details === "object" ? stored.details : null;
    const hand = inner ? { ...inner, ...stored, details: inner.details } : stored;
    const box = h("div", { class: "hand-details" });
    try {
      plugin.renderHandResult(box, ctx, hand);
    } catch (error) {
      console.error("plugin hand result failed", error);
      return null;
    }
    return h("details", { class: "scores-panel match-hand", "data-testid": "match-hand-details" },
      h("summary", null, t("table.hand_result", { n: hand.hand_no ?? index + 1 })), box);
  });
}

async function rulesPage(gameId) {
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

// ---- router -----------------------------------------------------------------------------------
function route() {
  const path = location.pathname.replace(/\/+$/, "") || "/";
  let m;
  if (path === "/") return landingPage();
  if ((m = path.match(/^\/r\/([^/]+)$/))) return roomPage(decodeURIComponent(m[1]));
  if (path === "/history" || path === "/leaderboard") return historyPage();
  if (path === "/me") {
    history.replaceState(null, "", "/#profile");
    return landingPage();
  }
  if ((m = path.match(/^\/matches\/([^/]+)$/))) return matchPage(decodeURIComponent(m[1]));
  if ((m = path.match(/^\/rules\/([^/]+)$/))) return rulesPage(decodeURIComponent(m[1]));
  header(null);
  replace(main, h("p", null, t("notfound")));
  return null;
}

function run() {
  rerender = () => run();
  Promise.resolve(route()).catch((error) => replace(main, errorBox(error)));
}

onLangChange(() => {
  document.title = t("app.title");
  rerender();
  me().then(header).catch(() => {});
});
document.title = t("app.title");
run();
