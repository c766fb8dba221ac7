"""The family history: game list, player figures, records, head-to-head, charts, abandon and
delete, and the number of SQL statements each page costs as the history grows.

Most figures are checked on a small history played through the pages, with every expected
number worked out by hand below, so a wrong sum or a wrong filter shows up as a wrong number.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func

from scorekeeper.demo import seed_demo
from scorekeeper.extensions import counting_statements, db
from scorekeeper.games import summary
from scorekeeper.history import charts, ratings, stats
from scorekeeper.history.records import head_to_head, longest_streak, records_of
from scorekeeper.models import Game, GameRound, Player, PlayerGame, Result, Seat
from scorekeeper.web import access
from tests.actions import GameActions
from tests.databases import db_snapshot, drop_app, make_app, strict_client
from tests.pages import text_of, texts_by_class
from tests.random_games import play_random_hand, start_game

FAMILY_7_NAME = "Shanghai Rummy (family rules, 7 hands)"
SHANGHAI_10_NAME = "Shanghai Rummy (10 contracts)"


# -- helpers --------------------------------------------------------------------------------


def play(client, app, variant: str, names: list[str], rounds, *, skip_first_hand: bool = False) -> int:
    """Start a game and record ``rounds``: ``(number, went out, hands[, extras])``.

    Everyone lays down except the names in ``extras["stuck"]``; ``extras["buys"]`` and
    ``extras["bonus"]`` go into the card-entry form as a player would fill them in.
    """
    actions = GameActions(client, app)
    with app.app_context():  # the new-game form names a saved player by id, a new one by name
        saved = db.session.execute(db.select(Player.id).where(Player.name == names[0])).scalar()
    first_dealer = names[0] if saved is None else str(saved)
    game_id = actions.new_game(variant, names, first_dealer=first_dealer, skip_first_hand=skip_first_hand)
    ids = actions.player_ids(game_id)
    for number, went_out, hands, *extras in rounds:
        extra = extras[0] if extras else {}
        laid_down = [n for n in names if n not in extra.get("stuck", ())]
        actions.record(ids, game_id, number, went_out, hands, laid_down=laid_down,
                       buys=extra.get("buys"), bonus=extra.get("bonus"))
    return game_id


def set_start(app, game_id: int, when: datetime) -> None:
    """Move a game to another date, as if it had been played then, and refresh its summary."""
    with app.app_context():
        game = db.session.get(Game, game_id)
        game.started_at = when
        if game.finished_at is not None:
            game.finished_at = when + timedelta(hours=1)
        summary.refresh_summary(game)
        db.session.commit()


def listed_games(response) -> list[int]:
    """Game ids of the history rows, top to bottom."""
    return [int(n) for n in re.findall(r'class="history-row" href="/games/(\d+)/standings"',
                                        response.get_data(as_text=True))]


def table_rows(response, table_class: str | None = None) -> list[list[str]]:
    """Every body row of the page's tables (or of the table with this class) as cell texts."""
    html = response.get_data(as_text=True)
    if table_class:
        html = re.search(rf'<table class="{table_class}">(.*?)</table>', html, flags=re.DOTALL).group(1)
    rows = []
    for body in re.findall(r"<tbody>(.*?)</tbody>", html, flags=re.DOTALL):
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.DOTALL):
            rows.append([text_of(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.DOTALL)])
    return rows


def stat_grid(response) -> list[str]:
    return texts_by_class(response, "stat")


# -- a small family history, played through the pages ---------------------------------------
#
# family-7 (hand 1 skipped: rounds 2–7): 2–9 = 5 · 10 J Q K = 10 · A = 15 · Joker = 20
# shanghai-10 (rounds 1–10): 2–10 = 5 · J Q K = 10 · A = 15 · Joker = 15 · blind −25
#
# G1 Sat 10 Jan, family-7, Ann Bob Cy — finished, Ann wins
G1 = [
    (2, "Ann", {"Bob": "K", "Cy": "K K"}, {"stuck": ["Cy"], "buys": {"Bob": 1}}),  # Bob 10, Cy 20
    (3, "Ann", {"Bob": "5", "Cy": "Q"}),                                            # Bob 5, Cy 10
    (4, "Bob", {"Ann": "5", "Cy": "A"}, {"stuck": ["Cy"], "buys": {"Cy": 2}}),      # Ann 5, Cy 15
    (5, "Ann", {"Bob": "J", "Cy": "5 5"}),                                          # Bob 10, Cy 10
    (6, "Cy", {"Ann": "5", "Bob": "5"}),                                            # Ann 5, Bob 5
    (7, "Ann", {"Bob": "10", "Cy": "JK"}),                                          # Bob 10, Cy 20
]
# Ann 0+0+5+0+5+0 = 10 · Bob 10+5+0+10+5+10 = 40 · Cy 20+10+15+10+0+20 = 75
# out: Ann 4, Bob 1, Cy 1 · stuck: Cy 2 · buys: Bob 1, Cy 2

# G2 Tue 20 Jan, family-7, Ann Bob Cy Di — finished, Bob and Di share the win on 25
G2 = [
    (2, "Bob", {"Ann": "K K", "Cy": "5", "Di": "5"}, {"stuck": ["Ann"], "buys": {"Ann": 3}}),  # Ann 20, Cy 5, Di 5
    (3, "Di", {"Ann": "A", "Bob": "5", "Cy": "K"}, {"stuck": ["Ann"]}),                       # Ann 15, Bob 5, Cy 10
    (4, "Bob", {"Ann": "5", "Cy": "Q Q", "Di": "5"}, {"stuck": ["Cy"], "buys": {"Di": 1}}),   # Ann 5, Cy 20, Di 5
    (5, "Di", {"Ann": "J", "Bob": "5", "Cy": "5"}),                                           # Ann 10, Bob 5, Cy 5
    (6, "Cy", {"Ann": "5", "Bob": "K", "Di": "K"}),                                           # Ann 5, Bob 10, Di 10
    (7, "Ann", {"Bob": "5", "Cy": "JK", "Di": "5"}),                                          # Bob 5, Cy 20, Di 5
]
# Ann 20+15+5+10+5+0 = 55 · Bob 0+5+0+5+10+5 = 25 · Cy 5+10+20+5+0+20 = 60 · Di 5+0+5+0+10+5 = 25
# out: Ann 1, Bob 2, Cy 1, Di 2 · stuck: Ann 2, Cy 1 · buys: Ann 3, Di 1

