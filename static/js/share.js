// Sharing a finished game's recap: the phone's share sheet where there is one; else the clipboard,
// said so on screen; else the text shown selected, to copy by hand (plain HTTP has neither).

export function setupShare(box) {
  const button = box.querySelector("[data-share-button]");
  const status = box.querySelector("[data-share-status]");
  const field = box.querySelector("[data-share-text]");
  const text = field.value;
  function showText() {
    field.hidden = false;
    field.focus();
    field.select();
    status.textContent = "Copy the text below.";
  }
  function copy() {
    if (!navigator.clipboard || !navigator.clipboard.writeText) return showText();
    navigator.clipboard.writeText(text).then(() => {
      status.textContent = "Copied ✓ Paste it into the family chat.";
    }, showText);
  }
  button.addEventListener("click", () => {
    status.textContent = "";
    if (!navigator.share) return copy();
    navigator.share({ title: box.getAttribute("data-share-title"), text }).catch((error) => {
      if (!error || error.name !== "AbortError") copy(); // closing the share sheet is no failure
    });
  });
}
