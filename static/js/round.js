// The round screen of any round, drawn from the plan and the state on the phone: the markup is the
// server's (templates/games/_round.html); this fills in its data-slot elements and player rows.

import { sentence } from "./plan.js";
import { leaders, resultOf, totals, usedBefore } from "./state.js";

function slot(root, name) { return root.querySelector("[data-slot='" + name + "']"); }
function set(root, name, text) { const el = slot(root, name); if (el) el.textContent = text; }

// What each player may still buy in the round at ``index``: a number, or null for one who has
// laid down where the rules say they may not buy.
export function buysLeft(plan, state, index) {
  const round = state.rounds[index], left = {};
  for (const seat of plan.seats) {
    const result = resultOf(round, seat.id);
    const limit = plan.limit(plan.rounds[index], usedBefore(state, index, seat.id));
    left[seat.id] = result.laid_down && !plan.data.down_may_buy ? null : Math.max(limit - result.buys, 0);
  }
  return left;
}

function drawHead(root, plan, index) {
  const round = plan.rounds[index], last = plan.rounds[plan.rounds.length - 1];
  set(root, "round-no", "Round " + round.number + " of " + last.number);
  root.querySelector("#contract").textContent = sentence(round.contract);
  set(root, "melds", round.melds);
  set(root, "min-cards", round.min_cards);
  set(root, "cards-dealt", round.cards_dealt);
  set(root, "buy-limit", round.buy_limit);
  set(root, "buys-fact", round.buys_fact);
  set(root, "dealer", plan.seats[round.dealer].name);
  set(root, "first-player", plan.seats[round.first].name);
  const upcoming = plan.rounds.slice(index + 1, index + 4);
  const line = slot(root, "upcoming");
  line.hidden = !upcoming.length;
  line.textContent = "Next to deal: " + upcoming.map((r) => plan.seats[r.dealer].name + " (round " + r.number + ")").join(", ");
  root.querySelectorAll("[data-reminder]").forEach((item) => {
    const found = round.reminders.find((r) => r.topic === item.getAttribute("data-reminder"));
    if (found) slot(item, "text").textContent = found.text;
  });
}

function drawRow(row, plan, state, index, seat, left, lead, sums) {
  const round = state.rounds[index], result = resultOf(round, seat.id);
  const limit = plan.limit(plan.rounds[index], usedBefore(state, index, seat.id));
  row.classList.toggle("leader", lead);
  row.classList.toggle("no-buying", left === null);
  row.querySelector(".badge").hidden = plan.rounds[index].dealer !== plan.seatOf(seat.id);
  slot(row, "total").textContent = sums[plan.seatOf(seat.id)];
  const count = row.querySelector(".buy-count");
  count.textContent = result.buys + "/" + limit;
  count.classList.toggle("full", !left);
  row.querySelector("[data-act=unbuy] button").disabled = result.buys === 0;
  const buy = row.querySelector("[data-act=buy] button");
  if (left) buy.removeAttribute("aria-disabled");
  else buy.setAttribute("aria-disabled", "true"); // a tap still says why (game.js)
  const toggle = row.querySelector("[data-act=down] button");
  toggle.classList.toggle("on", result.laid_down);
  toggle.textContent = result.laid_down ? "Down ✓" : "Down?";
  toggle.setAttribute("aria-label", seat.name + (result.laid_down ? " has laid down (tap to undo)" : " has not laid down (tap when they do)"));
  row.querySelector("[data-act=down] input[name=laid_down]").value = result.laid_down ? "0" : "1";
  row.querySelectorAll(".row-message").forEach((message) => message.remove()); // said before this draw
}

// Why a buy for ``playerId`` is refused in the round at ``index`` (the rules' words), or "".
export function buyRefusal(plan, state, index, playerId) {
  const left = buysLeft(plan, state, index)[playerId], name = plan.name(playerId);
  if (left === null) return plan.say("down_no_buy", { name });
  if (left > 0) return "";
  const refusal = plan.refusal(plan.rounds[index], usedBefore(state, index, playerId));
  return plan.say(refusal.message, { ...refusal.values, name });
}

// Draw the round at ``index`` of ``state`` into the round screen ``root``; ``note`` is a refusal
// to show in a player's row ({player, text}).
export function drawRound(root, plan, state, index, note) {
  drawHead(root, plan, index);
  const left = buysLeft(plan, state, index), lead = new Set(leaders(plan, state)), sums = totals(state);
  plan.seats.forEach((seat, position) => {
    const row = root.querySelector("[data-player='" + seat.id + "']");
    if (row) drawRow(row, plan, state, index, seat, left[seat.id], lead.has(position), sums);
  });
  slot(root, "lead-key").hidden = lead.size === 0;
  const row = note && root.querySelector("[data-player='" + note.player + "']");
  if (row) {
    const message = document.createElement("p");
    message.className = "row-message";
    message.setAttribute("role", "alert");
    message.textContent = note.text;
    row.appendChild(message);
  }
  const buying = root.querySelector("#buys-left");
  if (buying) {
    buying.textContent = "Buys left: " + plan.seats.map((seat) => seat.name + " " +
      (left[seat.id] === null ? "laid down" : left[seat.id] || "none")).join(", ") + ".";
  }
  const down = root.querySelector("#down-no-buy");
  if (down) {
    const names = plan.seats.filter((seat) => resultOf(state.rounds[index], seat.id).laid_down).map((s) => s.name);
    down.hidden = !names.length;
    down.textContent = names.length ? "Laid down, so not buying: " + names.join(", ") + "." : "";
  }
}