# G3 Thu 05 Feb, family-7, Ann Bob Di — finished, Bob wins
G3 = [
    (2, "Bob", {"Ann": "5", "Di": "K"}),                                            # Ann 5, Di 10
    (3, "Bob", {"Ann": "K", "Di": "5"}),                                            # Ann 10, Di 5
    (4, "Ann", {"Bob": "5", "Di": "5"}),                                            # Bob 5, Di 5
    (5, "Di", {"Ann": "5", "Bob": "5"}),                                            # Ann 5, Bob 5
    (6, "Bob", {"Ann": "A", "Di": "JK"}),                                           # Ann 15, Di 20
    (7, "Bob", {"Ann": "5", "Di": "K K K"}, {"stuck": ["Di"], "buys": {"Di": 2}}),  # Ann 5, Di 30
]
# Ann 5+10+0+5+15+5 = 40 · Bob 0+0+5+5+0+0 = 10 · Di 10+5+5+0+20+30 = 70
# out: Ann 1, Bob 4, Di 1 · stuck: Di 1 · buys: Di 2

# G4 Tue 10 Feb, family-7, Ann Bob Cy — two hands, then abandoned (counts nowhere)
G4 = [
    (2, "Ann", {"Bob": "5", "Cy": "JK JK JK JK"}, {"stuck": ["Cy"]}),  # Bob 5, Cy 80
    (3, "Ann", {"Bob": "5", "Cy": "JK JK JK JK"}, {"stuck": ["Cy"]}),  # Bob 5, Cy 80
]
# Ann 0 · Bob 10 · Cy 160: were it counted, Ann's 0 would be the lowest score (earliest date)
# and Cy's 160 the highest; Ann would also break Bob's winning streak.

# G5 Sun 15 Feb, shanghai-10, Ann Bob Cy — finished, Bob wins
G5 = [
    (1, "Bob", {"Ann": "K", "Cy": "5"}, {"bonus": "blind"}),         # Bob −25, Ann 10, Cy 5
    (2, "Bob", {"Ann": "5", "Cy": "K"}),                             # Ann 5, Cy 10
    (3, "Ann", {"Bob": "5", "Cy": "5"}),                             # Bob 5, Cy 5
    (4, "Cy", {"Ann": "Q", "Bob": "5"}),                             # Ann 10, Bob 5
    (5, "Bob", {"Ann": "A", "Cy": "10"}, {"buys": {"Ann": 2}}),      # Ann 15, Cy 5 (tens are 5)
    (6, "Bob", {"Ann": "5", "Cy": "5"}),                             # Ann 5, Cy 5
    (7, "Ann", {"Bob": "K", "Cy": "JK"}, {"stuck": ["Cy"]}),         # Bob 10, Cy 15
    (8, "Bob", {"Ann": "5", "Cy": "5"}),                             # Ann 5, Cy 5
    (9, "Cy", {"Ann": "5", "Bob": "5"}),                             # Ann 5, Bob 5
    (10, "Bob", {"Ann": "K", "Cy": "K"}),                            # Ann 10, Cy 10
]
# Ann 10+5+0+10+15+5+0+5+5+10 = 65 · Bob −25+0+5+5+0+0+10+0+5+0 = 0 · Cy 5+10+5+0+5+5+15+5+0+10 = 60
# out: Ann 2, Bob 6, Cy 2 · stuck: Cy 1 · buys: Ann 2

# G6 Sun 01 Mar, shanghai-10, Ann Bob Cy Di — one hand in, still in progress (counts nowhere)
G6 = [
    (1, "Di", {"Ann": "A", "Bob": "5", "Cy": "K"}),  # Ann 15, Bob 5, Cy 10
]

# Per player over the finished games G1, G2, G3, G5 (hands: family-7 games 6, shanghai-10 10):
#   Ann  games 4 · won 1 (G1) 25% · totals 10 55 40 65 = 170, avg 42.5 · hands 28, 170/28 = 6.07
#        out 4+1+1+2 = 8 · stuck 2 · buys 3+2 = 5, 5/28 = 0.18 · best 10 (G1) · worst 65 (G5)
#        family-7: 3 games, 1 won, (10+55+40)/3 = 35.0 · shanghai-10: 1 game, 0 won, 65.0
#        by month: 2026-01 (10+55)/2 = 32.5 · 2026-02 (40+65)/2 = 52.5
#   Bob  games 4 · won 3 (G2 shared, G3, G5) 75% · 40 25 10 0 = 75, avg 18.75 · 75/28 = 2.68
#        out 1+2+4+6 = 13 · stuck 0 · buys 1, 1/28 = 0.04 · best 0 (G5) · worst 40 (G1)
#        family-7: 3 games, 2 won, 75/3 = 25.0 · shanghai-10: 1 game, 1 won, 0.0
#   Cy   games 3 · won 0 · 75 60 60 = 195, avg 65.0 · hands 22, 195/22 = 8.86
#        out 1+1+2 = 4 · stuck 2+1+1 = 4 · buys 2, 2/22 = 0.09 · best 60 (G2 and G5: the later, G5)
#        worst 75 (G1) · family-7: 2 games, 0 won, 67.5 · shanghai-10: 1 game, 0 won, 60.0
#   Di   games 2 · won 1 (G2 shared) 50% · 25 70 = 95, avg 47.5 · hands 12, 95/12 = 7.92
#        out 2+1 = 3 · stuck 1 · buys 1+2 = 3, 3/12 = 0.25 · best 25 (G2) · worst 70 (G3)
#
# Records (finished games): lowest 0 Bob G5 · highest 75 Cy G1 · most hands won 6 Bob G5
#   stuck most 2: Cy G1 (10 Jan) before Ann G2 (20 Jan) · longest streak Bob 3 (G2 shared, G3, G5)


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    """The six games above in one app, shared by the read-only tests of this module."""
    folder = tmp_path_factory.mktemp("family")
    app = make_app(folder, keep=True)
    client = strict_client(app)
    games = {
        "G1": play(client, app, "family-7", ["Ann", "Bob", "Cy"], G1, skip_first_hand=True),
        "G2": play(client, app, "family-7", ["Ann", "Bob", "Cy", "Di"], G2, skip_first_hand=True),
        "G3": play(client, app, "family-7", ["Ann", "Bob", "Di"], G3, skip_first_hand=True),
        "G4": play(client, app, "family-7", ["Ann", "Bob", "Cy"], G4, skip_first_hand=True),
        "G5": play(client, app, "shanghai-10", ["Ann", "Bob", "Cy"], G5),
        "G6": play(client, app, "shanghai-10", ["Ann", "Bob", "Cy", "Di"], G6),
    }
    # Abandon G4 the way a player does: the confirm page, then the button.
    assert client.get(f"/games/{games['G4']}/abandon").status_code == 200
    assert client.post(f"/games/{games['G4']}/abandon").status_code == 302
    for key, when in {
        "G1": datetime(2026, 1, 10, 14, 0), "G2": datetime(2026, 1, 20, 14, 0),
        "G3": datetime(2026, 2, 5, 10, 0), "G4": datetime(2026, 2, 10, 14, 0),
        "G5": datetime(2026, 2, 15, 19, 30), "G6": datetime(2026, 3, 1, 14, 0),
    }.items():
        set_start(app, games[key], when)
    actions = GameActions(app=app)
    assert [actions.game_status(games[k]) for k in sorted(games)] == [
        "finished", "finished", "finished", "abandoned", "finished", "in_progress"]
    players = actions.player_ids(games["G2"])
    yield SimpleNamespace(app=app, client=client, games=games, players=players)
    drop_app(app)


