// The standings of the game as the phone holds it: the server's table markup
// (templates/games/_standings_table.html), its rows made again from the blank rows it carries.

import { signed } from "./plan.js";
import { leaders, runningTotals, totals } from "./state.js";

function fill(template, values) {
  const row = template.content.firstElementChild.cloneNode(true);
  Object.entries(values).forEach(([name, text]) => {
    const el = row.querySelector("[data-slot='" + name + "']");
    if (el) el.textContent = text;
  });
  return row;
}

function scoredRow(section, plan, round, index, results, running) {
  const rules = plan.rounds[index];
  const row = fill(section.querySelector("template[data-row=scored]"), { number: rules.number });
  row.setAttribute("data-round", rules.number);
  const head = row.querySelector("th");
  head.title = rules.contract;
  const link = head.querySelector("[data-edit]");
  link.setAttribute("data-edit", rules.number);
  link.setAttribute("aria-label", "Edit round " + rules.number);
  dealerOf(section, head, plan, rules);
  row.querySelectorAll("[data-cell]").forEach((cell, seat) => {
    const result = results[seat];
    cell.querySelector(".pts").textContent = String(result.points);
    if (!result.went_out) cell.querySelector(".out-mark").remove();
    if (result.laid_down || result.went_out) cell.querySelector(".stuck-mark").remove();
    cell.querySelector("[data-slot=run]").textContent = String(running[seat]);
    const buys = cell.querySelector("[data-slot=buys]");
    if (result.buys) buys.textContent = " · " + result.buys + "b";
    else buys.remove();
  });
  return row;
}

function dealerOf(section, head, plan, rules) {
  const dealer = head.querySelector(".dealer"), name = plan.seats[rules.dealer].name;
  const shortName = section.querySelector("thead th[data-seat='" + rules.dealer + "']").textContent;
  dealer.title = "Dealer: " + name;
  dealer.textContent = shortName;
}

function pendingRow(section, plan, index) {
  const rules = plan.rounds[index];
  const row = fill(section.querySelector("template[data-row=pending]"), { number: rules.number, contract: rules.contract });
  row.setAttribute("data-round", rules.number);
  row.querySelector("th").title = rules.contract;
  dealerOf(section, row.querySelector("th"), plan, rules);
  return row;
}

// Draw ``state`` into the standings ``section`` of the game.
export function drawStandings(section, plan, state) {
  const running = runningTotals(state), all = totals(state), lead = new Set(leaders(plan, state));
  const body = section.querySelector("[data-standings] tbody");
  body.textContent = "";
  state.rounds.forEach((round, index) => {
    body.appendChild(round.recorded ? scoredRow(section, plan, round, index, round.results, running[index])
      : pendingRow(section, plan, index));
  });
  section.querySelectorAll("[data-standings] thead th[data-seat]").forEach((th) => {
    th.classList.toggle("leader", lead.has(parseInt(th.getAttribute("data-seat"), 10)));
  });
  section.querySelectorAll("[data-standings] tfoot td[data-seat]").forEach((td) => {
    const seat = parseInt(td.getAttribute("data-seat"), 10);
    td.classList.toggle("leader", lead.has(seat));
    td.querySelector("b").textContent = String(all[seat]);
  });
  const scored = state.rounds.filter((r) => r.recorded);
  const names = [...lead].map((seat) => plan.seats[seat].name).join(" & ");
  const line = section.querySelector("[data-slot=leader-line]");
  line.hidden = !scored.length;
  if (state.status === "finished") line.textContent = (lead.size > 1 ? "Shared win: " : "Winner: ") + names +
    " (" + all[[...lead][0]] + ")";
  else if (scored.length) line.textContent = "Leading after " + scored.length + " of " + state.rounds.length + ": " +
    names + " (" + all[[...lead][0]] + ")";
  const result = section.querySelector("[data-slot=result]");
  result.hidden = state.status !== "finished";
  line.hidden = line.hidden || state.status === "finished"; // the result says it
  if (state.status === "finished") {
    result.querySelector("[data-slot=winners]").textContent = lead.size > 1 ? "Shared win: " + names : names + " wins";
    result.querySelector("[data-slot=winning-total]").textContent = signed(all[[...lead][0]]);
  }
  const undo = section.querySelector("[data-act=undo]");
  const last = scored[scored.length - 1];
  undo.hidden = !last || state.status === "abandoned";
  if (last) {
    undo.querySelector("button").textContent = "Undo round " + last.number;
    undo.querySelector("input[name=number]").value = last.number;
    undo.setAttribute("data-confirm", "Take round " + last.number + " back? Its cards are cleared.");
  }
  section.querySelector("[data-go=round]").hidden = state.status !== "in_progress";
}
