// The queue: every action entered at the table, kept on the phone before it is drawn, sent in
// order with its id (the server applies an id once), and replaced by the server's answer - never
// dropped. An action the server refuses, or one made for a round another phone changed, stays
// first in the queue with the reason until the family fixes, chooses or discards it; nothing
// after it is sent meanwhile, so the order of the table is kept.

import { forget, newId, QUEUE, read, write } from "./store.js";

const LEGACY = "scorekeeper-outbox"; // forms kept by the phone's earlier script

export function all() { return read(QUEUE, []); }
function save(items) { return write(QUEUE, items); }
export function ofGame(game) { return all().filter((a) => a.game === game); }

// Keep ``action`` (kind, round, and its fields) for ``game``, made on ``base``: the version of its
// round the server will hold once this phone's own earlier actions on the round are in (each action
// moves a round's version on by one, so another phone's change in between shows as another version).
export function add(game, action, base) {
  const item = Object.assign({ id: newId(), game, status: "pending", reason: "", base }, action);
  const items = all();
  items.push(item);
  if (!save(items)) throw new Error("This phone's storage is full: nothing more can be kept.");
  return item;
}

function update(id, change) {
  save(all().map((a) => (a.id === id ? Object.assign({}, a, change) : a)));
}

// The family's answer to a refusal or a conflict.
export function discard(id) {
  const item = all().find((a) => a.id === id);
  save(all().filter((a) => a.id !== id));
  return item;
}

// Every waiting action of one round made again on the version the server holds now, in order (after
// the family has seen the other phone's change and chosen).
export function rebase(game, round, serverVersion) {
  let n = 0;
  save(all().map((a) => (a.game === game && a.round === round
    ? Object.assign({}, a, { base: serverVersion + n++, status: "pending", reason: "", theirs: null })
    : a)));
}

// ``id`` replaced by a corrected action in the same place of the queue (a hand fixed after a refusal).
export function replace(id, action) {
  save(all().map((a) => (a.id === id ? Object.assign({}, a, action, { id: newId(), status: "pending", reason: "" }) : a)));
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
        save(all().filter((a) => a.id !== head.id));
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
