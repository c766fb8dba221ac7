"""Statistics kept as games are played: the tallies of ``rules.tallies`` stored as rows
(``history.models``), in the same transaction as the change to the games.

- A game that finishes after every finished game is counted into the tallies it touches.
- Anything else that changes the finished games (an edit, an undo, an abandon or a deletion of
  a finished game, a game finishing before another already finished, an import, a demo
  history) counts the family's history again (``rebuild``); so does ``flask recount``.
- The rules' names are kept per rules key: the name the newest game with that key recorded.
"""

from __future__ import annotations

from dataclasses import fields

from sqlalchemy import func, insert, or_, select, update

from ..extensions import db
from ..families import lock_family
from ..models import FINISHED, Family, Game, PlayerGame
from ..rules import tallies
from .models import NAME_LENGTH, KeptMonth, KeptPair, KeptPlayer, KeptRules, KeptStreak, KeptYear

MARKS = ("best", "worst", "most_out", "most_stuck")
# Each kept table: its model, the attribute of ``Tallies`` it holds, its key columns, the tally.
TABLES = (
    (KeptPlayer, "players", ("player_id", "variant_key"), tallies.PlayerTally),
    (KeptMonth, "months", ("player_id", "month", "variant_key"), tallies.PeriodTally),
    (KeptYear, "years", ("player_id", "year", "variant_key"), tallies.PeriodTally),
    (KeptPair, "pairs", ("player_id", "other_id"), tallies.PairTally),
    (KeptStreak, "streaks", ("player_id",), tallies.Streak),
)
LINE_COLUMNS = [getattr(PlayerGame, name) for name in tallies.Line._fields]


def _new_statistics_version(family_id: int) -> None:
    """Move the family's statistics version on; the row lock it takes also means one recount
    at a time per family (two would each write tallies the other is rewriting)."""
    db.session.execute(
        update(Family).where(Family.id == family_id).values(stats_version=Family.stats_version + 1)
    )


def finished_lines(family_id: int) -> list[tallies.Line]:
    """The family's finished games' lines in the order they were played."""
    rows = db.session.execute(
        select(*LINE_COLUMNS)
        .where(PlayerGame.family_id == family_id, PlayerGame.status == FINISHED)
        .order_by(PlayerGame.played_on, PlayerGame.game_id, PlayerGame.player_id)
    )
    return [tallies.Line(*row) for row in rows]


def rebuild(family_id: int) -> None:
    """Count the family's whole history again, and name its rules keys again."""
    _new_statistics_version(family_id)
    for model, _, _, _ in TABLES:
        db.session.execute(db.delete(model).where(model.family_id == family_id))
    counted = tallies.count_history(finished_lines(family_id))
    for model, name, keys, _ in TABLES:
        rows = [_columns(family_id, keys, key, tally) for key, tally in getattr(counted, name).items()]
        for at in range(0, len(rows), 2000):
            db.session.execute(insert(model), rows[at:at + 2000])
    rename_rules(family_id)


def count_finished(game: Game) -> None:
    """Count a game that has just finished: into the tallies it touches when it comes after
    every finished game of the family, else by counting the history again."""
    _new_statistics_version(game.family_id)
    lines = [tallies.Line(*row) for row in db.session.execute(
        select(*LINE_COLUMNS).where(PlayerGame.game_id == game.id).order_by(PlayerGame.player_id)
    )]
    if not lines:
        return
    played_on = lines[0].played_on
    later = db.session.execute(
        select(PlayerGame.id).where(
            PlayerGame.family_id == game.family_id, PlayerGame.status == FINISHED, PlayerGame.played_on >= played_on,
            or_(PlayerGame.played_on > played_on, PlayerGame.game_id > game.id),
        ).limit(1)
    ).first()
    if later is not None:
        rebuild(game.family_id)
        return
    touched, rows = _load_touched(game.family_id, lines)
    touched.count_game(lines)
    for model, name, keys, _ in TABLES:
        for key, tally in getattr(touched, name).items():
            row = rows.get((model, key))
            if row is None:
                db.session.add(model(**_columns(game.family_id, keys, key, tally)))
            else:
                for column, value in _columns(game.family_id, keys, key, tally).items():
                    setattr(row, column, value)


