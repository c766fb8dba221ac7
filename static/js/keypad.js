// The card entry: one hand shows at a time, the switcher picks whose, and one keypad fixed at the
// bottom of the screen adds cards to it. Nothing above the keypad changes its height, so no key
// moves under a finger while cards are tapped or removed, or players switched. The card points
// are the ones the server drew on each key (from the rules core); here they are only added up.

import { read, write } from "./store.js";

function number(text) {
  const trimmed = String(text || "").trim();
  return /^-?\d{1,9}$/.test(trimmed) ? parseInt(trimmed, 10) : null;
}

// A tap changes a text's characters, not its nodes.
function setText(node, text) {
  const first = node.firstChild;
  if (first && first.nodeType === Node.TEXT_NODE && !first.nextSibling) {
    if (first.data !== text) first.data = text;
  } else node.textContent = text;
}

function setupHand(hand, changed) {
  const inputs = {};
  hand.querySelectorAll("input[data-key]").forEach((input) => { inputs[input.getAttribute("data-key")] = input; });
  const chosen = hand.querySelector("[data-chosen]");
  const total = hand.querySelector("input[data-total]");
  const points = hand.querySelector("[data-hand-points]");
  const event = hand.querySelector("input[data-event-points]");
  let order = []; // card codes, first tapped first: the chips keep that order
  let counts = {};
  const state = { cards: 0, points: 0 };

  // The chips, first tapped first; only the chip of the card tapped or taken changes.
  const chips = {};
  const hint = document.createElement("span");
  hint.className = "muted small";
  hint.textContent = "Tap the cards left in hand";
  // The card just tapped in view, read just before the frame: a tap lays the page out once.
  let scrolling = false;
  function scrollDown() {
    if (scrolling) return;
    scrolling = true;
    requestAnimationFrame(() => { scrolling = false; chosen.scrollTop = chosen.scrollHeight; });
  }
  function chipFor(code) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "card-chip";
    chip.addEventListener("click", () => { counts[code] -= 1; sync(); });
    return chip;
  }
  function drawChips() {
    Object.keys(chips).forEach((code) => {
      if (!counts[code]) { chips[code].remove(); delete chips[code]; }
    });
    order.forEach((code, index) => {
      const n = counts[code], label = inputs[code].getAttribute("data-label");
      const chip = chips[code] || (chips[code] = chipFor(code));
      const text = n > 1 ? label + " ×" + n : label;
      if (chip.textContent !== text) {
        setText(chip, text);
        chip.setAttribute("aria-label", "Remove one " + label + (n > 1 ? " of " + n : ""));
      }
      if (chosen.children[index] !== chip) chosen.insertBefore(chip, chosen.children[index] || null);
    });
    if (!order.length && hint.parentNode !== chosen) chosen.appendChild(hint);
    else if (order.length && hint.parentNode === chosen) hint.remove();
  }
  function render() {
    drawChips();
    let sum = 0, cards = 0;
    order.forEach((code) => {
      sum += counts[code] * parseInt(inputs[code].getAttribute("data-points"), 10);
      cards += counts[code];
    });
    const typed = total ? number(total.value) : null;
    // A named-event bonus (e.g. cutting the exact number of cards) counts for anyone.
    const extra = event && event.checked ? parseInt(event.getAttribute("data-event-points"), 10) : 0;
    let value = sum + extra;
    if (hand.classList.contains("is-out")) {
      const bonus = hand.form.querySelector("input[data-bonus-points]:checked");
      value = parseInt(hand.form.getAttribute("data-out-points") || "0", 10) + extra +
        (bonus ? parseInt(bonus.getAttribute("data-bonus-points"), 10) : 0);
    } else if (typed !== null) value = typed + extra;
    const shown = value ? value + " pts" : "0";
    setText(points, shown);
    state.cards = typed !== null && !cards ? null : cards;
    state.points = value;
    changed();
    scrollDown();
  }
  function sync() {
    Object.keys(inputs).forEach((code) => {
      const value = counts[code] ? String(counts[code]) : "";
      if (inputs[code].value !== value) inputs[code].value = value;
    });
    order = order.filter((code) => counts[code] > 0);
    render();
  }
  // The fields as they stand (drawn by the server, restored from a draft, or loaded by the game).
  state.refresh = () => {
    counts = {};
    order = [];
    Object.keys(inputs).forEach((code) => {
      counts[code] = parseInt(inputs[code].value, 10) || 0;
      if (counts[code]) order.push(code);
    });
    render();
  };
  state.add = (code) => {
    if (!inputs[code] || hand.classList.contains("is-out")) return;
    if (!counts[code]) order.push(code);
    counts[code] = (counts[code] || 0) + 1;
    sync();
  };
  state.render = render;
  state.count = (code) => counts[code] || 0;
  if (total) total.addEventListener("input", render);
  if (event) event.addEventListener("change", render);
  state.refresh();
  return state;
}

