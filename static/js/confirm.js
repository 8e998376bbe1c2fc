/**
 * A question before an action that cannot simply be undone (leaving one's seat during a match):
 * a native modal `<dialog>`, so the browser keeps focus inside it, Escape answers "no", and a
 * screen reader hears its title and text. Touch, mouse and keyboard all work on its buttons.
 */
import { h } from "./dom.js";

/**
 * Ask, and resolve to true only when the person chose `yes`. Focus starts on the safe answer
 * (`no`) and returns to what had it before.
 * @param {{title: string, text: string, yes: string, no: string, testId?: string}} question
 * @returns {Promise<boolean>}
 */
export function confirmAction({ title, text, yes, no, testId = "confirm-dialog" }) {
  const before = document.activeElement;
  return new Promise((resolve) => {
    let answer = false;
    const noButton = h("button", { type: "button", "data-testid": `${testId}-no`, onclick: () => dialog.close() }, no);
    const yesButton = h("button", { type: "button", class: "primary", "data-testid": `${testId}-yes`,
      onclick: () => {
        answer = true;
        dialog.close();
      } }, yes);
    const dialog = h("dialog", { class: "confirm-dialog", "data-testid": testId, "aria-labelledby": `${testId}-title`,
      "aria-describedby": `${testId}-text` },
    h("h2", { id: `${testId}-title` }, title),
    h("p", { id: `${testId}-text` }, text),
    h("div", { class: "dialog-buttons" }, noButton, yesButton));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (before && typeof before.focus === "function" && before.isConnected) before.focus();
      resolve(answer);
    });
    // A tap on the backdrop (outside the box) answers "no", as Escape does.
    dialog.addEventListener("click", (event) => {
      if (event.target !== dialog) return;
      const box = dialog.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) dialog.close();
    });
    document.body.append(dialog);
    dialog.showModal();
    noButton.focus();
  });
}