# -- 1. player figures, records and head-to-head -------------------------------------------


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_players_page_lists_games_wins_win_rate_and_average_of_finished_games(family):
    page = family.client.get("/players")
    assert page.status_code == 200
    # Most wins first, then the better win rate: Di (1 of 2) before Ann (1 of 4).
    rows = table_rows(page)
    assert [row[:4] for row in rows] == [  # won of played, win %, average
        ["Bob", "3 /4", "75", "18.8"],
        ["Di", "1 /2", "50", "47.5"],
        ["Ann", "1 /4", "25", "42.5"],
        ["Cy", "0 /3", "0", "65.0"],
    ]
    # The last column is the family rating: Bob, who won three of four, is highest; Cy, who won none, lowest.
    rating = {row[0]: int(row[4].replace("\u2212", "-")) for row in rows}
    assert max(rating, key=rating.get) == "Bob" and min(rating, key=rating.get) == "Cy"


# Ann, Bob and Cy played under two rule sets, whose points differ: their scores show by rules only.
PROFILES = {
    "Ann": ["4 games played", "1 games won (25%)", "8 hands won (went out) of 28", "2 times stuck",
            "0.18 buys per hand"],
    "Bob": ["4 games played", "3 games won (75%)", "13 hands won (went out) of 28", "0 times stuck",
            "0.04 buys per hand"],
    "Cy": ["3 games played", "0 games won (0%)", "4 hands won (went out) of 22", "4 times stuck",
           "0.09 buys per hand"],
    "Di": ["2 games played", "1 games won (50%)", "47.5 average final score", "7.9 points per hand",
           "3 hands won (went out) of 12", "1 times stuck", "0.25 buys per hand",
           "25 best game · 2026-01-20", "70 worst game · 2026-02-05"],
}

# Per hand: family-7 games have 6 hands (hand 1 skipped), shanghai-10 games 10.
BY_RULES = {  # the rules' name, then games, won, average score, per hand, best–worst
    "Ann": [[FAMILY_7_NAME], ["3", "1", "35.0", "5.8", "10–55"], [SHANGHAI_10_NAME], ["1", "0", "65.0", "6.5", "65"]],
    "Bob": [[FAMILY_7_NAME], ["3", "2", "25.0", "4.2", "10–40"], [SHANGHAI_10_NAME], ["1", "1", "0.0", "0.0", "0"]],
    # 135 points in 12 hands: 11.25 per hand, shown as families round it (half up), not 11.2.
    "Cy": [[FAMILY_7_NAME], ["2", "0", "67.5", "11.3", "60–75"], [SHANGHAI_10_NAME], ["1", "0", "60.0", "6.0", "60"]],
    "Di": [[FAMILY_7_NAME], ["2", "1", "47.5", "7.9", "25–70"]],
}


@pytest.mark.parametrize("name", ["Ann", "Bob", "Cy", "Di"])
def test_player_profile_shows_the_hand_worked_figures(family, name):
    page = family.client.get(f"/players/{family.players[name]}")
    assert page.status_code == 200
    tiles = stat_grid(page)
    assert tiles[0].endswith(" Rating")  # the family rating first (tests/test_ratings.py checks its value)
    assert tiles[1:] == PROFILES[name]
    assert table_rows(page) == BY_RULES[name]


def test_best_and_worst_game_link_to_those_games(family):
    html = family.client.get(f"/players/{family.players['Di']}").get_data(as_text=True)
    assert f'<a href="/games/{family.games["G2"]}/standings">25</a>' in html
    assert f'<a href="/games/{family.games["G3"]}/standings">70</a>' in html


def test_a_player_under_two_rule_sets_gets_one_chart_line_for_each(family):
    page = family.client.get(f"/players/{family.players['Ann']}")
    html = page.get_data(as_text=True)
    assert [title for _, title in polylines(html)] == ["Rating", FAMILY_7_NAME, SHANGHAI_10_NAME]
    assert "Scores are compared by rules below" in text_of(page)
    assert "Scores are compared by rules below" not in text_of(family.client.get(f"/players/{family.players['Di']}"))


