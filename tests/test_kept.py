"""Statistics kept as games are played: after any sequence of finishing, editing, undoing,
deleting and abandoning games, importing a history or seeding a demo one, the kept figures are
exactly what counting every finished game again gives (counted here, independently)."""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from dataclasses import replace
from datetime import datetime
from itertools import groupby, permutations
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.games import service, summary
from scorekeeper.history import kept, seasons, stats
from scorekeeper.history.models import KeptMonth, KeptPair, KeptPlayer, KeptRules, KeptStreak, KeptYear
from scorekeeper.house_rules import service as house_rules
from scorekeeper.models import FINISHED, Game, PlayerGame
from scorekeeper.rules import get_variant
from scorekeeper.transfer import checks, importing
from scorekeeper.transfer.export import export_json
from tests.databases import make_app, strict_client
from tests.pages import text_of, texts_by_class
from tests.random_games import our_family, play_random_hand, random_action, start_game


def recount(family_id: int) -> dict[str, set[tuple]]:
    """Every figure the kept tables hold, counted from the finished games' rows."""
    rows = db.session.execute(
        sa.select(PlayerGame).where(PlayerGame.family_id == family_id, PlayerGame.status == FINISHED)
    ).scalars().all()
    by_player, by_month, by_year = defaultdict(list), defaultdict(list), defaultdict(list)
    for row in rows:
        by_player[row.player_id, row.variant_key].append(row)
        by_month[row.player_id, row.month, row.variant_key].append(row)
        by_year[row.player_id, row.played_on.strftime("%Y"), row.variant_key].append(row)

    def held(rs, value):  # the best value, the earlier game on a tie
        if not rs:
            return (None, None, None)
        best = min(rs, key=lambda r: (value(r), r.played_on, r.game_id))
        return (abs(value(best)), best.played_on, best.game_id)

    players = {
        (pid, key, len(rs), sum(r.won for r in rs), sum(r.total for r in rs), sum(r.hands_played for r in rs),
         sum(r.hands_won for r in rs), sum(r.times_stuck for r in rs), sum(r.buys for r in rs),
         sum(r.marked_hands for r in rs),
         held(rs, lambda r: r.total), held(rs, lambda r: -r.total), held(rs, lambda r: -r.hands_won),
         # Only a game every hand of which recorded laid-down marks says who was stuck most.
         held([r for r in rs if r.marked_hands == r.hands_played], lambda r: -r.times_stuck))
        for (pid, key), rs in by_player.items()
    }
    months = {(pid, month, key, len(rs), sum(r.total for r in rs)) for (pid, month, key), rs in by_month.items()}
    years = {(pid, year, key, len(rs), sum(r.total for r in rs)) for (pid, year, key), rs in by_year.items()}
    games = [list(g) for _, g in groupby(sorted(rows, key=lambda r: (r.played_on, r.game_id)), lambda r: r.game_id)]
    pairs = defaultdict(lambda: [0] * 8)
    for game in games:
        for a, b in permutations(game, 2):
            figures = pairs[a.player_id, b.player_id]
            for i, value in enumerate((1, a.total < b.total, a.total > b.total, a.total == b.total, a.won, b.won,
                                       a.total, b.total)):
                figures[i] += value
    winners = [{r.player_id for r in game if r.won} for game in games]
    streaks = set()
    for pid in set().union(*winners):
        run = longest = 0
        for game in games:  # a game the player sat out neither continues nor ends a streak
            mine = [r for r in game if r.player_id == pid]
            if mine:
                run = run + 1 if mine[0].won else 0
                longest = max(longest, run)
        streaks.add((pid, run, longest))
    return {"players": players, "months": months, "years": years, "streaks": streaks,
            "pairs": {(a, b, *figures) for (a, b), figures in pairs.items()}}


def stored(family_id: int) -> dict[str, set[tuple]]:
    """The kept tables' rows, in the shape ``recount`` gives."""
    def rows(model):
        return db.session.execute(sa.select(model).where(model.family_id == family_id)).scalars().all()

    def mark(r, name):
        return (getattr(r, name), getattr(r, f"{name}_on"), getattr(r, f"{name}_game"))

    return {
        "players": {(r.player_id, r.variant_key, r.games, r.wins, r.points, r.hands, r.hands_won, r.times_stuck,
                     r.buys, r.marked_hands, mark(r, "best"), mark(r, "worst"), mark(r, "most_out"),
                     mark(r, "most_stuck"))
                    for r in rows(KeptPlayer)},
        "months": {(r.player_id, r.month, r.variant_key, r.games, r.points) for r in rows(KeptMonth)},
        "years": {(r.player_id, r.year, r.variant_key, r.games, r.points) for r in rows(KeptYear)},
        "streaks": {(r.player_id, r.current, r.longest) for r in rows(KeptStreak)},
        "pairs": {(r.player_id, r.other_id, r.games, r.lower, r.higher, r.level, r.wins, r.other_wins, r.points,
                   r.other_points) for r in rows(KeptPair)},
    }


