// The paper grid: each player's total so far, to compare with the sheet's. The numbers are the
// ones typed; the going-out score of each round is the one the server wrote on it. On a sheet of
// running totals ("sheet" = running) the total so far is the last number typed in each column.

import { signed } from "./plan.js";

export function setupPaper(form) {
  const foot = form.querySelector("[data-paper-totals]");
  if (!foot) return;
  const cells = foot.querySelectorAll("[data-total]");
  const scored = (form.querySelector("[data-scored-totals]").getAttribute("data-scored-totals") || "")
    .split(",").map((n) => parseInt(n, 10) || 0);
  function points(text) {
    const raw = text.replace(/\s+/g, "").replace(/^[\u2212\u2013]/, "-");
    // The forms rules.typed.read_whole takes ("5.0" is 5); what the server cannot read counts nothing.
    const whole = /^([-+]?\d{1,6})(?:[.,]0{1,2})?$/.exec(raw);
    return whole ? parseInt(whole[1], 10) : 0;
  }
  function sum() {
    const running = (form.querySelector("input[name=sheet]:checked") || {}).value === "running";
    const totals = Array.from(cells, (_, column) => (running ? scored[column] || 0 : 0));
    form.querySelectorAll("tbody.paper-round").forEach((round) => {
      const out = parseInt(round.getAttribute("data-out-points"), 10) || 0;
      round.querySelectorAll(".cells td").forEach((td, column) => {
        const typed = td.querySelector("[data-cell]"), tapped = td.querySelector("input[type=radio]:checked");
        if (!typed) {
          if (!running) totals[column] += parseInt(td.getAttribute("data-points"), 10) || 0;
        } else if (typed.value.trim()) {
          totals[column] = running ? points(typed.value) : totals[column] + points(typed.value);
        } else if (tapped) {
          totals[column] += out;
        }
      });
    });
    cells.forEach((cell, column) => { cell.textContent = signed(totals[column]); });
  }
  form.addEventListener("input", sum);
  form.addEventListener("change", sum);
  sum();
}
