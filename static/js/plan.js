// The game plan (rules.plan on the server): every number of every round, looked up here.
// Nothing in this file decides a rule; it reads the tables the rules core made.

export class Plan {
  constructor(data) {
    this.data = data;
    this.game = data.game;
    this.seats = data.seats;
    this.rounds = data.rounds;
    this.keys = new Map(data.keys.map((key) => [key.code, key]));
    this.outBonuses = new Map(data.out_bonuses.map((b) => [b.code, b]));
    this.event = data.event;
  }

  round(number) { return this.rounds.find((r) => r.number === number); }
  seatOf(playerId) { return this.seats.findIndex((s) => s.id === playerId); }
  name(playerId) { return this.seats[this.seatOf(playerId)].name; }

  // A player's buy limit in a round, after ``usedBefore`` buys in the game's earlier rounds.
  limit(round, usedBefore) {
    const table = round.limits;
    return table[Math.min(usedBefore, table.length - 1)];
  }

  // What refuses one buy more to a player at that limit: the message's key and values, no name.
  refusal(round, usedBefore) {
    const table = round.refusals;
    return table[Math.min(usedBefore, table.length - 1)];
  }

  // The most cards a hand can hold at the end of ``round`` after ``buys`` buys.
  mostCards(round, buys) {
    const table = round.most_cards;
    return table[Math.min(Math.max(buys, 0), table.length - 1)];
  }

  // Whether cards left in a hand can add up to ``total`` in ``round`` (null: the server decides).
  totalMade(round, total) {
    if (round.totals === null) return null;
    const digit = round.totals.length - 1 - Math.floor(total / 4);
    if (digit < 0) return false;
    return ((parseInt(round.totals[digit], 16) >> (total % 4)) & 1) === 1;
  }

  // A hand's points: the card points looked up and added, or the typed total, or the
  // going-out score with its bonus; an event bonus anyone can earn on top.
  points(round, hand) {
    const event = hand.event && this.event ? this.event.points : 0;
    if (hand.went_out) {
      const bonus = hand.bonus && this.outBonuses.has(hand.bonus) ? this.outBonuses.get(hand.bonus).points : 0;
      return round.out_points + bonus + event;
    }
    if (hand.total !== null && hand.total !== undefined) return hand.total + event;
    let sum = 0;
    for (const [code, n] of Object.entries(hand.counts || {})) sum += this.keys.get(code).points * n;
    return sum + event;
  }

  // The plan's words for a refusal, filled in.
  say(name, values) {
    return this.data.messages[name].replace(/\{(\w+)\}/g, (_, field) => String(values[field]));
  }
}

// "two sets of 3" -> "Two sets of 3": the first letter only, as the server's ``sentence`` filter.
export function sentence(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

// A negative number with a true minus sign, as the server writes it.
export function signed(n) { return String(n).replace("-", "\u2212"); }