def assert_kept_equals_recount(family_id: int) -> dict:
    db.session.commit()
    figures = stored(family_id)
    assert figures == recount(family_id)
    return figures


def finish(game: Game, rng: random.Random) -> None:
    while game.current_round is not None:
        play_random_hand(game, rng)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_kept_figures_equal_a_recount_after_random_finishes_edits_undos_deletions_and_abandons(app, seed):
    rng = random.Random(seed)
    with app.app_context():
        family = our_family()
        done = []
        for _ in range(24):
            done.append(random_action(family, rng))
            assert_kept_equals_recount(family.id)
        figures = assert_kept_equals_recount(family.id)
    assert {"finish", "edit", "undo", "delete", "abandon"} <= set(done)  # every kind of change happened
    assert figures["pairs"] and figures["streaks"]


def test_a_game_finishing_before_one_already_finished_counts_the_history_again(app):
    rng = random.Random(2)
    with app.app_context():
        family = our_family()
        earlier = start_game(family, ["Ann", "Bob", "Cy"], rng)
        later = start_game(family, ["Ann", "Bob", "Di"], rng)
        finish(later, rng)
        assert_kept_equals_recount(family.id)
        finish(earlier, rng)  # played first (same day, smaller id) but finished second
        assert_kept_equals_recount(family.id)
        # Moved to another day: a finished game changes place in the order streaks follow.
        later.started_at = datetime(2020, 1, 1, 20)
        summary.refresh_summary(later)
        assert_kept_equals_recount(family.id)


def test_finishing_the_newest_game_counts_only_that_game(app, monkeypatch):
    rng = random.Random(4)
    with app.app_context():
        family = our_family()
        finish(start_game(family, ["Ann", "Bob", "Cy"], rng), rng)
        monkeypatch.setattr(kept, "rebuild", lambda family_id: pytest.fail("the history was counted again"))
        finish(start_game(family, ["Ann", "Bob", "Cy", "Di"], rng), rng)
        monkeypatch.undo()
        assert_kept_equals_recount(family.id)


def test_an_imported_history_and_a_demo_history_are_counted(app, tmp_path):
    rng = random.Random(6)
    with app.app_context():
        family = our_family()
        for _ in range(8):
            random_action(family, rng)
        here = assert_kept_equals_recount(family.id)
        exported = "".join(export_json(family))
    other = make_app(tmp_path / "other")
    with other.app_context():
        family = our_family()
        seed_demo(family, 30, seed=1)
        assert_kept_equals_recount(family.id)
        importing.import_data(family, checks.parse(exported.encode()))
        both = assert_kept_equals_recount(family.id)
    assert len(both["players"]) > len(here["players"])


def test_the_recount_command_puts_wrong_figures_right(app, runner):
    rng = random.Random(8)
    with app.app_context():
        family = our_family()
        for _ in range(5):
            finish(start_game(family, ["Ann", "Bob", "Cy"], rng), rng)
        right = assert_kept_equals_recount(family.id)
        db.session.execute(sa.update(KeptPlayer).values(wins=99))
        db.session.execute(sa.delete(KeptPair))
        db.session.commit()
        assert stored(family.id) != right
    result = runner.invoke(args=["recount"])
    assert result.exit_code == 0 and "Counted Our family again." in result.output
    with app.app_context():
        assert assert_kept_equals_recount(our_family().id) == right


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_rules_deleted_since_are_named_as_their_newest_game_recorded_them(app):
    with app.app_context():
        family = our_family()
        row = house_rules.save_house_rules(family, replace(get_variant("family-7"), name="Grandma's rules"))
        key, variant = row.key, row.variant
        seats = [service.SeatChoice(new_name=n) for n in ("Ann", "Bob", "Cy")]
        games = [service.start_game(family, variant, seats, 0)]
        seats = [service.SeatChoice(player_id=seat.player_id) for seat in games[0].seats]
        games.append(service.start_game(family, variant, seats, 0))
        house_rules.delete_house_rules(row)
        assert house_rules.variant_names(family)[key] == "Grandma's rules (deleted)"
        # The newest game names them: here it recorded another name.
        games[1].rules = {**games[1].rules, "name": "Grandma's last"}
        kept.rename_rules(family.id)
        db.session.commit()
        assert house_rules.variant_names(family)[key] == "Grandma's last (deleted)"
        service.delete_game(games[1])  # the newest game goes: the one before names the rules
        assert house_rules.variant_names(family)[key] == "Grandma's rules (deleted)"
        service.delete_game(games[0])
        assert key not in house_rules.variant_names(family)
        assert not db.session.execute(sa.select(KeptRules).where(KeptRules.variant_key == key)).first()


