// On plain HTTP (a secure context is also localhost), say once, briefly, which table features need
// HTTPS, with a link to the phone set-up page (not on that page itself: it says so at length).
// early.js decided before the first paint whether it shows (html.show-https-hint); here it is only
// marked as seen and made dismissible.

const KEY = "scorekeeper-https-hint-shown";
const hint = document.querySelector("[data-https-hint]");

if (hint && document.documentElement.classList.contains("show-https-hint")) {
  try {
    localStorage.setItem(KEY, "1");
  } catch (error) {
    /* storage refused: it shows again on the next page, it is short */
  }
  hint.querySelector("[data-dismiss]").addEventListener("click", () => { hint.hidden = true; });
}
