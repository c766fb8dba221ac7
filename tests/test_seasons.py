"""Seasons: a year or any stretch of days, with each player's games, wins, average final score,
hands won and rating change; the champion, the most improved player and the season's records."""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy as sa

from scorekeeper.extensions import db
from scorekeeper.history import ratings
from scorekeeper.models import Player, Rating
from tests.databases import drop_app, make_app, strict_client
from tests.pages import text_of
from tests.test_history import play, set_start, table_rows

# family-7 with hand 1 skipped: rounds 2-7. Everyone's cards each round; who went out scores 0.
ANN_WINS = [(n, "Ann", {"Bob": "K", "Cy": "5"}) for n in range(2, 8)]  # Ann 0 · Bob 60 · Cy 30
BOB_WINS = [(n, "Bob", {"Ann": "5", "Cy": "K"}) for n in range(2, 8)]  # Ann 30 · Bob 0 · Cy 60
CY_WINS = [(n, "Cy", {"Ann": "K", "Bob": "5"}) for n in range(2, 8)]  # Ann 60 · Bob 30 · Cy 0

GAMES = [  # (start, winner's rounds), oldest first
    (datetime(2025, 11, 2, 15), BOB_WINS),
    (datetime(2025, 12, 28, 15), BOB_WINS),
    (datetime(2026, 1, 10, 15), CY_WINS),
    (datetime(2026, 2, 14, 15), ANN_WINS),
    (datetime(2026, 3, 8, 15), ANN_WINS),
    (datetime(2026, 6, 20, 15), BOB_WINS),
]


@pytest.fixture(scope="module")
def seasons(tmp_path_factory):
    """One family's games over two seasons, played through the pages; the tests only read them."""
    app = make_app(tmp_path_factory.mktemp("seasons"), keep=True)
    client = strict_client(app)
    ids = []
    for when, rounds in GAMES:
        game_id = play(client, app, "family-7", ["Ann", "Bob", "Cy"], rounds, skip_first_hand=True)
        set_start(app, game_id, when)
        ids.append(game_id)
    # Still playing: counts in no season.
    play(client, app, "family-7", ["Ann", "Bob", "Cy"], BOB_WINS[:2], skip_first_hand=True)
    yield app, client, ids
    drop_app(app)


def _change(app, game_ids) -> dict[str, int]:
    with app.app_context():
        rows = db.session.execute(
            sa.select(Rating.player_id, Rating.change).where(Rating.game_id.in_(game_ids))
        ).all()
        names = dict(db.session.execute(sa.text("SELECT id, name FROM player")).all())
    total: dict[str, int] = {}
    for player_id, change in rows:
        total[names[player_id]] = total.get(names[player_id], 0) + change
    return total


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_year_counts_only_its_finished_games(seasons):
    app, client, ids = seasons
    page = client.get("/seasons/2026")
    text = text_of(page)
    assert "Season 2026" in text and "4 finished games" in text
    change = _change(app, ids[2:])
    # Ann won two of 2026's four games: champion. Games, won, average, hands won, rating change.
    assert table_rows(page, "season-table tight") == [
        ["Ann", "2 /4", f"{(60 + 0 + 0 + 30) / 4:.1f}", "12", f"{change['Ann']:+d}".replace("-", "−")],
        *sorted([
            ["Bob", "1 /4", f"{(30 + 60 + 60 + 0) / 4:.1f}", "6", f"{change['Bob']:+d}".replace("-", "−")],
            ["Cy", "1 /4", f"{(0 + 30 + 30 + 60) / 4:.1f}", "6", f"{change['Cy']:+d}".replace("-", "−")],
        ], key=lambda row: (-int(row[4].replace("−", "-")), row[0])),
    ]
    assert "Champion: Ann" in text
    assert "2 wins, the most this season" in text


def test_a_seasons_rating_change_is_the_rating_at_its_end_less_the_rating_at_its_start(seasons):
    app, _, ids = seasons
    with app.app_context():
        shown = dict(db.session.execute(
            sa.select(Rating.game_id, Rating.shown).join(Player, Player.id == Rating.player_id)
            .where(Player.name == "Ann")
        ).all())
    assert _change(app, ids[2:])["Ann"] == shown[ids[5]] - shown[ids[1]]