@pytest.fixture
def table(app):
    """One finished game of Ann, Bob and Cy, and a second one in play."""
    rng = random.Random(12)
    with app.app_context():
        family = our_family()
        finish(start_game(family, ["Ann", "Bob", "Cy"], rng), rng)
        playing = start_game(family, ["Ann", "Bob", "Cy"], rng)
        ann = next(seat.player_id for seat in playing.seats if seat.player.name == "Ann")
        return SimpleNamespace(rng=rng, game_id=playing.id, number=playing.current_round.number, ann=ann,
                               year=playing.started_at.year)


def spy(monkeypatch, module, name: str) -> list:
    """Each call of ``module.name`` from now on."""
    calls, real = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args: calls.append(args) or real(*args))
    return calls


def test_a_profile_is_worked_out_again_when_the_finished_games_change_and_not_for_a_buy(app, client, table,
                                                                                      monkeypatch):
    worked_out = spy(monkeypatch, stats, "profile")

    def games_played():
        page = client.get(f"/players/{table.ann}")
        assert page.status_code == 200
        return next(line for line in texts_by_class(page, "stat") if line.endswith("games played"))

    assert games_played() == "1 games played" and len(worked_out) == 1
    client.post(f"/games/{table.game_id}/rounds/{table.number}/buy", data={"player": table.ann})
    assert games_played() == "1 games played" and len(worked_out) == 1  # the page is drawn again around it
    with app.app_context():
        finish(db.session.get(Game, table.game_id), table.rng)
    assert games_played() == "2 games played" and len(worked_out) == 2
    with app.app_context():
        service.delete_game(db.session.get(Game, table.game_id))
    assert games_played() == "1 games played" and len(worked_out) == 3


def test_a_season_is_worked_out_again_when_the_finished_games_change_and_not_for_a_buy(app, client, table,
                                                                                     monkeypatch):
    worked_out = spy(monkeypatch, seasons, "season")

    def finished_games():
        page = client.get(f"/seasons/{table.year}")
        assert page.status_code == 200
        return re.search(r"(\d+) finished games?", text_of(page)).group(1)

    assert finished_games() == "1" and len(worked_out) == 1
    client.post(f"/games/{table.game_id}/rounds/{table.number}/buy", data={"player": table.ann})
    assert finished_games() == "1" and len(worked_out) == 1
    with app.app_context():
        finish(db.session.get(Game, table.game_id), table.rng)
    assert finished_games() == "2" and len(worked_out) == 2


def test_an_imported_game_with_a_very_long_rules_name_and_one_dated_9999_are_shown(app, client, tmp_path):
    rng = random.Random(14)
    with app.app_context():
        family = our_family()
        finish(start_game(family, ["Ann", "Bob", "Cy"], rng), rng)
        data = json.loads("".join(export_json(family)))
    data["games"][0]["rules"]["name"] = "Grandma's " + "very " * 60 + "long rules"
    data["games"][0]["started_at"] = "9999-12-31T10:00:00"
    other = make_app(tmp_path / "other")
    with other.app_context():
        family = our_family()
        importing.import_data(family, checks.parse(json.dumps(data).encode()))
        key = db.session.execute(sa.select(Game.variant_key)).scalar_one()
        assert house_rules.variant_names(family)[key].startswith("Shanghai")  # a preset keeps its own name
        assert db.session.execute(sa.select(KeptRules.name)).scalar_one() == data["games"][0]["rules"]["name"][:200]
        ann = db.session.execute(sa.select(PlayerGame.player_id).order_by(PlayerGame.player_id)).scalars().first()
        assert_kept_equals_recount(family.id)
    member = strict_client(other)
    page = member.get(f"/players/{ann}")
    assert page.status_code == 200 and "9999" in page.text
