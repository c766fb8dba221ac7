// What the phone holds that the server does not have yet, said at the top of every screen of the
// game: how much is waiting, a refusal with the server's reason (fix it or discard it), or a round
// another phone changed meanwhile, both versions side by side for the family to choose.

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(text, onClick, primary) {
  const b = el("button", "btn btn-small" + (primary ? " btn-primary" : ""), text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// A short name of an action, as the list of what waits shows it.
export function labelOf(plan, action) {
  const name = action.player ? plan.name(action.player) : "";
  switch (action.kind) {
    case "buy": return "Buy for " + name;
    case "unbuy": return "Take back a buy from " + name;
    case "down": return name + (action.laid_down ? " has laid down" : " has not laid down");
    case "undo": return "Undo round " + action.round;
    default: return "Round " + action.round + " cards";
  }
}

function pointsLine(plan, results) {
  return results.map((r) => plan.name(r.player) + " " + r.points).join(" · ");
}

function conflictBox(plan, head, actions) {
  const box = el("div", "flash flash-error conflict");
  box.setAttribute("role", "alert");
  box.appendChild(el("b", "", "Two versions of round " + head.round));
  box.appendChild(el("p", "", head.reason.replace(/\.$/, "") + (head.by ? " (by " + head.by + ")." : ".")));
  const list = el("dl", "versions");
  const theirs = head.theirs;
  list.append(el("dt", "", "On the other phone"),
    el("dd", "", theirs && theirs.recorded ? pointsLine(plan, theirs.results) : "Not scored yet (buys or marks changed)"));
  if (head.kind === "hand") {
    const round = plan.round(head.round);
    const mine = head.hands.map((h) => ({ player: h.player, points: plan.points(round, h) }));
    list.append(el("dt", "", "On this phone"), el("dd", "", pointsLine(plan, mine)));
  } else {
    list.append(el("dt", "", "On this phone"), el("dd", "", labelOf(plan, head)));
  }
  box.appendChild(list);
  const choices = el("p", "choices");
  choices.append(button("Use this phone's", () => actions.useMine(head), true), " ");
  if (head.kind === "hand") choices.append(button("Change this phone's", () => actions.change(head)), " ");
  choices.append(button(theirs && theirs.recorded ? "Keep the other phone's" : "Discard this phone's", () => actions.discard(head)));
  box.appendChild(choices);
  return box;
}

function refusedBox(plan, head, actions) {
  const box = el("div", "flash flash-error refused");
  box.setAttribute("role", "alert");
  box.appendChild(el("p", "", "Not taken: " + labelOf(plan, head) + ". " + head.reason));
  const choices = el("p", "choices");
  if (head.kind === "hand") choices.append(button("Fix it", () => actions.change(head), true), " ");
  choices.append(button("Discard it", () => actions.discard(head)));
  box.appendChild(choices);
  return box;
}

// Draw the sync area ``box``: ``items`` are the game's queued actions, ``note`` a line to add
// (no connection, signed out), ``actions`` what the buttons do, ``said`` what the last action did.
// Its first line is one line high whatever it says, and there from the first paint (app.css): what a
// tap queues shows there and goes once the server has it, and nothing below it moves. What needs
// the family (a refusal, two versions of a round) and the note come below it.
export function drawSync(box, plan, items, note, actions, said) {
  box.textContent = "";
  const waiting = items.filter((a) => a.status === "pending");
  const line = el("div", "sync-line");
  line.setAttribute("role", "status");
  if (waiting.length) {
    line.classList.add("flash", "outbox-list");
    const list = el("details"), title = el("summary");
    title.append(el("b", "", "Saved on this phone — will send"), el("span", "sync-count", " (" + waiting.length + ")"));
    const names = el("ul");
    waiting.forEach((a) => names.appendChild(el("li", "", labelOf(plan, a))));
    list.append(title, names);
    line.appendChild(list);
  } else if (said) {
    line.classList.add("flash", "flash-success");
    line.textContent = said;
  } else if (!items.length) {
    line.classList.add("all-saved");
    line.textContent = "All saved";
  }
  box.appendChild(line);
  const head = items[0];
  if (head && head.status === "conflict") box.appendChild(conflictBox(plan, head, actions));
  else if (head && head.status === "refused") box.appendChild(refusedBox(plan, head, actions));
  if (note) box.appendChild(el("p", "flash note", note));
}
