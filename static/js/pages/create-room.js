/** The create-room form: the room's name, game, preset, seat count and the game's options. */
import { h, replace } from "../dom.js";
import { post } from "../api.js";
import { pick, t } from "../i18n.js";
import { defaultRoomName, field, form, gameName } from "./common.js";
import { defaultsFor, optionsEditor } from "./options-editor.js";

const AWAY_GRACES = [10, 30, 60, 120, 300, 600];
const TURN_TIMERS = [null, 15, 30, 60, 90, 120, 300, 600];

function duration(seconds) {
  return seconds >= 60 && seconds % 60 === 0 ? t("timer.minutes", { m: seconds / 60 }) : t("timer.seconds", { s: seconds });
}

/**
 * The room's `away_grace`, `turn_timer`, `take_backs` and `hints` pickers (the create form and the
 * room's lobby). `read()` gives `{away_grace, turn_timer, take_backs, hints}`; `onChange` (optional)
 * hears each change.
 */
export function timingFields(values, { disabled = false, onChange = null } = {}) {
  const choices = (list, current) => (list.includes(current) ? list : [...list, current].sort((a, b) => (a ?? 0) - (b ?? 0)));
  const grace = h("select", { name: "away_grace", "data-testid": "away-grace", disabled, onchange: () => onChange && onChange(read()) },
    choices(AWAY_GRACES, values.away_grace ?? 60).map((n) => h("option", { value: String(n), selected: n === (values.away_grace ?? 60) }, duration(n))));
  const timer = h("select", { name: "turn_timer", "data-testid": "turn-timer", disabled, onchange: () => onChange && onChange(read()) },
    choices(TURN_TIMERS, values.turn_timer ?? null).map((n) => h("option", { value: n === null ? "" : String(n), selected: n === (values.turn_timer ?? null) },
      n === null ? t("room.turn_timer.off") : duration(n))));
  const takeBacks = h("select", { name: "take_backs", "data-testid": "take-backs", disabled, onchange: () => onChange && onChange(read()) },
    ["until_next", "off"].map((v) => h("option", { value: v, selected: v === (values.take_backs ?? "until_next") }, t(`room.take_backs.${v}`))));
  const hints = h("select", { name: "hints", "data-testid": "hints-setting", disabled, onchange: () => onChange && onChange(read()) },
    ["off", "on"].map((v) => h("option", { value: v, selected: (v === "on") === Boolean(values.hints) }, t(`room.hints.${v}`))));
  const read = () => ({
    away_grace: Number(grace.value), turn_timer: timer.value === "" ? null : Number(timer.value), take_backs: takeBacks.value,
    hints: hints.value === "on",
  });
  const el = h("div", { class: "timing-fields" },
    field(t("room.away_grace"), grace),
    field(t("room.turn_timer"), timer),
    field(t("room.take_backs"), takeBacks, t("room.take_backs.help")),
    field(t("room.hints"), hints, t("room.hints.help")),
    h("p", { class: "help" }, t("room.timing.help")));
  return { el, read };
}

export function createRoomPanel(catalog, plugins, person = null) {
  // Empty: the server's default name ("‹host›'s ‹game› table"), shown as the placeholder.
  const nameInput = h("input", { name: "name", maxlength: 60, "data-testid": "room-name-field", autocomplete: "off" });
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
    nameInput.placeholder = defaultRoomName(person ? person.name : "", gameName(game));
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
  const timing = timingFields({ away_grace: 60, turn_timer: null, take_backs: "until_next", hints: false });
  return h("section", { class: "card-panel" },
    h("h2", null, t("landing.create.title")),
    form({ class: "stack-form", "data-testid": "create-room" }, [
      field(t("landing.create.game"), gameSelect),
      rulesLink,
      presetField,
      field(t("landing.create.seats"), seatsSelect),
      field(t("room.name"), nameInput, t("room.name.help")),
      h("fieldset", null, h("legend", null, t("landing.create.options")), optionsHolder),
      h("fieldset", null, h("legend", null, t("room.timing")), timing.el),
      h("button", { type: "submit", class: "primary" }, t("landing.create.submit")),
    ], async () => {
      const body = { game_id: gameSelect.value, seats: Number(seatsSelect.value), options: editor ? editor.read() : {}, ...timing.read() };
      if (nameInput.value.trim()) body.name = nameInput.value;
      const room = await post("/api/rooms", body);
      location.assign(`/r/${room.code}`);
      return "";
    }));
}