def test_profile_figures_from_the_stats_module(family):
    with family.app.app_context():
        fam = access.current_family()
        ann = stats.profile(fam, db.session.get(Player, family.players["Ann"]))
        bob = stats.profile(fam, db.session.get(Player, family.players["Bob"]))
    assert (ann.games, ann.wins, ann.hands, ann.hands_won, ann.times_stuck) == (4, 1, 28, 8, 2)
    assert ann.win_rate == pytest.approx(0.25)
    assert ann.average_total == pytest.approx(42.5)
    assert ann.points_per_hand == pytest.approx(170 / 28)
    assert ann.buys_per_hand == pytest.approx(5 / 28)
    assert (ann.best.game_id, ann.best.total) == (family.games["G1"], 10)
    assert (ann.worst.game_id, ann.worst.total) == (family.games["G5"], 65)
    assert ann.by_variant == [
        {"key": "family-7", "games": 3, "wins": 1, "average": pytest.approx(35.0),
         "points_per_hand": pytest.approx(105 / 18), "best": 10, "worst": 55},
        {"key": "shanghai-10", "games": 1, "wins": 0, "average": pytest.approx(65.0),
         "points_per_hand": pytest.approx(6.5), "best": 65, "worst": 65},
    ]
    assert ann.mixed
    assert ann.by_month == [("2026-01", "family-7", pytest.approx(32.5)), ("2026-02", "family-7", 40),
                            ("2026-02", "shanghai-10", 65)]
    assert (bob.games, bob.wins, bob.hands_won, bob.times_stuck) == (4, 3, 13, 0)
    assert bob.average_total == pytest.approx(18.75)
    assert bob.by_month == [("2026-01", "family-7", pytest.approx(32.5)), ("2026-02", "family-7", 10),
                            ("2026-02", "shanghai-10", 0)]


def test_records_page_shows_the_records_of_finished_games_only(family):
    page = family.client.get("/records")
    assert page.status_code == 200
    records, most_wins = table_rows(page)[:7], table_rows(page)[7:]
    assert records == [  # scores under each rule set, their points being far apart
        [f"Lowest final score {FAMILY_7_NAME}", "Ann", "10", "2026-01-10"],  # Bob's 10 came later; not G4's 0
        [f"Highest final score {FAMILY_7_NAME}", "Cy", "75", "2026-01-10"],  # not Cy's 160 in abandoned G4
        [f"Lowest final score {SHANGHAI_10_NAME}", "Bob", "0", "2026-02-15"],
        [f"Highest final score {SHANGHAI_10_NAME}", "Ann", "65", "2026-02-15"],
        ["Most hands won in one game", "Bob", "6", "2026-02-15"],
        ["Stuck most often in one game", "Cy", "2", "2026-01-10"],
        ["Longest winning streak (games in a row)", "Bob", "3", ""],
    ]
    assert most_wins == [["Bob", "3", "4", "75"], ["Di", "1", "2", "50"],
                         ["Ann", "1", "4", "25"], ["Cy", "0", "3", "0"]]
    html = page.get_data(as_text=True)
    assert f'<a href="/games/{family.games["G5"]}/standings">0</a>' in html
    assert f'<a href="/games/{family.games["G1"]}/standings">75</a>' in html


def test_records_from_the_stats_module(family):
    with family.app.app_context():
        fam = access.current_family()
        found = {r.title: (r.player, r.value, r.game_id) for r in records_of(fam)}
        streak = longest_streak(fam)
        scores = {(r.title, r.rules_name): (r.player, r.value, r.game_id) for r in records_of(fam)}
    assert scores["Lowest final score", FAMILY_7_NAME] == ("Ann", 10, family.games["G1"])
    assert scores["Lowest final score", SHANGHAI_10_NAME] == ("Bob", 0, family.games["G5"])
    assert scores["Highest final score", FAMILY_7_NAME] == ("Cy", 75, family.games["G1"])
    assert found["Most hands won in one game"] == ("Bob", 6, family.games["G5"])
    # G2 (shared with Di), G3, G5 in a row; the abandoned G4 in between neither breaks nor counts.
    assert streak == ("Bob", 3)


@pytest.mark.parametrize("first, second, rows", [
    # Ann–Bob: G1 Ann 10 < 40 · G2 55 > 25 · G3 40 > 10 · G5 65 > 0 (G4 abandoned, G6 unfinished)
    ("Ann", "Bob", [["Games together", "4"], ["Finished lower", "1", "3"], ["Level", "0"],
                    ["Games won", "1", "3"], ["Average score", "42.5", "18.8"]]),
    # Bob–Di: G2 25 = 25 (both win) · G3 10 < 70 (G6 unfinished)
    ("Bob", "Di", [["Games together", "2"], ["Finished lower", "1", "0"], ["Level", "1"],
                   ["Games won", "2", "1"], ["Average score", "17.5", "47.5"]]),
])
def test_head_to_head_on_the_records_page(family, first, second, rows):
    a, b = family.players[first], family.players[second]
    page = family.client.get(f"/records?a={a}&b={b}")
    assert page.status_code == 200
    assert table_rows(page, "duel") == rows
    header = re.search(r'<table class="duel">\s*<thead>(.*?)</thead>', page.get_data(as_text=True), re.DOTALL)
    assert text_of(header.group(1)) == f"{first} {second}"


def test_head_to_head_from_the_stats_module(family):
    with family.app.app_context():
        fam = access.current_family()
        ann, bob = (db.session.get(Player, family.players[n]) for n in ("Ann", "Bob"))
        duel = head_to_head(fam, ann, bob)
        reverse = head_to_head(fam, bob, ann)
    assert (duel.games, duel.first_lower, duel.second_lower, duel.level) == (4, 1, 3, 0)
    assert (duel.first_wins, duel.second_wins) == (1, 3)
    assert (duel.first_average, duel.second_average) == (pytest.approx(42.5), pytest.approx(18.75))
    assert (reverse.first_lower, reverse.second_lower, reverse.first_wins) == (3, 1, 3)


def test_head_to_head_of_a_player_with_himself_asks_for_two_players(family):
    bob = family.players["Bob"]
    page = family.client.get(f"/records?a={bob}&b={bob}")
    assert "Choose two different players." in text_of(page)
    assert 'class="duel"' not in page.get_data(as_text=True)


