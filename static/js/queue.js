// The queue: every action entered at the table, kept on the phone before it is drawn, sent in
// order with its id (the server applies an id once), and replaced by the server's answer - never
// dropped. An action the server refuses, or one made for a round another phone changed, stays
// first in the queue with the reason until the family fixes, chooses or discards it; nothing
// after it is sent meanwhile, so the order of the table is kept.

import { forget, newId, read, write } from "./store.js";

const LEGACY = "scorekeeper-outbox"; // forms kept by the phone's earlier script
const LIST = "scorekeeper-queue"; // actions kept as one list by the script before this one
// Each action under a key of its own, numbered in the order made: two tabs of the app on one phone
// add and remove their own keys, and never write back a list the other tab changed a moment before.
const PREFIX = "scorekeeper-action:";
const NEXT = "scorekeeper-action-next";

function put(item) { return write(item.key, item); }
function keep(action) {
  const n = read(NEXT, 0) + 1;
  write(NEXT, n);
  const item = Object.assign({ key: PREFIX + String(n).padStart(9, "0") + newId() }, action);
  if (!put(item)) throw new Error("This phone's storage is full: nothing more can be kept.");
  return item;
}

// The list the script before this one kept, taken over in its order (before anything newer is kept);
// with the storage full it stays as it was, and is what is shown.
function takeOver() {
  const list = read(LIST, []);
  try { list.forEach(keep); } catch (e) { return list; }
  if (list.length) forget(LIST);
  return null;
}

export function all() {
  const left = takeOver();
  if (left) return left;
  const items = [], ids = new Set();
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.indexOf(PREFIX) === 0) items.push(read(key, {}));
    }
  } catch (e) { /* storage refused: nothing was kept */ }
  // Ids once each: a tab that moved the old list at the same moment as another kept it twice.
  return items.sort((a, b) => (a.key < b.key ? -1 : 1)).filter((a) => a.id && !ids.has(a.id) && ids.add(a.id));
}
export function ofGame(game) { return all().filter((a) => a.game === game); }

// Keep ``action`` (kind, round, and its fields) for ``game``, made on ``base``: the version of its
// round the server will hold once this phone's own earlier actions on the round are in (each action
// moves a round's version on by one, so another phone's change in between shows as another version).
export function add(game, action, base) {
  takeOver();
  return keep(Object.assign({ id: newId(), game, status: "pending", reason: "", base }, action));
}

function update(id, change) {
  const item = all().find((a) => a.id === id);
  if (item) put(Object.assign(item, change));
}

// The family's answer to a refusal or a conflict.
export function discard(id) {
  const item = all().find((a) => a.id === id);
  if (item) forget(item.key);
  return item;
}

// Every waiting action of one round made again on the version the server holds now, in order (after
// the family has seen the other phone's change and chosen).
export function rebase(game, round, serverVersion) {
  ofGame(game).filter((a) => a.round === round).forEach((a, n) => put(Object.assign(a,
    { base: serverVersion + n, status: "pending", reason: "", theirs: null })));
}

// ``id`` replaced by a corrected action in the same place of the queue (a hand fixed after a refusal).
export function replace(id, action) {
  update(id, Object.assign({}, action, { id: newId(), status: "pending", reason: "" }));
}

let sending = false;

// Send the game's waiting actions in order. ``hooks``: ``url`` (where actions go), ``csrf`` (the
// page's form token), ``answered(state)`` with every state the server sends back, ``changed()``
// after every change to the queue, ``blocked(reason)`` when the server cannot take them now.
// The answer: false when the server could not be reached, true otherwise.
export async function send(game, hooks) {
  if (sending || navigator.onLine === false) return true;
  sending = true;
  try {
    await sendLegacy();
    for (;;) {
      const head = ofGame(game)[0];
      if (!head || head.status !== "pending") break;
      const answer = await post(hooks, head);
      if (answer === false) return false; // no connection: the action stays and is sent later
      if (answer === null) break; // not now (signed out, an error page): it stays too
      hooks.answered(answer.body.state);
      if (answer.body.status === "applied") {
        forget(head.key);
      } else {
        update(head.id, { status: answer.body.status, reason: answer.body.reason || "", by: answer.body.by || "",
          theirs: (answer.body.state.rounds || []).find((r) => r.number === head.round) || null });
      }
      hooks.changed();
    }
    return true;
  } finally {
    sending = false;
  }
}

async function post(hooks, item) {
  const body = { id: item.id, kind: item.kind, round: item.round, base: item.base };
  ["player", "laid_down", "hands"].forEach((field) => { if (field in item) body[field] = item[field]; });
  let response;
  try {
    response = await fetch(hooks.url, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": hooks.csrf, Accept: "application/json" },
    });
  } catch (e) {
    return false;
  }
  const type = response.headers.get("Content-Type") || "";
  if (type.indexOf("application/json") < 0) {
    // The sign-in page (a signed-out phone) or an error page: nothing was applied; keep it.
    hooks.blocked(response.redirected ? "Signed out on this phone: sign in again, and what is kept here is sent." :
      response.status === 400 ? "This page is out of date: reload it to send what is kept here (nothing is lost)." :
        "The server could not take what is kept here just now; it is sent again in a moment.");
    return null;
  }
  const answer = await response.json();
  if (!answer || !answer.state || !answer.status) return null;
  return { body: answer };
}

// Forms the phone's earlier script kept while offline: sent as they were, once, then forgotten.
async function sendLegacy() {
  const items = read(LEGACY, []);
  for (const item of items) {
    const body = new URLSearchParams();
    item.fields.forEach(([name, value]) => body.append(name, value));
    try {
      await fetch(item.url, { method: "POST", body, credentials: "same-origin" });
    } catch (e) {
      return;
    }
    write(LEGACY, read(LEGACY, []).filter((other) => other.id !== item.id));
  }
  if (items.length) forget(LEGACY);
}
