// The game as the phone shows it: the server's last state with the phone's queued actions laid
// over it, in order. Points come from the plan's tables (Plan.points); nothing here is a rule of
// its own: a buy adds one, a hand replaces the round's results, an undo clears them.

function copy(value) { return JSON.parse(JSON.stringify(value)); }

// The round being played: the first in playing order without a result.
export function currentIndex(state) {
  return state.rounds.findIndex((r) => !r.recorded);
}

// Buys a player made in the rounds played before the one at ``index``.
export function usedBefore(state, index, playerId) {
  let used = 0;
  for (let i = 0; i < index; i++) used += resultOf(state.rounds[i], playerId).buys;
  return used;
}

export function resultOf(round, playerId) {
  return round.results.find((r) => r.player === playerId);
}

// Each seat's running total after every scored round: [[...seats], ...] in playing order,
// with null for a round not scored.
export function runningTotals(state) {
  const seats = state.rounds[0].results.length;
  let totals = new Array(seats).fill(0);
  return state.rounds.map((round) => {
    if (!round.recorded) return null;
    totals = totals.map((t, i) => t + round.results[i].points);
    return totals;
  });
}

export function totals(state) {
  const rows = runningTotals(state).filter(Boolean);
  return rows.length ? rows[rows.length - 1] : new Array(state.rounds[0].results.length).fill(0);
}

// The seats with the lowest total (the plan says the lowest wins): the leader, or the winners.
export function leaders(plan, state) {
  if (!state.rounds.some((r) => r.recorded)) return [];
  const all = totals(state);
  const best = plan.data.lowest_wins ? Math.min(...all) : Math.max(...all);
  return all.map((t, seat) => (t === best ? seat : -1)).filter((seat) => seat >= 0);
}

// A hand as the state keeps it, with its points and bonus codes as the server stores them.
export function storedHand(plan, round, hand) {
  const codes = [];
  if (hand.went_out && hand.bonus) codes.push(hand.bonus);
  if (hand.event && plan.event) codes.push(plan.event.code);
  return {
    player: hand.player,
    buys: hand.buys,
    laid_down: hand.laid_down || hand.went_out,
    went_out: hand.went_out,
    counts: hand.went_out || hand.total !== null ? {} : Object.assign({}, hand.counts),
    total: hand.went_out ? null : hand.total,
    bonus: codes.join(" "),
    points: plan.points(round, hand),
  };
}

// ``state`` with ``action`` laid over it; an action that no longer fits (its round already
// scored, say) changes nothing here and waits for the server's answer.
export function apply(plan, state, action) {
  const next = copy(state);
  const index = next.rounds.findIndex((r) => r.number === action.round);
  if (index < 0) return next;
  const round = next.rounds[index];
  const live = !round.recorded && index === currentIndex(next);
  if (action.kind === "buy" || action.kind === "unbuy") {
    const result = resultOf(round, action.player);
    if (!live || !result) return next;
    if (action.kind === "buy" && result.laid_down && !plan.data.down_may_buy) return next;
    const limit = plan.limit(plan.rounds[index], usedBefore(next, index, action.player));
    if (action.kind === "buy" && result.buys < limit) result.buys += 1;
    if (action.kind === "unbuy" && result.buys > 0) result.buys -= 1;
  } else if (action.kind === "down") {
    const result = resultOf(round, action.player);
    if (live && result) result.laid_down = action.laid_down;
  } else if (action.kind === "hand") {
    if (!round.recorded && !live) return next;
    round.results = action.hands.map((hand) => storedHand(plan, plan.rounds[index], hand));
    round.recorded = true;
    if (next.rounds.every((r) => r.recorded)) next.status = "finished";
  } else if (action.kind === "undo") {
    const last = next.rounds.map((r) => r.recorded).lastIndexOf(true);
    if (last !== index) return next;
    round.recorded = false;
    round.results.forEach((r) => Object.assign(r, { went_out: false, counts: {}, total: null, bonus: "", points: 0 }));
    if (next.status === "finished") next.status = "in_progress";
  }
  return next;
}

// What the phone shows: the server's state and every queued action of this game it does not
// hold yet (an action whose answer was lost is named in ``applied`` and not counted twice).
export function shown(plan, server, actions) {
  const applied = new Set(server.applied || []);
  return actions.filter((a) => !applied.has(a.id)).reduce((state, action) => apply(plan, state, action), server);
}
