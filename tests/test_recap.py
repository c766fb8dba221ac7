"""The game-night recap of a finished game: the winner and the margin, who went out how often, the
biggest hand caught, who was stuck most (when the hands say), the family records broken that evening, and the text the Share button sends.

The rules-core figures are checked on small hand-made games; the page on games played through the
forms, with every total worked out by hand below."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime, timedelta

import pytest

from scorekeeper.rules.recap import Catch, NightRecord, RoundPlay, WentOut, game_recap
from tests.databases import strict_client
from tests.pages import text_of
from tests.test_history import play, set_start
from tests.test_sharing import share

NIGHT = date(2026, 11, 21)  # a Saturday


def rounds(*hands) -> list[RoundPlay]:
    """Rounds from ``(number, points, out seat, stuck seats)``, three players."""
    return [RoundPlay(number, points, [seat == out for seat in range(3)], [seat not in stuck for seat in range(3)])
            for number, points, out, stuck in hands]


def recap_of(hands, names=("Ann", "Bob", "Cy"), records=()):
    return game_recap(list(names), rounds(*hands), "Shanghai Rummy (family rules, 7 hands)", NIGHT, records)


# -- the rules core -------------------------------------------------------------------------


def test_lowest_total_wins_by_the_points_to_the_next_player():
    recap = recap_of([(2, [0, 10, 25], 0, ()), (3, [5, 0, 30], 1, ())])  # Ann 5 · Bob 10 · Cy 55
    assert (recap.winners, recap.winning_total, recap.shared) == (("Ann",), 5, False)
    assert (recap.margin, recap.runners_up) == (5, ("Bob",))
    assert "Ann wins with 5, 5 ahead of Bob." in recap.text


def test_a_shared_win_says_so_and_the_margin_is_to_the_next_player():
    shared = recap_of([(2, [0, 30, 10], 0, ()), (3, [10, 5, 0], 2, ())])  # Ann 10 · Bob 35 · Cy 10
    assert (shared.winners, shared.shared, shared.winning_total) == (("Ann", "Cy"), True, 10)
    assert (shared.margin, shared.runners_up) == (25, ("Bob",))
    assert "Ann & Cy share the win with 10, 25 ahead of Bob." in shared.text


def test_when_everyone_is_level_there_is_no_margin():
    recap = recap_of([(2, [0, 10, 10], 0, ()), (3, [10, 0, 0], 1, ())])  # 10 each
    assert (recap.winners, recap.margin, recap.runners_up) == (("Ann", "Bob", "Cy"), None, ())
    assert "Ann, Bob & Cy share the win with 10." in recap.text


def test_who_went_out_is_counted_per_player_most_often_first_with_going_out_bonuses_by_their_round():
    recap = recap_of([(1, [10, 0, 5], 1, ()), (2, [15, -25, 5], 1, ()), (3, [5, 5, 0], 2, ()),
                      (4, [0, 5, 5], 0, ())])
    assert recap.went_out == (WentOut("Bob", (1, 2), ((2, -25),)), WentOut("Ann", (4,)), WentOut("Cy", (3,)))
    assert "Went out: Bob 2 (R1, R2 −25), Ann 1 (R4), Cy 1 (R3)." in recap.text
    assert "-25" not in recap.text  # a minus sign, not a hyphen


def test_seven_rounds_of_going_out_for_0_say_who_went_out_how_often_and_the_biggest_hand_caught():
    # family-7 scores going out 0: a list of seven 0s says nothing; counts and the biggest catch do.
    recap = recap_of([(1, [0, 10, 5], 0, ()), (2, [0, 35, 5], 0, ()), (3, [15, 0, 95], 1, ()),
                      (4, [0, 5, 5], 0, ()), (5, [5, 0, 5], 1, ()), (6, [0, 10, 10], 0, ()),
                      (7, [5, 5, 0], 2, ())])
    assert [(w.name, w.rounds) for w in recap.went_out] == [("Ann", (1, 2, 4, 6)), ("Bob", (3, 5)), ("Cy", (7,))]
    assert recap.biggest_catch == Catch(3, "Cy", 95, "Bob")
    assert "Biggest catch: Cy 95 in R3, when Bob went out." in recap.text
    assert " 0," not in recap.text and "(0)" not in recap.text


def test_a_game_typed_from_paper_does_not_say_who_was_stuck():
    paper = [RoundPlay(2, [0, 10, 10], [True, False, False], [True, True, True], marked=False)]
    recap = game_recap(["Ann", "Bob", "Cy"], paper, "Rules", NIGHT)
    assert (recap.stuck_most, recap.marked_hands) == ((), 0)
    assert "Stuck: not recorded (a score sheet does not say who laid down)." in recap.text
    assert "Nobody stuck" not in recap.text
    # Half at the table, half from paper: stuck is counted in the hands played at the table only.
    mixed = [RoundPlay(2, [0, 10, 10], [True, False, False], [True, True, False]), *[
        RoundPlay(3, [0, 10, 10], [True, False, False], [True, True, True], marked=False)]]
    recap = game_recap(["Ann", "Bob", "Cy"], mixed, "Rules", NIGHT)
    assert "Stuck most: Cy (1 hand), in the 1 hands played at the table." in recap.text


def test_stuck_most_names_every_player_tied_on_the_most_stuck_hands():
    # Bob stuck in 2 and 3, Cy in 2 and 4, Ann in 4: Bob and Cy, two hands each.
    recap = recap_of([(2, [0, 10, 10], 0, (1, 2)), (3, [0, 10, 10], 0, (1,)), (4, [10, 0, 10], 1, (0, 2))])
    assert (recap.stuck_most, recap.stuck_hands) == (("Bob", "Cy"), 2)
    assert "Stuck most: Bob & Cy (2 hands each)." in recap.text
    one = recap_of([(2, [0, 10, 10], 0, (2,)), (3, [0, 10, 10], 0, ())])
    assert "Stuck most: Cy (1 hand)." in one.text


def test_nobody_is_stuck_when_every_hand_ended_laid_down_or_gone_out():
    # Going out counts as laid down even where the laid-down mark was left off (an imported game).
    hands = [RoundPlay(2, [0, 10, 10], [True, False, False], [False, True, True])]
    recap = game_recap(["Ann", "Bob", "Cy"], hands, "Rules", NIGHT)
    assert (recap.stuck_most, recap.stuck_hands) == ((), 0)
    assert "Nobody stuck." in recap.text and "Stuck most" not in recap.text


def test_the_share_text_is_a_few_short_plain_lines():
    records = [NightRecord("Lowest final score", "Ann", 5, "Shanghai Rummy (family rules, 7 hands)", 1),
               NightRecord("Most hands won in one game", "Ann", 2, None, 1)]
    recap = recap_of([(2, [0, 10, 25], 0, (2,)), (3, [5, 0, 30], 1, (2,))], records=records)
    assert recap.text == (
        "Shanghai Rummy (family rules, 7 hands) · Sat 21 Nov 2026\n"
        "Ann wins with 5, 5 ahead of Bob.\n"
        "Went out: Ann 1 (R2), Bob 1 (R3).\n"
        "Biggest catch: Cy 30 in R3, when Bob went out.\n"
        "Stuck most: Cy (2 hands).\n"
        "Records: lowest final score, Ann 5; most hands won in one game, Ann 2."
    )
    assert recap.title == "Game night, Sat 21 Nov 2026"
    other_rules = recap_of([(2, [0, 10, 25], 0, ())], records=[NightRecord("Lowest final score", "Di", 60,
                                                                              "Shanghai Rummy (10 contracts)", 2)])
    assert other_rules.text.endswith("Record: lowest final score under Shanghai Rummy (10 contracts), Di 60.")
    no_records = recap_of([(2, [0, 10, 25], 0, ())])
    assert "Record" not in no_records.text and len(no_records.text.splitlines()) == 5


# -- the standings page ---------------------------------------------------------------------
#
# shanghai-10: 2–10 = 5 · J Q K = 10 · A = 15 · Joker = 15 · going out blind −25
TEN = [
    (1, "Ann", {"Bob": "K", "Cy": "5"}, {"stuck": ["Cy"]}),          # Bob 10, Cy 5
    (2, "Ann", {"Bob": "K", "Cy": "5"}, {"stuck": ["Cy"]}),          # Bob 10, Cy 5
    (3, "Bob", {"Ann": "K", "Cy": "5"}, {"bonus": "blind"}),         # Bob −25, Ann 10, Cy 5
    (4, "Ann", {"Bob": "5", "Cy": "K"}, {"stuck": ["Cy"]}),          # Bob 5, Cy 10
    (5, "Cy", {"Ann": "5", "Bob": "5"}, {"stuck": ["Bob"]}),         # Ann 5, Bob 5
    *[(n, "Ann", {"Bob": "5", "Cy": "5"}) for n in range(6, 11)],    # Bob 25, Cy 25
]
# Ann 10+5 = 15 · Bob 10+10−25+5+5+25 = 30 · Cy 5+5+5+10+25 = 50 · stuck: Cy 3, Bob 1


def share_text(response) -> str:
    found = re.search(r"<textarea[^>]*data-share-text[^>]*>(.*?)</textarea>", response.text, flags=re.DOTALL)
    return html.unescape(found.group(1)) if found else ""


def recap_text(response) -> str:
    found = re.search(r'<section class="result recap".*?</section>', response.text, flags=re.DOTALL)
    return text_of(found.group(0)) if found else ""


def test_after_the_last_round_the_standings_show_the_recap_and_the_text_to_share(client, app):
    game_id = play(client, app, "shanghai-10", ["Ann", "Bob", "Cy"], TEN)
    page = client.get(f"/games/{game_id}/standings")
    shown = recap_text(page)
    assert "Ann wins with 15 points, the lowest total after 10 rounds. 15 points ahead of Bob." in shown
    assert "Went out Ann 8× R1, R2, R4, R6, R7, R8, R9, R10 Bob 1× R3 \u221225 Cy 1× R5" in shown
    assert "Biggest catch Bob · 10 points in round 1, when Ann went out" in shown
    assert "Stuck most Cy · 3 hands" in shown
    assert "New family record" not in shown  # the family's first evening breaks none
    # Drawn for the script (early.js marks the page before its first paint); app.css hides it without one.
    assert 'data-share-button>Share the result</button>' in page.text
    today = datetime.now(UTC).replace(tzinfo=None).strftime("%a %d %b %Y")
    assert share_text(page) == (
        f"Shanghai Rummy (10 contracts) · {today}\n"
        "Ann wins with 15, 15 ahead of Bob.\n"
        "Went out: Ann 8 (R1, R2, R4, R6, R7, R8, R9, R10), Bob 1 (R3 \u221225), Cy 1 (R5).\n"
        "Biggest catch: Bob 10 in R1, when Ann went out.\n"
        "Stuck most: Cy (3 hands)."
    )


def test_an_unfinished_game_shows_no_recap(client, app):
    game_id = play(client, app, "shanghai-10", ["Ann", "Bob", "Cy"], TEN[:9])
    page = client.get(f"/games/{game_id}/standings")
    assert "Leading after 9 of 10: Ann" in text_of(page)
    assert recap_text(page) == "" and share_text(page) == ""
    assert "data-share" not in page.text and "Stuck most" not in page.text


def test_the_margin_names_every_runner_up_and_a_shared_win_says_so(client, app):
    # family-7, hand 1 skipped: 2–9 = 5 · 10 J Q K = 10 · A = 15 · Joker = 20
    rounds = [(2, "Ann", {"Bob": "K", "Cy": "5"}), (3, "Bob", {"Ann": "5", "Cy": "5"}),
              (4, "Ann", {"Bob": "5", "Cy": "5"}), (5, "Bob", {"Ann": "K", "Cy": "5"}),
              (6, "Cy", {"Ann": "5", "Bob": "5"}), (7, "Ann", {"Bob": "5", "Cy": "5"})]
    # Ann 5+10+5 = 20 · Bob 10+5+5+5 = 25 · Cy 5+5+5+5+5 = 25: Bob and Cy level behind Ann
    game_id = play(client, app, "family-7", ["Ann", "Bob", "Cy"], rounds, skip_first_hand=True)
    shown = recap_text(client.get(f"/games/{game_id}/standings"))
    assert "Ann wins with 20 points, the lowest total after 6 rounds. 5 points ahead of Bob & Cy." in shown
    assert "Nobody: everyone laid down every hand." in shown

    shared = [(2, "Ann", {"Bob": "5", "Cy": "K"}), (3, "Bob", {"Ann": "K", "Cy": "K"}),
              (4, "Cy", {"Ann": "5", "Bob": "5"}), (5, "Ann", {"Bob": "5", "Cy": "5"}),
              (6, "Bob", {"Ann": "5", "Cy": "5"}), (7, "Ann", {"Bob": "5", "Cy": "5"})]
    # Ann 10+5+5 = 20 · Bob 5+5+5+5 = 20 · Cy 10+10+5+5+5 = 35
    game_id = play(client, app, "family-7", ["Ann", "Bob", "Cy"], shared, skip_first_hand=True)
    page = client.get(f"/games/{game_id}/standings")
    assert ("Shared win: Ann & Bob with 20 points, the lowest total after 6 rounds. "
            "Level on 20, 15 points ahead of Cy.") in recap_text(page)
    assert "\nAnn & Bob share the win with 20, 15 ahead of Cy.\n" in share_text(page)

    level = [(2, "Ann", {"Bob": "5", "Cy": "K"}), (3, "Bob", {"Ann": "K", "Cy": "5"}),
             (4, "Cy", {"Ann": "5", "Bob": "K"}), (5, "Ann", {"Bob": "5", "Cy": "5"}),
             (6, "Bob", {"Ann": "5", "Cy": "5"}), (7, "Cy", {"Ann": "5", "Bob": "5"})]
    # Ann 10+5+5+5 = 25 · Bob 5+10+5+5 = 25 · Cy 10+5+5+5 = 25
    game_id = play(client, app, "family-7", ["Ann", "Bob", "Cy"], level, skip_first_hand=True)
    page = client.get(f"/games/{game_id}/standings")
    assert "Shared win: Ann & Bob & Cy with 25 points" in recap_text(page)
    assert "Everyone level on 25." in recap_text(page)
    assert "\nAnn, Bob & Cy share the win with 25.\n" in share_text(page)


# The records: an earlier evening (E), then two games on one evening (T1, T2) and one the day after (T3).
# family-7, hand 1 skipped.
EARLIER = [
    (2, "Ann", {"Bob": "K", "Cy": "K K"}, {"stuck": ["Cy"]}),  # Bob 10, Cy 20
    (3, "Ann", {"Bob": "5", "Cy": "Q"}),                      # Bob 5, Cy 10
    (4, "Bob", {"Ann": "5", "Cy": "A"}, {"stuck": ["Cy"]}),   # Ann 5, Cy 15
    (5, "Ann", {"Bob": "J", "Cy": "5 5"}),                    # Bob 10, Cy 10
    (6, "Cy", {"Ann": "5", "Bob": "5"}),                      # Ann 5, Bob 5
    (7, "Ann", {"Bob": "10", "Cy": "JK"}),                    # Bob 10, Cy 20
]
# Ann 10 · Bob 40 · Cy 75 · out: Ann 4 · stuck: Cy 2
# records: lowest 10 (Ann), highest 75 (Cy), most hands won 4 (Ann), stuck most 2 (Cy)
BREAKER = [
    (2, "Bob", {"Ann": "K", "Cy": "K"}, {"stuck": ["Cy"]}),   # Ann 10, Cy 10
    (3, "Bob", {"Ann": "5", "Cy": "5"}, {"stuck": ["Cy"]}),   # Ann 5, Cy 5
    (4, "Bob", {"Ann": "5", "Cy": "5"}),
    (5, "Bob", {"Ann": "5", "Cy": "5"}),
    (6, "Bob", {"Ann": "5", "Cy": "5"}),
    (7, "Ann", {"Bob": "5", "Cy": "5"}),                      # Bob 5, Cy 5
]
# Ann 30 · Bob 5 · Cy 35 · out: Bob 5 · stuck: Cy 2
# breaks: lowest (Bob 5 < 10), most hands won (Bob 5 > 4); not: highest (35 < 75), stuck most (2 = 2: E keeps it)


def record_lines(response) -> list[str]:
    return [text_of(li) for li in re.findall(r'<ul class="night-records">(.*?)</ul>', response.text, flags=re.DOTALL)
            for li in re.findall(r"<li>(.*?)</li>", li, flags=re.DOTALL)]


def days_ago(days: int, hour: int) -> datetime:
    """``hour`` o'clock (UTC, as games are dated) that many days before today."""
    day = datetime.now(UTC).date() - timedelta(days=days)
    return datetime(day.year, day.month, day.day, hour)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_record_broken_that_evening_shows_and_one_held_from_an_earlier_day_does_not(client, app):
    names = ["Ann", "Bob", "Cy"]
    earlier = play(client, app, "family-7", names, EARLIER, skip_first_hand=True)
    set_start(app, earlier, days_ago(7, 20))
    breaker = play(client, app, "family-7", names, BREAKER, skip_first_hand=True)
    set_start(app, breaker, days_ago(3, 19))
    again = play(client, app, "family-7", names, EARLIER, skip_first_hand=True)  # later that evening: no record
    set_start(app, again, days_ago(3, 21))
    next_day = play(client, app, "family-7", names, EARLIER, skip_first_hand=True)  # today

    page = client.get(f"/games/{breaker}/standings")
    assert "New family records" in recap_text(page)
    assert record_lines(page) == ["Lowest final score Bob 5", "Most hands won in one game Bob 5"]
    assert "Highest final score" not in recap_text(page)  # 75, an earlier evening's, stands
    assert "Stuck most often" not in recap_text(page)  # 2 equalled: the earlier evening still holds it
    assert share_text(page).endswith("\nRecords: lowest final score, Bob 5; most hands won in one game, Bob 5.")

    # Another game of the same evening tells of them, linking the game that broke them.
    later = client.get(f"/games/{again}/standings")
    assert record_lines(later) == ["Lowest final score Bob 5 · another game that night",
                                   "Most hands won in one game Bob 5 · another game that night"]
    assert f'href="/games/{breaker}/standings">another game that night</a>' in later.text
    # The day after, and on the earlier evening (the family's first: records set, none broken), none.
    for other in (next_day, earlier):
        page = client.get(f"/games/{other}/standings")
        assert "New family record" not in page.text and "Record" not in share_text(page)
        assert "Stuck most Cy · 2 hands" in recap_text(page)


