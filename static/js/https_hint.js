// On plain HTTP (a secure context is also localhost), say once, briefly, which table features need
// HTTPS, with a link to the phone set-up page. Not on that page itself: it says so at length.

const KEY = "scorekeeper-https-hint-shown";
const hint = document.querySelector("[data-https-hint]");

function shownBefore() {
  try {
    const before = localStorage.getItem(KEY) === "1";
    localStorage.setItem(KEY, "1");
    return before;
  } catch (error) {
    return false;  // storage refused: show it, it is short
  }
}

if (hint && !window.isSecureContext && !document.querySelector("[data-phone-check]") && !shownBefore()) {
  hint.hidden = false;
  hint.querySelector("[data-dismiss]").addEventListener("click", () => { hint.hidden = true; });
}
