/**
 * A tiny DOM builder, so pages read as a tree instead of createElement chains.
 *
 *   h("button", {class: "primary", onclick: go}, t("start"))
 *
 * Attributes starting with "on" become event listeners; `class` may be a string or an array
 * (falsy entries dropped); `dataset` and `style` objects are merged; `null`/`false` children are
 * skipped and arrays are flattened, which keeps conditional markup short.
 *
 * `morph(parent, children)` puts a freshly built tree in place of what `parent` shows by changing
 * only what differs (morphdom, vendored under static/vendor/morphdom/): the nodes that stay the
 * same are neither styled nor laid out nor painted again, which is most of a redraw's cost when
 * one card moves. An element built by `h` keeps its handlers in a table of its own, read by one
 * listener per event type, so a kept node answers as the new drawing's copy of it would.
 */
import morphdom from "../vendor/morphdom/morphdom-esm.js";

/** Where an element built by `h` keeps its handlers: event type -> function. */
const HANDLERS = Symbol("handlers");

/** The one listener of each event type on an element built by `h`: calls the handler the latest
 * drawing gave it. */
function dispatch(event) {
  const handler = this[HANDLERS]?.[event.type];
  return handler ? handler.call(this, event) : undefined;
}

function listen(el, type, handler) {
  (el[HANDLERS] ||= {})[type] = handler;
  el.addEventListener(type, dispatch);
}

/** @param {string} tag @param {Record<string, any>|null} [attrs] @param {...any} children */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      listen(el, key.slice(2).toLowerCase(), value);
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

/** The key morphdom matches a kept element and its stand-in by. */
const KEPT_KEY = "\u0000kept";

/**
 * Make `parent`'s children look exactly like `children` (as `replace` would), changing only what
 * differs. `kept`, a child of `parent` that may appear among `children`, is left untouched where
 * it is (the chat dock: its field keeps what a person is typing). Element-by-element, in order:
 * a kept node takes the new copy's attributes, inline style and handlers.
 */
export function morph(parent, children, kept = null) {
  // Where `kept` already is, a stand-in takes its place in the new tree (morphdom matches the two
  // by key and leaves it alone); elsewhere it is simply put in.
  const standIn = kept && kept.parentNode === parent ? document.createElement(kept.tagName) : null;
  const next = document.createElement(parent.tagName);
  append(next, [children].flat(Infinity).map((child) => (standIn && child === kept ? standIn : child)));
  morphdom(parent, next, {
    childrenOnly: true,
    getNodeKey: (node) => (standIn && (node === kept || node === standIn) ? KEPT_KEY : node.getAttribute?.("id") || undefined),
    onBeforeElUpdated(from, to) {
      if (standIn && from === kept) return false;
      const handlers = to[HANDLERS];
      from[HANDLERS] = handlers;
      for (const type of Object.keys(handlers || {})) from.addEventListener(type, dispatch);
      // Through the CSSOM: the page's Content-Security-Policy blocks a style attribute written
      // by setAttribute (which morphdom would do), not this; the attributes then already agree.
      if (from.style && from.style.cssText !== to.style.cssText) from.style.cssText = to.style.cssText;
      return true;
    },
  });
  return parent;
}
