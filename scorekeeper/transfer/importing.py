"""Writing a checked export into a family, in one transaction: all of it or nothing."""

from __future__ import annotations

from .. import rules
from ..extensions import db
from ..families import commit_for, family_players
from ..games.summary import refresh_summary
from ..house_rules.service import add_imported_rules
from ..models import Family, Game, GameRound, Player, Result, Seat
from .checks import when
from .export import BATCH


def import_data(family: Family, data: dict) -> tuple[int, int]:
    """Write a checked export into ``family``: ``(games added, games already here)``.

    Everything is written in one transaction: an error part way leaves nothing behind.
    """
    try:
        players = {p.name.casefold(): p for p in family_players(family)}
        if not players and not db.session.execute(
            db.select(Game.id).where(Game.family_id == family.id).limit(1)
        ).first():
            changed = family.name != data["family"]["name"]
            family.name = data["family"]["name"]  # an empty instance takes the exported family's name
        else:
            changed = False
        for entry in data["players"]:
            if entry["name"].casefold() not in players:
                changed = True
                player = Player(family_id=family.id, name=entry["name"], created_at=when(entry, "created_at", ""))
                db.session.add(player)
                players[entry["name"].casefold()] = player
        # The family's own rules come along, under keys of this instance.
        keys = {}
        for entry in data["house_rules"]:
            variant = rules.Variant.from_dict({**entry["rules"], "name": entry["name"]})
            row, added = add_imported_rules(family, variant)
            keys[entry["key"]] = row.key
            changed = changed or added
        uids = [g["uid"] for g in data["games"]]
        known = set()
        for start in range(0, len(uids), 500):
            known.update(db.session.execute(
                db.select(Game.uid).where(Game.family_id == family.id, Game.uid.in_(uids[start:start + 500]))
            ).scalars())
        fresh = [entry for entry in data["games"] if entry["uid"] not in known]
        for start in range(0, len(fresh), BATCH):
            games = [_build_game(family, entry, players, keys) for entry in fresh[start:start + BATCH]]
            db.session.add_all(games)
            db.session.flush()  # ids for the summaries
            for game in games:
                refresh_summary(game, new=True)
        if fresh or changed:
            commit_for(family.id)
    except Exception:
        db.session.rollback()
        raise
    return len(fresh), len(known)


def _build_game(family: Family, entry: dict, players: dict[str, Player], keys: dict[str, str]) -> Game:
    seated = [players[name.casefold()] for name in entry["seats"]]
    key = keys.get(entry["variant_key"], entry["variant_key"])
    game = Game(
        uid=entry["uid"],
        family_id=family.id,
        variant_key=key,
        rules={**entry["rules"], "key": key},
        skip_first_hand=entry["skip_first_hand"],
        first_dealer=entry["first_dealer"],
        status=entry["status"],
        started_at=when(entry, "started_at", ""),
        finished_at=when(entry, "finished_at", "", required=False),
    )
    game.seats = [Seat(player=p, position=i) for i, p in enumerate(seated)]
    position_of = {p.name.casefold(): i for i, p in enumerate(seated)}
    for round_ in sorted(entry["rounds"], key=lambda r: r["position"]):
        results = sorted(round_["results"], key=lambda r: position_of[r["player"].casefold()])
        game.rounds.append(
            GameRound(
                position=round_["position"],
                number=round_["number"],
                dealer=round_["dealer"],
                recorded_at=when(round_, "recorded_at", "", required=False),
                version=round_["version"],
                results=[
                    Result(
                        player=players[r["player"].casefold()],
                        position=position_of[r["player"].casefold()],
                        buys=r["buys"],
                        laid_down=r["laid_down"],
                        went_out=r["went_out"],
                        cards=r["cards"],
                        hand_total=r.get("hand_total"),
                        bonus_code=r["bonus_code"],
                        bonus=r["bonus"],
                        points=r["points"],
                    )
                    for r in results
                ],
            )
        )
    return game
