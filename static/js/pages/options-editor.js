/**
 * A game's options as form inputs built from its JSON schema, plus the plugin's own pickers
 * (`renderOptions`); used by the create-room form and the room's options panel.
 */
import { h, replace } from "../dom.js";
import { lang, t } from "../i18n.js";
import { field } from "./common.js";

export function optionLabel(gameId, name, schema) {
  for (const key of [`${gameId}.option.${name}`, `option.${name}`]) {
    const text = t(key);
    if (text !== key) return text;
  }
  return schema.title || name;
}

export function resolveSchema(prop, root) {
  if (prop && prop.$ref) {
    const name = prop.$ref.split("/").pop();
    return { ...(root.$defs || root.definitions || {})[name], ...prop, $ref: undefined };
  }
  return prop || {};
}

/** The phrase for a game's default match length: `<game>.option.hands.default` when the plugin
 * defines it (fairy-500 plays to ±500), else a fixed count from the schema (yaya-fugou's 5),
 * else the generic one hand per player. */
export function handsDefaultText(gameId, prop) {
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
export function optionInputs(game, values, disabled, skip = [], pluginBox = null) {
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
export function readOptions(container) {
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
export function optionsEditor(game, plugin, values, { disabled, seats, seatName, onEdit }) {
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

export function defaultsFor(game, seats) {
  const byPlayers = game.default_options_by_players || game.defaults_by_players;
  if (byPlayers && byPlayers[String(seats)]) return byPlayers[String(seats)];
  return game.default_options || {};
}