# -- 2. the history page --------------------------------------------------------------------


def test_history_lists_every_game_newest_first_with_status_and_winners(family):
    page = family.client.get("/history")
    g = family.games
    assert listed_games(page) == [g["G6"], g["G5"], g["G4"], g["G3"], g["G2"], g["G1"]]
    assert "6 games" in text_of(page)
    rows = texts_by_class(page, "history-row")
    # Each row: date, status, rules, players in seat order, then the winners of a finished game.
    expected = [
        ("Sun 01 Mar 2026 in progress", SHANGHAI_10_NAME, "Ann, Bob, Cy, Di", None),
        ("Sun 15 Feb 2026 finished", SHANGHAI_10_NAME, "Ann, Bob, Cy", "Bob"),
        ("Tue 10 Feb 2026 abandoned", FAMILY_7_NAME, "Ann, Bob, Cy", None),
        ("Thu 05 Feb 2026 finished", FAMILY_7_NAME, "Ann, Bob, Di", "Bob"),
        ("Tue 20 Jan 2026 finished", FAMILY_7_NAME, "Ann, Bob, Cy, Di", "Bob & Di"),
        ("Sat 10 Jan 2026 finished", FAMILY_7_NAME, "Ann, Bob, Cy", "Ann"),
    ]
    for row, (when, rules, seats, winners) in zip(rows, expected, strict=True):
        head = f"{when} {rules} {seats}"
        assert row.startswith(head), row
        rest = row[len(head):]
        if winners is None:
            assert rest == "", row  # no winner for a game that is not finished
        else:
            assert re.search(rf"\b{re.escape(winners)}\b", rest), row
            others = {"Ann", "Bob", "Cy", "Di"} - set(winners.split(" & "))
            assert not any(re.search(rf"\b{n}\b", rest) for n in others), row


@pytest.mark.parametrize("query, expected", [
    ("player={Di}", ["G6", "G3", "G2"]),
    ("preset=shanghai-10", ["G6", "G5"]),
    ("preset=family-7", ["G4", "G3", "G2", "G1"]),
    ("status=abandoned", ["G4"]),
    ("status=in_progress", ["G6"]),
    ("status=finished", ["G5", "G3", "G2", "G1"]),
    # Both ends inclusive: G3 at 10:00 on the 5th, G5 at 19:30 on the 15th.
    ("from=2026-02-05&to=2026-02-15", ["G5", "G4", "G3"]),
    ("from=2026-02-06", ["G6", "G5", "G4"]),
    ("to=2026-01-20", ["G2", "G1"]),
    ("player={Cy}&preset=family-7", ["G4", "G2", "G1"]),
    ("player={Cy}&status=finished&from=2026-01-15", ["G5", "G2"]),
    ("preset=online-11", []),
])
def test_history_filters(family, query, expected):
    page = family.client.get("/history?" + query.format(**family.players))
    assert page.status_code == 200
    assert listed_games(page) == [family.games[k] for k in expected]
    if not expected:
        assert "No games match." in text_of(page)


def test_the_search_form_keeps_the_chosen_filters(family):
    di = family.players["Di"]
    html = family.client.get(f"/history?player={di}&preset=family-7&from=2026-01-01").get_data(as_text=True)
    assert f'<option value="{di}" selected>Di</option>' in html
    assert f'<option value="family-7" selected>{FAMILY_7_NAME}</option>' in html
    assert 'name="from" value="2026-01-01"' in html


@pytest.mark.parametrize("field", ["from", "to"])
def test_a_bad_date_shows_a_message_and_lists_games_unfiltered(family, field):
    page = family.client.get(f"/history?{field}=2026-02-30")
    assert page.status_code == 200
    assert "Use a date such as" in text_of(page)
    assert "has-error" in page.get_data(as_text=True)
    assert len(listed_games(page)) == 6


def test_a_far_future_to_date_lists_all_games(family):
    """9999-12-31 is a valid date a date picker lets through; it must not break the page."""
    page = family.client.get("/history?to=9999-12-31")
    assert page.status_code == 200
    assert len(listed_games(page)) == 6


@pytest.fixture
def demo_app(app):
    with app.app_context():
        seed_demo(access.current_family(), 60, seed=3)
    return app


def test_history_pages_through_demo_games_and_clamps_the_page_number(client, demo_app):
    first = client.get("/history")
    assert "60 games · page 1 of 3" in text_of(first)
    second = client.get("/history?page=2")
    assert "page 2 of 3" in text_of(second)
    third = client.get("/history?page=3")
    one, two, three = listed_games(first), listed_games(second), listed_games(third)
    assert (len(one), len(two), len(three)) == (25, 25, 10)
    assert len(set(one) | set(two) | set(three)) == 60

    with demo_app.app_context():
        newest_first = [gid for gid, in db.session.execute(
            db.select(Game.id).order_by(Game.started_at.desc(), Game.id.desc()))]
    assert one + two + three == newest_first

    beyond = client.get("/history?page=999")
    assert beyond.status_code == 200
    assert listed_games(beyond) == three
    assert "page 3 of 3" in text_of(beyond)
    assert listed_games(client.get("/history?page=0")) == one
    assert listed_games(client.get("/history?page=abc")) == one


def test_pagination_links_keep_the_filters(client, demo_app):
    with demo_app.app_context():
        busiest, count = db.session.execute(
            db.select(Seat.player_id, func.count()).group_by(Seat.player_id).order_by(func.count().desc())
        ).first()
    assert count > 25
    first = client.get(f"/history?player={busiest}&status=finished")
    assert f"{count} games · page 1 of 2" in text_of(first)
    older = re.search(r'<a class="btn" href="([^"]+)">Older ›</a>', first.get_data(as_text=True))
    url = older.group(1).replace("&amp;", "&")
    assert parse_qs(urlsplit(url).query) == {"page": ["2"], "player": [str(busiest)], "status": ["finished"]}

    second = client.get(url)
    assert len(listed_games(second)) == count - 25
    with demo_app.app_context():
        for game_id in listed_games(first) + listed_games(second):
            seated = db.session.execute(db.select(Seat.player_id).where(Seat.game_id == game_id)).scalars()
            assert busiest in list(seated)
    newer = re.search(r'<a class="btn" href="([^"]+)">‹ Newer</a>', second.get_data(as_text=True))
    assert parse_qs(urlsplit(newer.group(1).replace("&amp;", "&")).query) == {
        "page": ["1"], "player": [str(busiest)], "status": ["finished"]}