def test_the_first_evening_under_new_rules_breaks_no_score_record_but_may_break_the_others(client, app):
    earlier = play(client, app, "family-7", ["Ann", "Bob", "Cy"], EARLIER, skip_first_hand=True)
    set_start(app, earlier, days_ago(7, 20))
    game_id = play(client, app, "shanghai-10", ["Ann", "Bob", "Cy"], TEN)  # Ann out 8 times (1, 2, 4, 6–10); 4 was the record
    page = client.get(f"/games/{game_id}/standings")
    # Cy stuck 3 times beats 2; no "Lowest final score Ann 15", the first under these rules.
    assert record_lines(page) == ["Most hands won in one game Ann 8", "Stuck most often in one game Cy 3"]
    assert share_text(page).endswith(
        "\nRecords: most hands won in one game, Ann 8; stuck most often in one game, Cy 3.")


def test_a_score_keepers_link_sees_the_recap_but_not_the_familys_records(client, app, actions):
    names = ["Ann", "Bob", "Cy"]
    earlier = play(client, app, "family-7", names, EARLIER, skip_first_hand=True)
    set_start(app, earlier, days_ago(7, 20))
    game_id = play(client, app, "family-7", names, BREAKER[:5], skip_first_hand=True)
    keep = share(client, game_id, "keep")
    phone = strict_client(app, None)
    assert phone.get(keep).status_code == 302
    actions.on(phone).record(actions.player_ids(game_id), game_id, 7, *BREAKER[5][1:3], laid_down=names)

    assert record_lines(client.get(f"/games/{game_id}/standings"))  # the family sees them
    seen = phone.get(f"/games/{game_id}/standings")
    assert "Bob wins with 5 points" in recap_text(seen)
    assert "Went out Bob 5×" in recap_text(seen)
    assert record_lines(seen) == [] and "Record" not in share_text(seen)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_member_of_another_family_on_a_score_keepers_link_sees_that_game_only(client, app, actions):
    """Signed in elsewhere is no key to this family: the link shows its one game, as to anyone."""
    names = ["Ann", "Bob", "Cy"]
    earlier = play(client, app, "family-7", names, EARLIER, skip_first_hand=True)
    set_start(app, earlier, days_ago(7, 20))
    game_id = play(client, app, "family-7", names, BREAKER, skip_first_hand=True)
    keep = share(client, game_id, "keep")
    assert record_lines(client.get(f"/games/{game_id}/standings"))  # the family's own member sees them

    actions.add_member("The Joneses", "jones")
    jones = strict_client(app, "jones")
    assert jones.get(keep).status_code == 302
    seen = jones.get(f"/games/{game_id}/standings")
    assert "Bob wins with 5 points" in recap_text(seen)
    assert record_lines(seen) == [] and "Record" not in share_text(seen)
    for member_only in ("/history", "/records", f"/games/{game_id}/share", f"/games/{game_id}/paper"):
        assert f'href="{member_only}"' not in seen.text, member_only
    assert jones.get(f"/games/{earlier}/standings").status_code == 404  # another game of that family
    assert "Jasper" not in jones.get("/history").text and "Ann" not in jones.get("/players").text
