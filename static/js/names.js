// Names where they do not fit: a name that would be cut off, or broken in the middle of a word,
// shows as much of its beginning as fits, down to the shortest that tells it apart from the others
// at this table (data-fit, worked out by the server: "Grandm" and "Grandp"), with the whole name as
// its title. Each box is measured again when its width changes: a turned phone, or a screen shown.

function boxOf(el) {
  return getComputedStyle(el).display === "inline" ? el.parentElement : el;
}

// Whether the text overflows its box, to the fraction of a pixel (scrollWidth rounds).
function cut(box) {
  if (box.scrollWidth > box.clientWidth) return true;
  const range = document.createRange();
  range.selectNodeContents(box);
  return range.getBoundingClientRect().width > box.getBoundingClientRect().width;
}

// The whole name if it fits; else its longest beginning that does, never shorter than the one the
// server worked out (the shortest that tells it apart at this table).
function fit(el) {
  const full = el.getAttribute("data-full") || el.textContent, shortest = el.getAttribute("data-fit");
  el.setAttribute("data-full", full);
  el.textContent = full;
  const box = boxOf(el);
  if (!box.clientWidth || !cut(box)) {
    el.removeAttribute("title");
    return;
  }
  let length = full.length - 1;
  for (; length > shortest.length; length--) {
    el.textContent = full.slice(0, length).trimEnd();
    if (!cut(box)) break;
  }
  if (length <= shortest.length) el.textContent = shortest;
  el.title = full;
}

export function setupNames(root) {
  const names = Array.from(root.querySelectorAll("[data-fit]"));
  if (!names.length) return;
  const widths = new Map();
  const observer = new ResizeObserver((entries) => {
    entries.forEach((entry) => {
      const width = Math.round(entry.contentRect.width);
      if (widths.get(entry.target) === width) return; // a name swapped changes its height only
      widths.set(entry.target, width);
      names.filter((el) => boxOf(el) === entry.target).forEach(fit);
    });
  });
  names.forEach((el) => observer.observe(boxOf(el)));
}