# -- 3. charts and names with HTML in them --------------------------------------------------


def polylines(html: str) -> list[tuple[list[tuple[float, float]], str]]:
    """Each polyline of the page's SVG: its points and its (escaped) title."""
    found = re.findall(r'<polyline points="([^"]*)"[^>]*><title>(.*?)</title></polyline>', html)
    return [([tuple(map(float, p.split(","))) for p in points.split()], title) for points, title in found]


def test_standings_chart_of_running_totals_appears_once_two_rounds_are_in(client, actions):
    names = ["Ann", "<b>Bo</b>", "Cy"]
    game_id = actions.new_game("family-7", names, first_dealer="Ann", skip_first_hand=True)
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 2, "Ann", {"<b>Bo</b>": "K", "Cy": "JK JK"})   # Bo 10, Cy 40
    one_round = client.get(f"/games/{game_id}/standings").get_data(as_text=True)
    assert "<svg" not in one_round

    actions.record(ids, game_id, 3, "Cy", {"Ann": "5", "<b>Bo</b>": "A"})        # Ann 5, Bo 15
    actions.record(ids, game_id, 4, "Ann", {"<b>Bo</b>": "5", "Cy": "5"})        # Bo 5, Cy 5
    # Running totals: Ann 0 5 5 · Bo 10 25 30 · Cy 40 40 45
    html = client.get(f"/games/{game_id}/standings").get_data(as_text=True)
    assert html.count("<svg") == 1
    svg = html[html.index("<svg"):html.index("</svg>")]
    assert 'class="axis-title">Round</text>' in svg
    assert 'class="axis-title">Running total</text>' in svg
    lines = polylines(svg)
    assert [title for _, title in lines] == ["Ann", "&lt;b&gt;Bo&lt;/b&gt;", "Cy"]
    assert all(len(points) == 3 for points, _ in lines)
    # x follows the rounds; a higher running total sits higher on the chart (smaller y).
    (ann, _), (bo, _), (cy, _) = lines
    assert [x for x, _ in ann] == [x for x, _ in bo] == [x for x, _ in cy]
    assert ann[0][1] > ann[1][1] == ann[2][1]                      # 0, 5, 5
    assert cy[0][1] == cy[1][1] > cy[2][1]                         # 40, 40, 45
    assert cy[2][1] < bo[2][1] < ann[2][1]                         # 45 > 30 > 5
    legend = re.search(r'<ul class="legend">(.*?)</ul>', html).group(1)
    assert text_of(legend) == "Ann <b>Bo</b> Cy"
    assert "&lt;b&gt;Bo&lt;/b&gt;" in legend
    assert "<b>Bo</b>" not in html


def test_names_with_html_are_escaped_on_every_history_page(client, app, actions):
    bo = "<b>Bo</b>"
    rounds = [(2, bo, {"Ann": "K", "Cy": "5"}), (3, bo, {"Ann": "K", "Cy": "5"}),
              (4, "Ann", {bo: "5", "Cy": "5"}), (5, bo, {"Ann": "K", "Cy": "5"}),
              (6, "Cy", {"Ann": "5", bo: "5"}), (7, bo, {"Ann": "K", "Cy": "5"})]
    # Ann 10+10+0+10+5+10 = 45 · Bo 0+0+5+0+5+0 = 10 · Cy 5+5+5+5+0+5 = 25: Bo wins
    game_id = play(client, app, "family-7", ["Ann", bo, "Cy"], rounds, skip_first_hand=True)
    ids = actions.player_ids(game_id)
    assert "<b>Bo</b> wins" in text_of(client.get(f"/games/{game_id}/standings"))
    for url in ["/history", "/players", f"/players/{ids[bo]}", f"/records?a={ids[bo]}&b={ids['Ann']}",
                f"/games/{game_id}/standings", f"/games/{game_id}/abandon", f"/games/{game_id}/delete", "/"]:
        page = client.get(url)
        assert page.status_code == 200, url
        html = page.get_data(as_text=True)
        assert "<b>Bo</b>" not in html, url
        assert "&lt;b&gt;Bo&lt;/b&gt;" in html, url


