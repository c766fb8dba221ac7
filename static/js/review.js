// The check before a hand is kept: each player's cards, points and the total it leads to, drawn in
// the server's review markup (round_screen.html's review template). Points come from the plan.

import { apply, runningTotals } from "./state.js";

function chip(text, className) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

function cardsCell(cell, plan, hand) {
  if (hand.went_out) {
    cell.appendChild(chip("★ went out", "out-mark"));
    const bonus = hand.bonus && plan.outBonuses.get(hand.bonus);
    if (bonus) cell.append(" ", chip("bonus " + bonus.points, "bonus-mark"));
  } else if (hand.total !== null) {
    cell.appendChild(chip("counted by hand", "muted"));
  } else {
    for (const key of plan.data.keys) {
      const n = hand.counts[key.code];
      if (n) cell.append(chip(n > 1 ? key.label + " ×" + n : key.label, "card-chip" + (key.wild ? " wild" : "")), " ");
    }
  }
  if (!hand.went_out && !hand.laid_down) cell.append(" ", chip("stuck", "stuck-mark"));
}

// Fill the review ``section`` for ``hands`` of the round at ``index``; the totals after it (after
// this round, as the standings show them, even when later rounds are scored: a correction).
export function drawReview(section, plan, state, index, hands) {
  const round = plan.rounds[index];
  const after = runningTotals(apply(plan, state, { kind: "hand", round: round.number, hands }))[index];
  const low = Math.min(...after);
  const body = section.querySelector("[data-review-lines]");
  const template = section.querySelector("template[data-review-line]");
  body.textContent = "";
  hands.forEach((hand) => {
    const seat = plan.seatOf(hand.player);
    const line = template.content.firstElementChild.cloneNode(true);
    line.querySelector("[data-slot=name]").textContent = plan.seats[seat].name;
    cardsCell(line.querySelector("[data-slot=cards]"), plan, hand);
    line.querySelector("[data-slot=points]").textContent = plan.points(round, hand);
    line.querySelector("[data-slot=total]").textContent = after[seat];
    if (after[seat] === low) line.classList.add("leader");
    body.appendChild(line);
  });
  section.querySelector("[data-slot=review-title]").textContent = "Check round " + round.number;
  section.querySelector("[data-save]").textContent = "Save round " + round.number;
  return after;
}