def _load_touched(family_id: int, lines: list[tallies.Line]):
    """The tallies one game's lines add to, with their rows."""
    players = [line.player_id for line in lines]
    key, month = lines[0].variant_key, lines[0].month
    wanted = {
        KeptPlayer: [KeptPlayer.player_id.in_(players), KeptPlayer.variant_key == key],
        KeptMonth: [KeptMonth.player_id.in_(players), KeptMonth.month == month, KeptMonth.variant_key == key],
        KeptYear: [KeptYear.player_id.in_(players), KeptYear.year == month[:4], KeptYear.variant_key == key],
        KeptPair: [KeptPair.player_id.in_(players), KeptPair.other_id.in_(players)],
        KeptStreak: [KeptStreak.player_id.in_(players)],
    }
    touched, rows = tallies.Tallies(), {}
    for model, name, keys, kind in TABLES:
        for row in db.session.execute(select(model).where(model.family_id == family_id, *wanted[model])).scalars():
            key_of = tuple(getattr(row, k) for k in keys)
            key_of = key_of if len(keys) > 1 else key_of[0]
            getattr(touched, name)[key_of] = _tally(kind, row)
            rows[model, key_of] = row
    return touched, rows


def _columns(family_id: int, keys: tuple[str, ...], key, tally) -> dict:
    """A kept row's columns from its key and tally (a mark is three columns)."""
    columns = {"family_id": family_id, **dict(zip(keys, key if len(keys) > 1 else (key,), strict=True))}
    for f in fields(tally):
        value = getattr(tally, f.name)
        if f.name in MARKS:
            columns[f.name], columns[f"{f.name}_on"], columns[f"{f.name}_game"] = value or (None, None, None)
        else:
            columns[f.name] = value
    return columns


def _tally(kind, row):
    return kind(**{f.name: _mark(row, f.name) if f.name in MARKS else getattr(row, f.name) for f in fields(kind)})


def _mark(row, name: str) -> tallies.Mark | None:
    value = getattr(row, name)
    return None if value is None else tallies.Mark(value, getattr(row, f"{name}_on"), getattr(row, f"{name}_game"))


# -- the rules' names ---------------------------------------------------------------------


def _name(rules: dict, key: str) -> str:
    """The rules' name as a game recorded it (an imported game's may be longer than a column)."""
    return str(rules.get("name", key))[:NAME_LENGTH]


def note_rules(game: Game) -> None:
    """A new game names its rules key (it is the newest game with that key)."""
    # Two games started at once with new rules would both find no row and both add one.
    lock_family(game.family_id)
    row = db.session.execute(
        select(KeptRules).where(KeptRules.family_id == game.family_id, KeptRules.variant_key == game.variant_key)
    ).scalar()
    name = _name(game.rules, game.variant_key)
    if row is None:
        db.session.add(KeptRules(family_id=game.family_id, variant_key=game.variant_key, name=name,
                                 newest_game=game.id))
    elif game.id >= row.newest_game:
        row.name, row.newest_game = name, game.id


def rename_rules(family_id: int) -> None:
    """Name every rules key of the family's games from its newest game again."""
    db.session.execute(db.delete(KeptRules).where(KeptRules.family_id == family_id))
    newest = (
        select(func.max(Game.id)).where(Game.family_id == family_id).group_by(Game.variant_key).scalar_subquery()
    )
    rows = [
        {"family_id": family_id, "variant_key": key, "name": _name(rules, key), "newest_game": game_id}
        for game_id, key, rules in db.session.execute(
            select(Game.id, Game.variant_key, Game.rules).where(Game.id.in_(newest))
        )
    ]
    if rows:
        db.session.execute(insert(KeptRules), rows)


def rules_names(family_id: int) -> dict[str, str]:
    """Rules key -> the name the newest game with it recorded, for every key the family's games use."""
    return dict(db.session.execute(
        select(KeptRules.variant_key, KeptRules.name).where(KeptRules.family_id == family_id)
    ).all())