def test_most_improved_is_the_biggest_rise_over_at_least_three_games(seasons):
    app, client, ids = seasons
    change = _change(app, ids[2:])
    risers = {name: gain for name, gain in change.items() if gain > 0}
    text = text_of(client.get("/seasons/2026")).replace(" ,", ",")  # the name is bold
    assert risers  # 2026's games moved ratings both ways
    best = max(risers, key=risers.get)
    assert f"Most improved: {best}, rating +{risers[best]} over 4 games." in text
    assert "Only players with 3 games or more this season count: a rating moves most while it settles." in text
    # A season of two games: nobody played three, so nobody is "most improved", and the page says why
    # beside the rises it leaves out.
    rose = _change(app, ids[:2])
    season_2025 = text_of(client.get("/seasons/2025"))
    assert "Most improved:" not in season_2025
    risen = ", ".join(f"{name} +{gain} in 2 games" for name, gain in sorted(rose.items(), key=lambda kv: -kv[1])
                      if gain > 0)
    assert (f"Most improved needs players with 3 games or more this season: a rating moves most while it "
            f"settles ({risen}).") in season_2025


def test_any_stretch_of_days_is_a_season(seasons):
    _, client, _ = seasons
    page = client.get("/seasons/2026-02-01..2026-03-31")
    text = text_of(page)
    assert "1 Feb 2026 – 31 Mar 2026" in text and "2 finished games" in text
    assert [row[:2] for row in table_rows(page, "season-table tight")][0] == ["Ann", "2 /2"]


def test_the_seasons_records_come_from_its_games_only(seasons):
    _, client, _ = seasons
    text = text_of(client.get("/seasons/2025"))
    # 2025: Bob won both games with 0; Cy's 60 was the highest score.
    assert "Lowest final score" in text and "Longest winning streak (games in a row) Bob 2" in text
    assert "Longest winning streak (games in a row) Ann 2" in text_of(client.get("/seasons/2026-02-01..2026-03-31"))


def test_the_date_form_keeps_what_was_typed_and_says_what_is_wrong(seasons):
    _, client, _ = seasons
    wrong = client.get("/seasons/2026?from=2026-05-01&to=2026-04-01")
    assert wrong.status_code == 200
    assert "The last day cannot come before the first." in text_of(wrong)
    assert 'value="2026-05-01"' in wrong.get_data(as_text=True)
    bad = client.get("/seasons/2026?from=soon&to=2026-04-01")
    assert "Use a date such as 2026-11-22." in text_of(bad)
    assert 'value="soon"' in bad.get_data(as_text=True)
    good = client.get("/seasons/2026?from=2026-01-01&to=2026-02-28")
    assert good.status_code == 302 and good.headers["Location"] == "/seasons/2026-01-01..2026-02-28"
    far = client.get("/seasons/2026?from=2026-01-01&to=9999-12-31")
    assert far.status_code == 200 and "Choose a day in the years 1900 to 9998." in text_of(far)
    whole = client.get("/seasons/2026?from=2025-01-01&to=2025-12-31")
    assert whole.headers["Location"] == "/seasons/2025"


@pytest.mark.parametrize("period", ["26", "abc", "2026-13-01..2026-12-31", "2026-05-01..2026-04-01", "0999",
                                    "9999", "2026-01-01..9999-12-31", "1899-12-31..2026-01-01"])
def test_an_address_that_is_no_season_is_not_found(client, period):
    for url in (f"/seasons/{period}", f"/seasons/{period}/booklet.pdf"):
        response = client.get(url)
        assert response.status_code == 404
        assert "No such season" in text_of(response)


def test_seasons_open_on_the_newest_year_and_are_linked_from_history_and_profiles(seasons):
    app, client, ids = seasons
    assert client.get("/seasons").headers["Location"] == "/seasons/2026"
    assert 'href="/seasons"' in client.get("/history").get_data(as_text=True)
    profile = client.get("/players/1").get_data(as_text=True)
    assert 'href="/seasons/2026"' in profile and 'href="/seasons/2025"' in profile
    years = client.get("/seasons/2025").get_data(as_text=True)
    assert 'href="/seasons/2026"' in years and 'aria-current="page">2025' in years


def test_seasons_are_behind_sign_in(seasons):
    app, _, _ = seasons
    anonymous = app.test_client()
    response = anonymous.get("/seasons/2026")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_moved_games_leave_the_ratings_as_a_rating_of_the_whole_history(seasons):
    app, _, _ = seasons
    with app.app_context():
        kept = db.session.execute(sa.select(Rating.game_id, Rating.player_id, Rating.shown).order_by(Rating.id)).all()
        ratings.rebuild(1)
        again = db.session.execute(sa.select(Rating.game_id, Rating.player_id, Rating.shown).order_by(Rating.id)).all()
    assert sorted(kept) == sorted(again)