def test_player_profile_has_a_chart_of_final_scores_by_month(family):
    html = family.client.get(f"/players/{family.players['Ann']}").get_data(as_text=True)
    assert html.count("<svg") == 2
    # First the rating at the end of each month, one line whatever the rules.
    rating = html[html.index("<svg"):html.index("</svg>")]
    assert 'class="axis-title">Rating</text>' in rating and ">2026-02</text>" in rating
    assert [(len(points), title) for points, title in polylines(rating)] == [(2, "Rating")]
    svg = html[html.rindex("<svg"):html.rindex("</svg>")]
    assert 'class="axis-title">Final score</text>' in svg
    assert 'class="axis-title">Month</text>' in svg
    assert ">2026-01</text>" in svg and ">2026-02</text>" in svg
    # One line per rule set: family-7 32.5 in January, 40 in February (up: smaller y); shanghai-10
    # only February's 65, higher still.
    [(seven, first_title), (ten, second_title)] = polylines(svg)
    assert (first_title, second_title) == (FAMILY_7_NAME, SHANGHAI_10_NAME)
    assert len(seven) == 2 and seven[1][1] < seven[0][1]
    assert len(ten) == 1 and ten[0][0] == seven[1][0] and ten[0][1] < seven[1][1]


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_long_history_is_charted_by_year(app, client):
    with app.app_context():
        seed_demo(access.current_family(), 600, seed=3)  # about four years of games
        player = db.session.execute(db.select(Player).order_by(Player.id)).scalars().first()
        totals = {}
        for month, total in db.session.execute(
            db.select(PlayerGame.month, PlayerGame.total)
            .where(PlayerGame.player_id == player.id, PlayerGame.status == "finished",
                   PlayerGame.variant_key == "family-7")
        ):
            totals.setdefault(month[:4], []).append(total)
        years = [(year, sum(ts) / len(ts)) for year, ts in sorted(totals.items())]
        newest = stats.profile(access.current_family(), player)
        shown = ratings.shown_now(player.family_id, [player.id])[player.id]
    page = client.get(f"/players/{player.id}")
    html = page.get_data(as_text=True)
    assert newest.by_year and [year for year, *_ in newest.months][0] == years[0][0] and len(years) >= 4
    rating, scores = (html[start:html.index("</svg>", start)] for start in
                      (html.index("<svg"), html.rindex("<svg")))
    assert 'class="axis-title">Year</text>' in scores and ">2026-" not in scores
    [(points, _)] = polylines(rating)
    assert len(points) == len(years)  # the rating at the end of each year
    assert stat_grid(page)[0] == f"{shown} Rating" and shown != 0  # the tile: the last point's rating
    lines = dict((title, line) for line, title in polylines(scores))
    assert len(lines[FAMILY_7_NAME]) == len(years)
    assert "Average final score per year" in text_of(page)
    # Lower averages are drawn higher up: the chart keeps the years' order of averages.
    order = sorted(range(len(years)), key=lambda i: years[i][1])
    assert sorted(range(len(years)), key=lambda i: -lines[FAMILY_7_NAME][i][1]) == order


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_history_of_more_years_than_a_phone_shows_apart_is_charted_by_groups_of_years(app, client):
    """36 years of one game a year: 18 points of two years each, the average of both years' games at
    each, the rating at the end of each two years; links to the newest seasons still by year."""
    rng = random.Random(5)
    with app.app_context():
        family = access.current_family()
        for year in range(1990, 2026):
            game = start_game(family, ["Ann", "Bob", "Cy"], rng)
            game.started_at = datetime(year, 6, 1, 20, 0)
            db.session.commit()
            while game.current_round is not None:
                play_random_hand(game, rng)
        ann = db.session.execute(db.select(Player).where(Player.name == "Ann")).scalar_one()
        totals = dict(db.session.execute(db.select(PlayerGame.month, PlayerGame.total).where(
            PlayerGame.player_id == ann.id, PlayerGame.status == "finished")).all())
        figures = stats.profile(family, ann)
    assert (figures.by_year, figures.years_per_point, figures.period_name) == (True, 2, "2 years")
    assert [point for point, *_ in figures.months] == [str(year) for year in range(1990, 2026, 2)]
    assert figures.by_month[3][2] == (totals["1996-06"] + totals["1997-06"]) / 2
    assert figures.recent_years == [2025, 2024, 2023, 2022, 2021, 2020]
    page = client.get(f"/players/{ann.id}")
    html = page.get_data(as_text=True)
    rating, scores = (html[start:html.index("</svg>", start)] for start in (html.index("<svg"), html.rindex("<svg")))
    [(points, _)] = polylines(rating)
    [(averages, _)] = polylines(scores)
    assert len(points) == len(averages) == 18 <= stats.MOST_YEARS
    assert 'class="axis-title">Years</text>' in scores and ">1990</text>" in scores
    assert "Average final score per 2 years" in text_of(page)
    assert 'href="/seasons/2025"' in html and 'href="/seasons/2019"' not in html


def test_a_player_without_finished_games_has_dashes_and_no_chart(client, app, actions):
    game_id = play(client, app, "family-7", ["Ann", "Bob", "Cy"], [(2, "Ann", {"Bob": "K", "Cy": "5"})],
                   skip_first_hand=True)
    page = client.get(f"/players/{actions.player_ids(game_id)['Bob']}")
    assert page.status_code == 200
    assert "<svg" not in page.get_data(as_text=True)
    assert stat_grid(page) == ["0 Rating", "0 games played", "0 games won", "– average final score", "– points per hand",
                               "0 hands won (went out) of 0", "0 times stuck", "– buys per hand",
                               "– best game", "– worst game"]
    assert table_rows(client.get("/players")) == [["Ann", "0 /0", "–", "–", "0"], ["Bob", "0 /0", "–", "–", "0"],
                                                  ["Cy", "0 /0", "–", "–", "0"]]


# -- 4. abandon and delete ------------------------------------------------------------------

SHORT = [(2, "Ann", {"Bob": "K", "Cy": "5"}), (3, "Ann", {"Bob": "K", "Cy": "5"}),
         (4, "Ann", {"Bob": "K", "Cy": "5"}), (5, "Ann", {"Bob": "K", "Cy": "5"}),
         (6, "Ann", {"Bob": "K", "Cy": "5"}), (7, "Ann", {"Bob": "K", "Cy": "5"})]
# Ann 0 · Bob 6×10 = 60 · Cy 6×5 = 30 — Ann wins, 6 hands won


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_abandon_asks_first_then_keeps_the_game_in_history_and_out_of_the_figures(client, app, actions):
    kept = play(client, app, "family-7", ["Ann", "Bob", "Cy"], SHORT[:1] + [
        (3, "Bob", {"Ann": "5", "Cy": "5"}), (4, "Bob", {"Ann": "5", "Cy": "5"}),
        (5, "Bob", {"Ann": "5", "Cy": "5"}), (6, "Bob", {"Ann": "5", "Cy": "5"}),
        (7, "Bob", {"Ann": "5", "Cy": "5"})], skip_first_hand=True)
    # kept: Ann 0+5×5 = 25 · Bob 10 · Cy 5+5×5 = 30 — Bob wins
    dropped = play(client, app, "family-7", ["Ann", "Bob", "Cy"], SHORT, skip_first_hand=True)
    ids = actions.player_ids(dropped)
    assert [row[:4] for row in table_rows(client.get("/players"))] == [
        ["Ann", "1 /2", "50", "12.5"], ["Bob", "1 /2", "50", "35.0"], ["Cy", "0 /2", "0", "30.0"]]

    before = db_snapshot(app)
    confirm = client.get(f"/games/{dropped}/abandon")
    assert confirm.status_code == 200
    assert "Abandon this game?" in text_of(confirm)
    assert db_snapshot(app) == before

    done = client.post(f"/games/{dropped}/abandon", follow_redirects=True)
    assert "Game abandoned." in text_of(done)
    assert actions.game_status(dropped) == "abandoned"

    history = client.get("/history")
    assert listed_games(history) == [dropped, kept]
    assert texts_by_class(history, "status") == ["abandoned", "finished"]
    assert texts_by_class(history, "history-row")[0].endswith("Ann, Bob, Cy")  # no winner shown
    assert [row[:4] for row in table_rows(client.get("/players"))] == [
        ["Bob", "1 /1", "100", "10.0"], ["Ann", "0 /1", "0", "25.0"], ["Cy", "0 /1", "0", "30.0"]]
    records = table_rows(client.get("/records"))
    assert ["Most hands won in one game", "Bob", "5"] == records[2][:3]  # not Ann's 6 in the abandoned game
    assert ["Longest winning streak (games in a row)", "Bob", "1", ""] == records[4]
    assert stat_grid(client.get(f"/players/{ids['Ann']}"))[1:3] == ["1 games played", "0 games won (0%)"]
    # Abandoning twice is refused politely.
    again = client.post(f"/games/{dropped}/abandon", follow_redirects=True)
    assert "This game is already abandoned." in text_of(again)


