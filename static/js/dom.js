/**
 * A tiny DOM builder, so pages read as a tree instead of createElement chains.
 *
 *   h("button", {class: "primary", onclick: go}, t("start"))
 *
 * Attributes starting with "on" become event listeners; `class` may be a string or an array
 * (falsy entries dropped); `dataset` and `style` objects are merged; `null`/`false` children are
 * skipped and arrays are flattened, which keeps conditional markup short.
 */

/** @param {string} tag @param {Record<string, any>|null} [attrs] @param {...any} children */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class") {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else if (key === "style") {
      // Through the CSSOM, not a style attribute: a Content-Security-Policy without
      // 'unsafe-inline' blocks the attribute but allows this (custom properties included).
      el.style.cssText = value;
    } else if (key === "html") {
      el.innerHTML = value;
    } else if (key in el && typeof value !== "string") {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

/** Append children (strings, nodes, nested arrays; null/false skipped). */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replace every child of `parent` with `children`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** An SVG element (createElementNS), same calling style as `h`. */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