// The form's fields, as a draft: kept on the phone as they are typed.
export function formFields(form) {
  const fields = [];
  new FormData(form).forEach((value, name) => {
    if (name !== "csrf_token" && name !== "version") fields.push([name, String(value)]);
  });
  return fields;
}

export function fillForm(form, fields, skip) {
  const values = {};
  fields.forEach(([name, value]) => { (values[name] = values[name] || []).push(value); });
  Array.from(form.elements).forEach((input) => {
    if (!input.name || input.type === "hidden" || input.type === "submit" || (skip && skip(input.name))) return;
    const wanted = values[input.name] || [];
    if (input.type === "checkbox" || input.type === "radio") input.checked = wanted.indexOf(input.value) >= 0;
    else input.value = wanted.length ? wanted[0] : "";
  });
}

export function saveDraft(key, form, extra) { write(key, Object.assign({ fields: formFields(form) }, extra || {})); }
export function loadDraft(key) { return read(key, null); }

// Set up the card entry in ``form``; ``onChange`` hears of every change (to keep a draft).
// The answer: ``refresh()`` after the fields were filled from elsewhere, ``asked()`` to ask
// about hands left empty (true when one was), and ``handsAt(plan)`` to read the hands.
export function setupEntry(form, onChange) {
  const hands = Array.from(form.querySelectorAll("[data-hand]"));
  const switches = {};
  form.querySelectorAll("[data-switch]").forEach((button) => { switches[button.getAttribute("data-switch")] = button; });
  const keypad = form.querySelector("[data-keypad]");
  const next = form.querySelector("[data-next]");
  const states = {};
  let active = null;
  const idOf = (hand) => hand.getAttribute("data-hand");
  const nameOf = (hand) => hand.querySelector("legend span").textContent;
  const isOut = (hand) => hand.classList.contains("is-out");

  function showSum(hand) {
    const state = states[idOf(hand)], sum = switches[idOf(hand)].querySelector("[data-switch-sum]");
    if (!state) return;
    if (!isEmpty(hand)) unasked(hand);
    // Points first; the word after the number of cards goes where the button is narrow (the CSS).
    let text = state.points + " · " + state.cards, unit = state.cards === 1 ? " card" : " cards";
    if (isOut(hand)) [text, unit] = [state.points + " · out", ""];
    else if (state.cards === null) [text, unit] = [String(state.points), " · counted"];
    let [value, word] = sum.childNodes;
    if (!word || value.nodeType !== Node.TEXT_NODE) {
      sum.textContent = "";
      value = sum.appendChild(document.createTextNode(""));
      word = sum.appendChild(document.createElement("span"));
      word.className = "unit";
    }
    if (value.data !== text) value.data = text;
    setText(word, unit);
  }
  // The hand chosen, down to its tapped cards, above the keypad: a small phone scrolls a little.
  function reveal(hand) {
    const box = hand.querySelector("[data-chosen]"), bar = form.querySelector("[data-entry-actions]");
    if (!box.getClientRects().length || !bar || !bar.getClientRects().length) return; // gone out, or not shown
    const under = box.getBoundingClientRect().bottom + 8 - bar.getBoundingClientRect().top;
    if (under > 0) window.scrollBy(0, under);
  }
  function activate(hand, show) {
    active = hand;
    hands.forEach((h) => {
      h.classList.toggle("is-active", h === hand);
      switches[idOf(h)].setAttribute("aria-pressed", h === hand ? "true" : "false");
    });
    const name = nameOf(hand), out = isOut(hand);
    keypad.querySelectorAll("[data-add]").forEach((key) => {
      key.disabled = out;
      key.setAttribute("aria-label", key.getAttribute("data-label") + ", " + key.getAttribute("data-points") +
        " points, to " + name);
    });
    if (show) reveal(hand);
  }
  function following(hand) {
    const start = hands.indexOf(hand);
    for (let step = 1; step <= hands.length; step++) {
      const candidate = hands[(start + step) % hands.length];
      if (!isOut(candidate)) return candidate;
    }
    return hand;
  }
  hands.forEach((hand) => {
    states[idOf(hand)] = setupHand(hand, () => { showSum(hand); if (onChange) onChange(); });
    switches[idOf(hand)].addEventListener("click", () => { fold(true); activate(hand, true); });
  });
  // A key takes no focus from a mouse (the keypad is not a form field); a keyboard still reaches it.
  keypad.addEventListener("mousedown", (event) => { if (event.target.closest("[data-add]")) event.preventDefault(); });
  // A key counts the moment a finger lands on it, so the card shows in the very next frame; the
  // click that follows is then skipped. A keyboard's Enter or Space only clicks: that counts too.
  let pressed = null;
  function tapKey(key) {
    if (key && active && !key.disabled) {
      states[idOf(active)].add(key.getAttribute("data-add"));
      warnBeyondDecks(key);
    }
    fold(true);
  }
  keypad.addEventListener("pointerdown", (event) => {
    const key = event.target.closest("[data-add]");
    if (!key || !event.isPrimary || event.button !== 0) return;
    pressed = key;
    tapKey(key);
  });
  keypad.addEventListener("click", (event) => {
    const key = event.target.closest("[data-add]");
    if (key && key === pressed) {
      pressed = null;
      return;
    }
    pressed = null;
    tapKey(key);
  });
  // The decks hold so many of each card: say so at the tap that goes past it, not only at Check.
  function warnBeyondDecks(key) {
    const code = key.getAttribute("data-add"), copies = parseInt(key.getAttribute("data-copies"), 10);
    let tapped = 0;
    hands.forEach((hand) => { if (!isOut(hand)) tapped += states[idOf(hand)].count(code); });
    const warning = active.querySelector("[data-tap-warning]");
    if (tapped <= copies && warning.hidden) return; // nothing to say, nothing said
    warning.hidden = tapped <= copies;
    warning.textContent = tapped > copies ? key.getAttribute("data-label") + ": " + tapped +
      " tapped in all, but the decks in play hold only " + copies + "." : "";
  }
  next.addEventListener("click", () => { fold(true); activate(following(active), true); });

  // A player who did not go out with nothing entered is asked about before anything is kept.
  function isEmpty(hand) {
    const total = hand.querySelector("input[data-total]");
    return !isOut(hand) && states[idOf(hand)].cards === 0 && !(total && total.value.trim());
  }
  function unasked(hand) {
    const warning = hand.querySelector("[data-tap-warning]"), button = switches[idOf(hand)];
    if (button.classList.contains("is-empty")) button.classList.remove("is-empty");
    if (warning.hasAttribute("data-empty")) {
      warning.hidden = true;
      warning.removeAttribute("data-empty");
    }
  }
  function asked() {
    if (!form.querySelector("input[data-went-out]:checked")) return false; // who went out comes first
    const empty = hands.filter(isEmpty);
    empty.forEach((hand) => {
      const name = nameOf(hand), warning = hand.querySelector("[data-tap-warning]");
      switches[idOf(hand)].classList.add("is-empty");
      warning.setAttribute("data-empty", "");
      warning.hidden = false;
      warning.textContent = "Nothing entered for " + name + ": tap the cards left in " + name +
        "'s hand, or type their total.";
    });
    if (empty.length) {
      fold(true);
      activate(empty[0], true);
    }
    return empty.length > 0;
  }

  const outBox = form.querySelector(".went-out");
  const summary = outBox.querySelector("[data-out-summary]");
  const outText = summary.querySelector("[data-out-text]");
  function fold(folded) {
    const checked = form.querySelector("input[data-went-out]:checked");
    const bonus = form.querySelector("input[data-bonus-points]:checked");
    folded = folded && !!checked && !outBox.classList.contains("has-error");
    if (outBox.classList.contains("folded") !== folded) outBox.classList.toggle("folded", folded);
    if (summary.hidden === folded) summary.hidden = !folded;
    if (folded) {
      const how = bonus && bonus.parentNode.textContent.trim();
      const text = checked.parentNode.textContent.trim() + (how ? ": " + how.charAt(0).toLowerCase() + how.slice(1) : " went out");
      if (outText.textContent !== text) outText.textContent = text;
    }
  }
  summary.querySelector("[data-out-change]").addEventListener("click", () => {
    fold(false);
    const checked = form.querySelector("input[data-went-out]:checked");
    if (checked) checked.focus();
  });

  function markOut() {
    const checked = form.querySelector("input[data-went-out]:checked");
    hands.forEach((hand) => {
      const out = checked && checked.value === idOf(hand);
      hand.classList.toggle("is-out", !!out);
      hand.querySelector("[data-out-note]").hidden = !out;
      states[idOf(hand)].render();
    });
    // The one who went out has no cards to tap: go on to the next player.
    if (active && isOut(active)) activate(following(active));
    else if (active) activate(active);
  }
  form.querySelectorAll("input[data-went-out], input[data-bonus-points]").forEach((radio) => {
    radio.addEventListener("change", () => { markOut(); if (active) reveal(active); });
  });
  if (onChange) {
    form.addEventListener("input", onChange);
    form.addEventListener("change", onChange);
  }
  function refresh() {
    hands.forEach((hand) => {
      states[idOf(hand)].refresh();
      unasked(hand);
      hand.querySelector("[data-tap-warning]").hidden = true;
    });
    // A page drawn again with a refusal opens on the first hand with one.
    activate(hands.filter((h) => h.classList.contains("has-error"))[0] || hands[0]);
    markOut();
    fold(true);
  }
  refresh();

  // The hands as the game's actions carry them.
  function read() {
    const checked = form.querySelector("input[data-went-out]:checked");
    const bonus = form.querySelector("input[data-bonus-points]:checked");
    return hands.map((hand) => {
      const id = idOf(hand), field = (name) => form.querySelector("[name='p" + id + "-" + name + "']");
      const counts = {};
      hand.querySelectorAll("input[data-key]").forEach((input) => {
        const n = parseInt(input.value, 10) || 0;
        if (n) counts[input.getAttribute("data-key")] = n;
      });
      const total = field("total") ? number(field("total").value) : null;
      const event = field("event");
      return {
        player: parseInt(id, 10),
        went_out: !!checked && checked.value === id,
        laid_down: !!field("laid_down").checked,
        buys: number(field("buys").value) || 0,
        counts,
        total,
        bonus: checked && checked.value === id && bonus ? bonus.value : "",
        event: !!(event && event.checked),
      };
    });
  }
  return { refresh, asked, read, activate: (id) => activate(hands.find((h) => idOf(h) === String(id))) };
}

// The page scrolls above the fixed keypad, never under it: app.css reserves the bar's usual height
// from the first paint; this makes it exact (a larger text size, a phone's safe area).
export function keepClearOf(bar) {
  function pad() {
    if (!bar.getClientRects().length) return; // hidden: another screen of the game shows
    document.body.style.paddingBottom = (bar.offsetHeight + 16) + "px";
    document.documentElement.style.scrollPaddingBottom = (bar.offsetHeight + 12) + "px"; // a focused field too
  }
  pad();
  window.addEventListener("resize", pad);
  return pad;
}