def test_delete_asks_first_then_removes_the_game_and_everything_in_it(client, app):
    kept = play(client, app, "family-7", ["Ann", "Bob", "Cy"], SHORT, skip_first_hand=True)
    doomed = play(client, app, "family-7", ["Ann", "Bob", "Cy", "Di"], [
        (2, "Di", {"Ann": "K", "Bob": "5", "Cy": "5"}), (3, "Di", {"Ann": "K", "Bob": "5", "Cy": "5"})],
        skip_first_hand=True)

    def rows_of(game_id):
        with app.app_context():
            rounds = db.session.execute(db.select(GameRound.id).where(GameRound.game_id == game_id)).scalars().all()
            return {
                "game": db.session.execute(db.select(func.count()).where(Game.id == game_id)).scalar(),
                "seats": db.session.execute(db.select(func.count()).where(Seat.game_id == game_id)).scalar(),
                "rounds": len(rounds),
                "results": db.session.execute(
                    db.select(func.count()).where(Result.round_id.in_(rounds))).scalar() if rounds else 0,
                "summaries": db.session.execute(
                    db.select(func.count()).where(PlayerGame.game_id == game_id)).scalar(),
            }

    assert rows_of(doomed) == {"game": 1, "seats": 4, "rounds": 6, "results": 24, "summaries": 4}
    kept_before = rows_of(kept)
    before = db_snapshot(app)
    confirm = client.get(f"/games/{doomed}/delete")
    assert confirm.status_code == 200
    assert "Delete this game?" in text_of(confirm)
    assert "cannot be undone" in text_of(confirm)
    assert db_snapshot(app) == before

    deleted = client.post(f"/games/{doomed}/delete")
    assert deleted.headers["Location"] == "/history"
    assert "Game deleted." in text_of(client.get("/history"))
    assert rows_of(doomed) == {"game": 0, "seats": 0, "rounds": 0, "results": 0, "summaries": 0}
    assert rows_of(kept) == kept_before
    after = db_snapshot(app)
    assert after["player"] == before["player"]  # the players stay, Di too
    assert client.get(f"/games/{doomed}/standings").status_code == 404
    assert listed_games(client.get("/history")) == [kept]


# -- 6. SQL statements per page stay flat as the history grows -------------------------------


def statements_for(app, client, url: str) -> int:
    with counting_statements(app) as sent:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(sent)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_each_page_costs_the_same_few_statements_with_10_or_200_games(client, app):
    app.config["PAGE_CACHE"] = False  # count what drawing each page costs, not a cached copy
    with app.app_context():
        family = access.current_family()
        seed_demo(family, 10, seed=5)
        # A player with a shanghai-10 game among the first ten, so the filtered list is not empty.
        player_id = db.session.execute(
            db.select(PlayerGame.player_id).where(PlayerGame.variant_key == "shanghai-10").order_by(PlayerGame.id)
        ).scalars().first()
        other = db.session.execute(
            db.select(Player.id).where(Player.id != player_id).order_by(Player.id)).scalars().first()
        game_id = db.session.execute(db.select(func.min(Game.id))).scalar()
    assert player_id is not None
    pages = ["/history", "/history?page=2", f"/history?player={player_id}&preset=shanghai-10", "/players",
             f"/players/{player_id}", f"/records?a={player_id}&b={other}", f"/games/{game_id}/standings", "/",
             f"/seasons/{datetime.now(UTC).year}"]  # the demo history ends today
    for url in pages:
        client.get(url)  # connection set-up is not the page's cost

    at_10 = {url: statements_for(app, client, url) for url in pages}
    with app.app_context():
        seed_demo(access.current_family(), 190, seed=6)
        assert db.session.execute(db.select(func.count(Game.id))).scalar() == 200
    assert "page 2 of 8" in text_of(client.get("/history?page=2"))
    at_200 = {url: statements_for(app, client, url) for url in pages}

    assert at_200 == at_10
    assert all(n <= 10 for n in at_200.values()), sorted(at_200.items(), key=lambda kv: -kv[1])[:3]


@pytest.mark.parametrize("months", [2, 5, 6, 7, 12, 30])
def test_chart_month_labels_never_touch_and_the_last_month_is_always_named(months):
    labels = [f"2026-{m:02d}" for m in range(1, months + 1)]
    svg = str(charts.line_chart([("Ann", list(range(months)))], labels, x_title="Month", y_title="Rating", label="x"))
    placed = [(float(x), text) for x, text in re.findall(r'<text x="([\d.]+)" y="\d+" text-anchor="middle">(2026-\d+)<', svg)]
    assert placed[0][1] == labels[0] and placed[-1][1] == labels[-1]
    width = len("2026-01") * charts.CHAR_WIDTH
    assert all(b - a >= width for (a, _), (b, _) in zip(placed, placed[1:])), placed
    assert placed[-1][0] + width / 2 <= charts.WIDTH
