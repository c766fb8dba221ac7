// Scorekeeper's script, as ES modules without a build step. Progressive enhancement only: every
// page works without it. With it: the game lives on the phone (game.js), the card keypad, the
// seating, the paper grid's running totals, the live scoreboard, sharing a recap, the screen kept
// awake, and the service worker that keeps the app on the phone for when the connection drops.
// The game and the card entry are loaded with this file (a tap on the round screen must find them
// ready); the other pages' parts only where a page has them.
//
//   plan.js  the game plan's lookups       state.js  the game with queued actions laid over it
//   queue.js actions kept and sent once    checks.js a hand checked before it is kept
//   game.js  the game's screens and routes round.js, standings.js, review.js, sync.js: its drawing
//   keypad.js the card entry               store.js  the phone's storage

import { setupGame } from "./game.js";
import "./https_hint.js"; // on plain HTTP, says once what needs HTTPS
import * as keypad from "./keypad.js";
import { all } from "./queue.js";
import { afterFrame, forget } from "./store.js";

// The modules arrived: early.js leaves the page as the script sets it up (it undoes that otherwise).
document.documentElement.setAttribute("data-script", "ready");

document.addEventListener("submit", (event) => {
  const message = event.target.getAttribute("data-confirm");
  if (message && !event.defaultPrevented && !window.confirm(message)) event.preventDefault();
});

// Signing out makes the phone forget what it kept (a shared phone): never without saying so.
document.addEventListener("submit", (event) => {
  const waiting = all().length;
  if (!waiting || event.defaultPrevented || !/\/logout/.test(event.target.getAttribute("action") || "")) return;
  const what = waiting === 1 ? "1 entry is" : waiting + " entries are";
  if (!window.confirm(what + " saved on this phone but not sent yet. Signing out forgets them. Sign out anyway?")) {
    event.preventDefault();
  }
});

// The card-entry page of the server (a round edited from the standings page): its keypad, and what
// is typed kept on the phone until the round it was typed for changes.
function setupEntryPage({ fillForm, keepClearOf, loadDraft, saveDraft, setupEntry }, form) {
  const key = "scorekeeper-draft:" + form.getAttribute("action");
  const version = (form.querySelector("input[name=version]") || {}).value || "";
  const draft = loadDraft(key);
  if (draft && draft.version === version && !form.querySelector(".errors")) fillForm(form, draft.fields);
  else if (draft) forget(key);
  const keepDraft = () => saveDraft(key, form, { version });
  const entry = setupEntry(form, afterFrame(keepDraft));
  document.addEventListener("visibilitychange", () => { if (document.hidden) keepDraft(); });
  window.addEventListener("pagehide", keepDraft);
  form.addEventListener("submit", (event) => {
    if (event.submitter && event.submitter.value === "review" && entry.asked()) event.preventDefault();
  });
  keepClearOf(form.querySelector("[data-entry-actions]"));
}

// The phone's copy of the game's page, for a reload or a reopened browser without a connection.
function keepCopy(url) {
  caches.keys().then((names) => {
    const name = names.find((n) => n.indexOf("scorekeeper-") === 0);
    if (!name) return null;
    return caches.open(name).then((cache) => cache.match(url, { ignoreVary: true })
      .then((hit) => hit || cache.add(url)));
  }).catch(() => { /* storage full or refused: the pages seen online are kept */ });
}

// ``selector``'s elements, each set up by ``name`` of ``module`` (loaded only where there are some).
function each(selector, module, name) {
  const found = document.querySelectorAll(selector);
  if (found.length) import(module).then((m) => found.forEach((el) => m[name](el)));
}

const game = document.querySelector("[data-game]");
if (game) setupGame(game);
else document.querySelectorAll("form[data-entry]").forEach((form) => setupEntryPage(keypad, form));
each("[data-seats]", "./seats.js", "setupSeats");
each("form[data-paper]", "./paper.js", "setupPaper");
each("[data-wake-lock]", "./wakelock.js", "setupWakeLock");
each("[data-share]", "./share.js", "setupShare");
each("[data-live-board]", "./board.js", "setupLiveBoard");
if (document.querySelector("[data-fit]")) import("./names.js").then((m) => m.setupNames(document));
if (document.querySelector("time[data-local]")) import("./localtime.js").then((m) => m.setupLocalTimes(document));

const worker = document.documentElement.getAttribute("data-service-worker");
if (worker && "serviceWorker" in navigator) {
  navigator.serviceWorker.register(worker)
    .then(() => navigator.serviceWorker.ready)
    .then(() => { if (game) keepCopy(location.pathname); })
    .catch(() => { /* plain HTTP: no copy on the phone; the open page keeps the game */ });
}
