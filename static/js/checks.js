// A round's hands checked before the phone keeps them, with the rules' own words (the plan's
// messages) and the plan's ceilings. The server checks again with the rules core when the hand
// arrives; these only spare the family a refusal later.

import { usedBefore } from "./state.js";

// Why no cards make ``total``: the plan's highest and lowest totals and the cards' step, compared.
function whyNot(plan, round, total) {
  if (total > round.totals_high) return plan.say("why_too_high", { cards: round.max_hand, high: round.totals_high });
  if (total < round.totals_low) return plan.say("why_too_low", { low: round.totals_low });
  const step = plan.data.card_step;
  return step > 1 ? plan.say("why_step", { step }) : plan.say("why_none", {});
}

function times(n) { return n === 1 ? "once" : n + " times"; }
function held(hand) { return Object.values(hand.counts || {}).reduce((sum, n) => sum + Math.max(n, 0), 0); }

function handProblems(plan, round, hand, limit, someoneOut) {
  const name = plan.name(hand.player), out = [], cards = held(hand);
  if (hand.buys > limit) out.push(limit ? plan.say("buys_over", { name, times: times(limit) }) : plan.say("no_buys", { name }));
  if (hand.went_out) {
    if (cards || hand.total !== null) out.push(plan.say("out_no_cards", { name }));
    return out;
  }
  if (cards && hand.total !== null) out.push(plan.say("cards_and_total", {}));
  else if (!cards && hand.total === null && someoneOut) out.push(plan.say("nothing_entered", { name }));
  if (hand.total !== null) {
    if (!(hand.total >= 1 && hand.total <= round.max_points)) out.push(plan.say("total_range", {}));
    else if (plan.totalMade(round, hand.total) === false) {
      out.push(plan.say("total_not_made", { total: hand.total, number: round.number, why: whyNot(plan, round, hand.total) }));
    }
  }
  for (const [code, n] of Object.entries(hand.counts || {})) {
    const key = plan.keys.get(code);
    if (n > key.copies) out.push(plan.say("copies_over", { label: key.label, n, available: key.copies }));
  }
  const most = plan.mostCards(round, round.most_buys), could = plan.mostCards(round, hand.buys);
  if (cards > most) {
    out.push(plan.say("held_over_round", { held: cards, number: round.number, dealt: round.cards_dealt,
      buys: round.most_buys, per_buy: plan.data.cards_per_buy, most }));
  } else if (cards > could) {
    const bought = hand.buys + (hand.buys === 1 ? " buy" : " buys");
    out.push(plan.say("held_over_buys", { held: cards, name, bought, dealt: round.cards_dealt,
      per_buy: plan.data.cards_per_buy, could }));
  }
  return out;
}

// {players: {id: [words]}, table: [words]}; nothing in either when the hands can be kept.
export function roundProblems(plan, state, index, hands) {
  const round = plan.rounds[index];
  const outs = hands.filter((h) => h.went_out).length;
  const table = outs === 1 ? [] : [plan.say(outs ? "one_out" : "choose_out", {})];
  const players = {};
  for (const hand of hands) {
    const limit = plan.limit(round, usedBefore(state, index, hand.player));
    players[hand.player] = handProblems(plan, round, hand, limit, outs > 0);
  }
  const across = {};
  hands.filter((h) => !h.went_out).forEach((h) => {
    for (const [code, n] of Object.entries(h.counts || {})) across[code] = (across[code] || 0) + n;
  });
  for (const key of plan.data.keys) {
    const alone = hands.some((h) => !h.went_out && (h.counts[key.code] || 0) > key.copies);
    if ((across[key.code] || 0) > key.copies && !alone) {
      table.push(plan.say("table_copies_over", { label: key.label, n: across[key.code], available: key.copies }));
    }
  }
  return { players, table, any: table.length > 0 || Object.values(players).some((p) => p.length) };
}
