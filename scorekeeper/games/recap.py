"""A finished game's game-night recap (``rules.recap``) from its rows, with the family records
broken that evening."""

from __future__ import annotations

from datetime import date, timedelta

from ..extensions import db
from ..history.records import kept_records
from ..history.stats import finished
from ..models import Family, Game, PlayerGame
from ..rules.recap import NightRecord, Recap, RoundPlay, game_recap


def night_recap(game: Game, with_records: bool = True) -> Recap:
    """The recap of ``game`` from its scored rounds; ``with_records`` adds the records broken on
    its day (``records_broken_on``)."""
    rounds = [
        RoundPlay(
            round_.number,
            [r.points for r in round_.results],
            [r.went_out for r in round_.results],
            [r.laid_down for r in round_.results],
            round_.marked,
        )
        for round_ in game.rounds if round_.recorded_at is not None
    ]
    played_on = game.started_at.date()
    records = records_broken_on(game) if with_records else []
    return game_recap([p.name for p in game.players], rounds, game.variant.name, played_on, records)


def records_broken_on(game: Game) -> list[NightRecord]:
    """The family records broken on the day ``game`` was started (its ``started_at`` date).

    A record of the records page counts when both hold:

    - the game holding it was started that day: ``game`` or another finished game of the same
      calendar day. Where games share a record's value the records page names the earliest one, so
      a value equalled that evening but first reached on an earlier day is not counted;
    - there was a record to break: a finished game of an earlier day counts towards it (for a
      lowest or highest final score, one under the same rules). A family's first evening, or the
      first evening under new rules, sets records but breaks none.

    The longest winning streak is held by no one game and never counts. Three statements for the
    records page's figures and one more here, whatever the size of the history.
    """
    day = game.started_at.date()
    family = db.session.get(Family, game.family_id)
    tonight = [r for r in kept_records(family) if r.game_id is not None and r.played_on == day]
    earlier = db.select(PlayerGame.id).where(finished(family, (date.min, day - timedelta(days=1))))
    # Always asked (this game's id at least), so the page costs the same with or without a record.
    rows = db.session.execute(
        db.select(
            Game.id,
            earlier.where(PlayerGame.variant_key == Game.variant_key).exists().label("same_rules"),
            earlier.exists().label("any_rules"),
        ).where(Game.id.in_({r.game_id for r in tonight} | {game.id}))
    ).all()
    before = {row.id: row.same_rules for row in rows}
    any_before = any(row.any_rules for row in rows)
    return [
        NightRecord(r.title, r.player, r.value, r.rules_name, r.game_id)
        for r in tonight
        if (before[r.game_id] if r.rules_name is not None else any_before)
    ]
