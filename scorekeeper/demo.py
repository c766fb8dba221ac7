"""A demo family's history: many finished games that obey each preset's rules.

Rows are written with bulk inserts (ids worked out beforehand) so that ten thousand games take
seconds, not minutes; the per-player summaries are written alongside, by the same
``games.summary.summary_rows`` that keeps a played game's in step.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime, time, timedelta

import sqlalchemy as sa
from sqlalchemy import func, insert

from . import rules
from .extensions import db
from .families import commit_for, family_players
from .games.summary import summary_rows
from .history import kept, ratings
from .models import FINISHED, Family, Game, GameRound, Player, PlayerGame, Result, Seat, utcnow

DEMO_PLAYERS = ("Grandma Rose", "Grandpa Joe", "Mum", "Dad", "Lily", "Sam", "Aunt May", "Uncle Ben")
CHUNK = 250  # games per round trip


def _next_id(model) -> int:
    return (db.session.execute(db.select(func.max(model.id))).scalar() or 0) + 1


def _leftover(rng: random.Random, variant, round_, decks, remaining: dict[str, int], laid_down: bool, buys: int):
    """A plausible hand left at the end: few cards for a player who is down, many for one who is stuck."""
    most = round_.cards_dealt + buys * variant.cards_per_buy
    size = rng.randint(1, 6) if laid_down else rng.randint(max(1, round_.cards_dealt - 4), most)
    counts: dict[str, int] = {}
    for _ in range(size):
        codes = [c for c, n in remaining.items() if n > 0]
        if not codes:
            break
        code = rng.choices(codes, weights=[remaining[c] for c in codes])[0]
        remaining[code] -= 1
        counts[code] = counts.get(code, 0) + 1
    return counts


def seed_demo(family: Family, games: int, seed: int | None = None, end: datetime | None = None) -> int:
    """Add ``games`` finished games across all presets to ``family``; returns how many were added."""
    rng = random.Random(seed)
    saved = {p.name.casefold(): p for p in family_players(family)}
    players = {}
    for name in DEMO_PLAYERS:
        players[name] = saved.get(name.casefold()) or Player(family_id=family.id, name=name)
        db.session.add(players[name])
    db.session.flush()  # player ids for the rows below; one commit at the end

    ids = {m: _next_id(m) for m in (Game, Seat, GameRound, Result, PlayerGame)}
    variants = list(rules.VARIANTS.values())
    day = (end or utcnow()).date()
    # Walk back in time so the newest demo game is the most recent.
    dates = []
    for _ in range(games):
        dates.append(day)
        day -= timedelta(days=rng.choice((0, 1, 2, 3, 6)))
    dates.reverse()

    rows: dict[type, list[dict]] = {m: [] for m in ids}
    for index, played_on in enumerate(dates):
        _one_game(rng, family, variants, players, played_on, ids, rows)
        if (index + 1) % CHUNK == 0:
            _flush(rows)
    _flush(rows)
    _advance_sequences()
    if dates:
        ratings.rate_from(family.id, datetime.combine(dates[0], time.min))
        kept.rebuild(family.id)
    commit_for(family.id)
    return games


def _advance_sequences() -> None:
    """PostgreSQL hands out ids from sequences that the explicit ids above did not move."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    for model in (Game, Seat, GameRound, Result, PlayerGame):
        table = model.__tablename__
        db.session.execute(sa.text(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
        ))


def _one_game(rng, family, variants, players, played_on, ids, rows) -> None:
    variant = rng.choice(variants)
    count = rng.randint(max(variant.min_players, 3), min(variant.max_players, 6))
    seated = rng.sample(list(players.values()), count)
    decks = variant.decks_for(count)
    skip = variant.can_skip_first_hand and rng.random() < 0.3
    first_dealer = rng.randrange(count)
    started = datetime.combine(played_on, time(hour=rng.randint(13, 20), minute=rng.randrange(60)))
    game_id = ids[Game]
    ids[Game] += 1
    numbers = variant.hand_numbers(skip)
    finished = started + timedelta(minutes=12 * len(numbers))
    rows[Game].append({
        # A fresh uid even with a seed: the seed repeats the games' content, not their identity.
        "id": game_id, "uid": uuid.uuid4().hex, "family_id": family.id,
        "variant_key": variant.key, "rules": variant.to_dict(), "skip_first_hand": skip,
        "first_dealer": first_dealer, "status": FINISHED, "started_at": started, "finished_at": finished,
    })
    for position, player in enumerate(seated):
        rows[Seat].append({"id": ids[Seat], "game_id": game_id, "player_id": player.id, "position": position})
        ids[Seat] += 1

    recorded = []  # each hand's results, for the summary rows
    for position, (number, dealer) in enumerate(rules.schedule(numbers, first_dealer, count)):
        round_ = variant.round(number)
        round_id = ids[GameRound]
        ids[GameRound] += 1
        rows[GameRound].append({
            "id": round_id, "game_id": game_id, "position": position, "number": number, "dealer": dealer,
            "recorded_at": started + timedelta(minutes=12 * (position + 1)), "version": 1,
        })
        remaining = {k.code: variant.copies(k, decks) for k in variant.keys}
        out = rng.randrange(count)
        recorded.append([])
        for seat, player in enumerate(seated):
            hand = _demo_hand(rng, variant, round_, decks, remaining, player.id, seat == out)
            points, bonus = rules.hand_score(variant, hand, number)
            rows[Result].append({
                "id": ids[Result], "round_id": round_id, "player_id": player.id, "position": seat,
                "buys": hand.buys, "laid_down": hand.laid_down, "went_out": hand.went_out,
                "cards": rules.cards_text(variant, hand.counts), "hand_total": None,
                "bonus_code": hand.bonus_code, "bonus": bonus, "points": points,
            })
            ids[Result] += 1
            recorded[-1].append({"points": points, "went_out": hand.went_out, "laid_down": hand.laid_down,
                                 "buys": hand.buys, "marked": True})
    player_ids = [player.id for player in seated]
    for row in summary_rows(family.id, game_id, variant.key, FINISHED, started, player_ids, recorded):
        rows[PlayerGame].append({"id": ids[PlayerGame], **row})
        ids[PlayerGame] += 1


def _demo_hand(rng, variant, round_, decks, remaining: dict[str, int], player_id: int, went_out: bool) -> rules.Hand:
    """One player's plausible end of a hand: buys, laid down or stuck, the cards left."""
    buys = min(round_.buy_limit, int(rng.expovariate(1.3)))
    laid_down = went_out or rng.random() < 0.65
    if laid_down and not variant.down_may_buy and not went_out:
        buys = min(buys, 1)
    if went_out:
        chosen = rng.choice(variant.bonuses) if variant.bonuses and rng.random() < 0.06 else None
        return rules.Hand(player_id, went_out=True, laid_down=True, buys=buys, bonus_code=chosen.code if chosen else "")
    counts = _leftover(rng, variant, round_, decks, remaining, laid_down, buys)
    return rules.Hand(player_id, laid_down=laid_down, buys=buys, counts=counts)


def _flush(rows: dict[type, list[dict]]) -> None:
    for model in (Game, Seat, GameRound, Result, PlayerGame):
        if rows[model]:
            db.session.execute(insert(model), rows[model])
            rows[model].clear()
