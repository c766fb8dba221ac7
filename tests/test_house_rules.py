"""House rules through the pages: the editor, its checks, a game played with a family's own
rules, editing and deleting them afterwards, rule cards and sheets, and rules files."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser

import pytest

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import HouseRules
from tests.databases import db_snapshot, strict_client
from tests.pages import text_of
from tests.test_printing import pdf_text


class _Fields(HTMLParser):
    """The values a browser would send for a form: inputs, checked boxes, textareas."""

    def __init__(self):
        super().__init__()
        self.data: list[tuple[str, str]] = []
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("name") and a.get("type") not in ("file", "submit"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.data.append((a["name"], a.get("value") or ("y" if a.get("type") == "checkbox" else "")))
        elif tag == "textarea":
            self._textarea = a["name"]
            self.data.append((a["name"], ""))

    def handle_data(self, data):
        if self._textarea:
            name, value = self.data[-1]
            self.data[-1] = (name, value + data)

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea:
            name, value = self.data[-1]
            self.data[-1] = (name, value.removeprefix("\n"))
            self._textarea = None


def form_fields(page) -> dict[str, str]:
    parser = _Fields()
    parser.feed(page.get_data(as_text=True))
    return dict(parser.data)


def editor(client, start: str = "") -> dict[str, str]:
    page = client.get(f"/house-rules/new?from={start}")
    assert page.status_code == 200
    return form_fields(page)


def save(client, data: dict, url: str = "/house-rules/new") -> int:
    response = client.post(url, data=data)
    assert response.status_code == 302, text_of(response)
    match = re.fullmatch(r"/house-rules/(\d+)", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


def stored(app, rules_id: int) -> rules.Variant:
    with app.app_context():
        return db.session.get(HouseRules, rules_id).variant


def rounds_fields(rows: list[tuple[str, int, int]]) -> dict[str, str]:
    data = {}
    for i, (melds, dealt, buys) in enumerate(rows):
        data |= {f"rounds-{i}-melds": melds, f"rounds-{i}-cards_dealt": str(dealt), f"rounds-{i}-buy_limit": str(buys)}
    return data


def without_rows(data: dict[str, str], *lists: str) -> dict[str, str]:
    return {k: v for k, v in data.items() if not k.startswith(tuple(f"{name}-" for name in lists))}


# Gran's rules, worked through by hand below: 3 rounds, face-value points, all 2s wild at 20,
# jokers 30, going out −5 × the round number, blind bonuses, a bonus for cutting the exact
# number of cards, and unused buys carried over.
GRAN = {
    "name": "Gran's Shanghai", "source": "Gran, kitchen table 1987",
    "min_players": "2", "max_players": "4",
    "deck_rules-0-min_players": "2", "deck_rules-0-max_players": "4",
    "deck_rules-0-decks": "2", "deck_rules-0-jokers": "2",
    **rounds_fields([("2 sets of 3", 10, 1), ("1 set of 3 and 1 run of 4", 10, 1), ("pair of Aces and a run of 4", 12, 2)]),
    "cards_per_buy": "2", "buys_counted": "carry", "buys_per_turn": "0",
    "wilds": "all-2s", "wild_points": "20", "min_natural": "1", "joker_limits": "",
    **{f"p_{r}": str(int(r)) for r in rules.RANKS[:9]}, "p_J": "10", "p_Q": "10", "p_K": "10", "p_A": "15", "p_JK": "30",
    "going_out_kind": "per-round", "going_out_bonus": "5",
    "blind_bonus": "25", "blind_no_joker_bonus": "50",
    "event_label": "Cut the exact number of cards", "event_bonus": "10",
    "going_out": "", "notes": "", "buying": "", "wild_rule": "",
}


@pytest.mark.parametrize("key", list(rules.VARIANTS))
def test_a_copied_preset_saves_as_the_same_rules(client, app, key):
    data = editor(client, key)
    preset = rules.get_variant(key)
    assert data["name"] == f"{preset.name} (our rules)"
    assert data["source"] == f"Based on the preset “{preset.name}”"
    saved = stored(app, save(client, data))
    expected = {**preset.to_dict(), "name": data["name"], "source": data["source"]}
    got = saved.to_dict()
    # The editor writes contracts that read back as the same melds, and names the wild cards.
    # A copy's wild-card words leave out what its wild-card settings say (see the next test).
    for name in ("key", "wild_cards", "wild_rule"):
        expected.pop(name), got.pop(name)
    for a, b in zip(expected.pop("rounds"), got.pop("rounds")):
        assert (a["melds"], a["cards_dealt"], a["buy_limit"]) == (b["melds"], b["cards_dealt"], b["buy_limit"])
        assert rules.house.parse_melds(b["contract"]) == tuple(rules.Meld(**m) for m in a["melds"])
    if preset.suit_cards:  # the wild 2s keep their points; their key code is the editor's
        assert [sc["points"] for sc in got.pop("suit_cards")] == [sc["points"] for sc in expected.pop("suit_cards")]
    assert got == expected


@pytest.mark.parametrize("key, words", [
    ("family-7", "A joker in a run may be taken by playing the card it stands for; jokers in sets are dead."),
    ("shanghai-rum", ""), ("shanghai-10", ""), ("online-11", ""),
])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_copied_preset_says_each_wild_card_rule_once_whatever_the_wild_cards_become(client, key, words):
    data = editor(client, key)
    assert data["wild_rule"].strip() == words  # the rest is in the wild-card settings, each a line of the card
    rules_id = save(client, {**data, "wilds": "all-2s", "wild_points": "20"})
    _, text = pdf_text(client.get(f"/house-rules/{rules_id}/card.pdf").data)
    assert "Wild: Jokers and all 2s." in text
    assert "Any number of jokers" not in text and "Jokers per meld" not in text
    preset = rules.get_variant(key)
    assert text.count("natural card") == bool(preset.min_natural) + preset.wilds_at_most_naturals
    assert text.count("may not lie side by side") + text.count("may not touch") == (not preset.wilds_may_touch)


def test_blank_rules_start_with_face_values_and_one_empty_round(client):
    data = editor(client)
    assert data["name"] == "" and data["rounds-0-melds"] == ""
    assert (data["p_7"], data["p_K"], data["p_A"]) == ("7", "10", "15")
    assert "rounds-1-melds" not in data


CHECKS = [
    ({"rounds-0-melds": ""}, "round-1", "Write what must be laid down."),
    ({"rounds-1-melds": "two sets"}, "round-2", "Could not read “two sets”"),
    ({"rounds-2-melds": "3 runs of 5", "rounds-2-buy_limit": "0", "buys_counted": "hand"}, "round-3",
     "Round 3 needs 15 cards, but a player can hold at most 13 (12 dealt + 1 drawn + 0 bought)."),
    ({"p_K": "-5"}, "points", "Points cannot be negative"),
    ({"p_JK": "x"}, "points", "Enter a whole number."),
    ({"max_players": "6"}, "players", "No row says which decks 5 players use."),
    ({"deck_rules-0-decks": "1", "deck_rules-0-jokers": "0", "max_players": "4", "rounds-2-cards_dealt": "13"},
     "players", "1 deck and 0 jokers are 52 cards: too few to deal 13 each to 4 players"),
    ({"min_players": "5"}, "players", "The most players cannot be fewer than the fewest."),
    ({"wilds": "none"}, "wild", "No wild cards, so no jokers"),
    ({"min_natural": "3"}, "wild", "Round 3 has a meld of 2 cards: it cannot need 3 natural cards."),
    ({"joker_limits": "set of 3 = many"}, "wild", "Could not read “set of 3 = many”"),
    ({"going_out_bonus": ""}, "going-out", "Enter the bonus for going out."),
    ({"event_bonus": ""}, "going-out", "Enter the bonus's points."),
    ({"buys_counted": "game"}, "buying", "Enter the buys for the whole game."),
    ({"name": "  "}, "", "Give your rules a name."),
]


@pytest.mark.parametrize(("change", "section", "message"), CHECKS)
def test_rules_that_cannot_work_are_refused_beside_the_field_keeping_what_was_typed(client, app, change, section, message):
    before = db_snapshot(app)
    page = client.post("/house-rules/new", data={**GRAN, **change})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    if section:
        part = html.split(f'id="{section}"', 1)[1].split("</fieldset>", 1)[0]
        assert message in text_of(part)
    assert message in text_of(page)
    assert "Some rules need another look" in text_of(page)
    kept = form_fields(page)
    for name, value in change.items():
        assert kept[name] == value, name
    assert db_snapshot(app) == before


def test_rules_with_a_name_the_family_uses_are_refused(client):
    save(client, GRAN)
    page = client.post("/house-rules/new", data={**GRAN, "name": "gran's shanghai"})
    assert "Your family already has rules called “gran's shanghai”." in text_of(page)


def test_rounds_are_added_moved_and_removed_without_losing_what_was_typed(client, app):
    before = db_snapshot(app)
    page = client.post("/house-rules/new", data={**GRAN, "step": "add:rounds"})
    fields = form_fields(page)
    assert fields["rounds-3-melds"] == "" and fields["rounds-2-melds"] == "pair of Aces and a run of 4"
    assert "At least 6 cards." in text_of(page)  # the pair of Aces and a run of 4
    page = client.post("/house-rules/new", data={**fields, "rounds-3-melds": "3 runs of 4",
                                                 "rounds-3-cards_dealt": "12", "rounds-3-buy_limit": "3",
                                                 "step": "up:rounds:3"})
    fields = form_fields(page)
    assert [fields[f"rounds-{i}-melds"] for i in range(4)] == [
        "2 sets of 3", "1 set of 3 and 1 run of 4", "3 runs of 4", "pair of Aces and a run of 4"]
    assert fields["rounds-2-buy_limit"] == "3" and fields["rounds-3-buy_limit"] == "2"
    page = client.post("/house-rules/new", data={**fields, "step": "remove:rounds:0"})
    fields = form_fields(page)
    assert [fields.get(f"rounds-{i}-melds") for i in range(4)] == [
        "1 set of 3 and 1 run of 4", "3 runs of 4", "pair of Aces and a run of 4", None]
    assert fields["name"] == "Gran's Shanghai"
    page = client.post("/house-rules/new", data={**fields, "step": "add:deck_rules"})
    assert form_fields(page)["deck_rules-1-decks"] == ""
    assert db_snapshot(app) == before  # nothing is saved until Save
    variant = stored(app, save(client, fields))
    assert [r.contract for r in variant.rounds] == ["1 set of 3 and 1 run of 4", "3 runs of 4", "pair of Aces and a run of 4"]
    assert [r.min_cards for r in variant.rounds] == [7, 12, 6]


def test_a_game_with_house_rules_from_new_game_to_the_final_result(client, actions):
    rules_id = save(client, GRAN)
    key = f"house-{rules_id}"
    assert "Gran's Shanghai" in text_of(client.get("/games/new"))
    chosen = client.get(f"/games/new?variant={key}").get_data(as_text=True)  # "New game" on the rules page
    assert re.search(rf'<input checked[^>]*value="{key}"|<input[^>]*value="{key}"[^>]*checked', chosen)
    game_id = actions.new_game(key, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    screen = text_of(client.get(f"/games/{game_id}"))
    assert "2 sets of 3" in screen and "Deal 10 cards" in screen and "2 decks + 2 jokers (106 cards)" in screen
    assert "Going out scores −5 × the round number" not in screen  # (the rule card says it; see below)

    # Round 1: Ann goes out (−5 × 1). Bob holds K 7 = 17 and cut the exact number: −10 → 7.
    # Cy holds a wild 2 (20) and a joker (30) = 50. Nobody buys, so Cy carries 1 buy over.
    actions.record(ids, game_id, 1, "Ann", {"Bob": {"k_K": 1, "k_7": 1, "event": "y"}, "Cy": "2W JK"})

    # Round 2: Cy may buy 1 + 1 carried = 2 times; the third is refused.
    for _ in range(2):
        client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Cy"]})
    refused = client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Cy"]}, follow_redirects=True)
    assert "Cy has used all 2 buys this round." in text_of(refused)
    assert "2/2" in text_of(client.get(f"/games/{game_id}"))
    # Bob goes out blind without a joker: −5 × 2 − 50 = −60. Ann: A A 3 = 33. Cy: 10.
    actions.record(ids, game_id, 2, "Bob", {"Ann": "A A 3", "Cy": "10"}, bonus="blind-no-joker")

    # Round 3: Cy goes out: −5 × 3 = −15. Ann: joker 30, cut exact −10 → 20. Bob: Q 9 = 19.
    actions.record(ids, game_id, 3, "Cy", {"Ann": {"k_JK": 1, "event": "y"}, "Bob": "Q 9"})

    assert actions.stored_points(game_id) == {
        1: {"Ann": -5, "Bob": 7, "Cy": 50},
        2: {"Ann": 33, "Bob": -60, "Cy": 10},
        3: {"Ann": 20, "Bob": 19, "Cy": -15},
    }
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Bob wins" in standings
    assert re.search(r"Total -?\s*48\b.*-34\b.*45\b", standings.replace("−", "-")), standings


def test_editing_or_deleting_house_rules_leaves_a_played_game_as_it_was(client, app, actions):
    rules_id = save(client, GRAN)
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K 7 JK"})
    assert actions.stored_points(game_id)[1] == {"Ann": -5, "Bob": 47}

    changed = {**GRAN, "p_K": "50", "p_JK": "100", "going_out_kind": "zero",
               **rounds_fields([("3 sets of 3", 11, 3)])}
    assert save(client, without_rows(changed, "rounds") | rounds_fields([("3 sets of 3", 11, 3)]),
                f"/house-rules/{rules_id}/edit") == rules_id
    assert stored(app, rules_id).points["K"] == 50

    # The game keeps its copy: its screen, scores and next hand follow the rules it started with.
    assert "1 set of 3 and 1 run of 4" in text_of(client.get(f"/games/{game_id}"))
    actions.record(ids, game_id, 2, "Bob", {"Ann": "K JK"})
    assert actions.stored_points(game_id)[2] == {"Ann": 40, "Bob": -10}
    # A correction of round 1 is scored by the game's rules too.
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K K"})
    assert actions.stored_points(game_id)[1] == {"Ann": -5, "Bob": 20}

    page = client.post(f"/house-rules/{rules_id}/delete", follow_redirects=True)
    assert "Games played with them keep their rules" in text_of(page)
    assert client.get(f"/games/{game_id}").status_code == 200
    assert actions.stored_points(game_id)[2] == {"Ann": 40, "Bob": -10}
    history = client.get(f"/history?preset=house-{rules_id}")
    assert "Gran's Shanghai (deleted)" in text_of(history)
    assert "Ann" in text_of(history)
    assert client.get(f"/house-rules/{rules_id}").status_code == 404
    assert "Gran's Shanghai" not in text_of(client.get("/games/new"))


def test_house_rules_appear_in_history_filters_and_player_statistics(client, actions):
    rules_id = save(client, GRAN)
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for n, out in ((1, "Ann"), (2, "Bob"), (3, "Ann")):
        actions.record(ids, game_id, n, out, {"Bob" if out == "Ann" else "Ann": "K"})
    other = actions.new_game("family-7", ["Ann", "Bob", "Cy"])
    history = client.get(f"/history?preset=house-{rules_id}")
    assert f'value="house-{rules_id}" selected' in history.get_data(as_text=True)
    assert f"/games/{game_id}/" in history.get_data(as_text=True)
    assert f"/games/{other}/" not in history.get_data(as_text=True)
    profile = text_of(client.get(f"/players/{ids['Ann']}"))
    assert "Gran's Shanghai" in profile


def test_rule_card_and_blank_sheet_of_house_rules_hold_contracts_and_points(client):
    rules_id = save(client, GRAN)
    card = client.get(f"/house-rules/{rules_id}/card.pdf")
    assert card.status_code == 200 and card.mimetype == "application/pdf"
    pages, text = pdf_text(card.data)
    assert pages == 1
    for words in ("Gran's Shanghai", "2 sets of 3", "1 set of 3 and 1 run of 4", "Pair of Aces and a run of 4",
                  "Going out scores −5 × the round number", "K: 10", "A: 15", "Joker: 30",
                  "2♠♥♦♣: 20", "Cut the exact number of cards (anyone): -10", "carry over",
                  "Every meld needs at least 1 natural card", "1 buy in rounds 1–2, 2 buys in round 3"):
        assert words in text, words
    sheet = client.get(f"/print/sheet.pdf?variant=house-{rules_id}&players=Ann,Bob,Cy&first_dealer=Bob")
    assert sheet.status_code == 200
    pages, text = pdf_text(sheet.data)
    assert pages == 1
    for words in ("Gran's Shanghai", "2 sets of 3", "Pair of Aces and a run of 4", "Ann", "Bob", "Cy", "Joker: 30"):
        assert words in text, words
    assert "Gran's Shanghai" in text_of(client.get("/print"))


def test_a_filled_sheet_of_carried_buys_has_a_full_box_per_buy_and_an_open_box_per_buy_left(client, actions):
    """Gran's rules carry unused buys over: Bob, who saved round 1's buy, buys twice in round 2 (its own
    limit is 1). The sheet shows his two buys and no open box; Ann and Cy keep round 2's one box open."""
    rules_id = save(client, GRAN)
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    actions.record(ids, game_id, 2, "Cy", {"Ann": "K", "Bob": "5"}, buys={"Bob": 2})
    _, text = pdf_text(client.get(f"/games/{game_id}/sheet.pdf").data)
    # Under each player: the boxes, then the bonus or stuck, then ● for who went out.
    assert "1 2 sets of 3 (6) 1 buy 10 Ann -5 -5 10 10 5 5 ☐ -5 ● ☐ stuck ☐ stuck" in text
    assert "Bob 10 5 5 15 -10 -5 ☐ stuck ■■ stuck ☐ -10 ●" in text


def test_a_house_rule_cards_own_rules_stand_under_other_rules(client):
    rules_id = save(client, {**GRAN, "notes": "Tea before the last hand."})
    _, text = pdf_text(client.get(f"/house-rules/{rules_id}/card.pdf").data)
    assert "Other rules Tea before the last hand." in text and "Laying down and off" not in text
    _, text = pdf_text(client.get("/print/rules/family-7.pdf").data)
    assert "Laying down and off" in text  # a preset's notes are about laying down


def test_a_rules_file_goes_from_one_family_to_another(client, app, actions):
    rules_id = save(client, GRAN)
    exported = client.get(f"/house-rules/{rules_id}/rules.json")
    assert exported.mimetype == "application/json"
    assert 'filename="gran-s-shanghai.json"' in exported.headers["Content-Disposition"]
    actions.add_member("The Joneses", "jones")
    jones = strict_client(app, "jones")
    page = jones.post("/house-rules/import", data={"file": (io.BytesIO(exported.data), "gran.json")})
    assert page.status_code == 302, text_of(page)
    theirs = int(page.headers["Location"].rsplit("/", 1)[1])
    assert theirs != rules_id
    mine, copy = stored(app, rules_id).to_dict(), stored(app, theirs).to_dict()
    assert mine.pop("key") != copy.pop("key")
    assert copy == mine
    # The same file again adds nothing; changed rules under a name in use get a number.
    again = jones.post("/house-rules/import", data={"file": (io.BytesIO(exported.data), "gran.json")},
                       follow_redirects=True)
    assert "“Gran's Shanghai” is already here, unchanged." in text_of(again)
    changed = json.loads(exported.data)
    changed["variant"]["points"]["K"] = 25
    third = jones.post("/house-rules/import", data={"file": (io.BytesIO(json.dumps(changed).encode()), "gran.json")})
    assert stored(app, int(third.headers["Location"].rsplit("/", 1)[1])).name == "Gran's Shanghai (2)"
    # The Joneses can start a game with them; our family's list is unchanged.
    assert "Gran's Shanghai" in text_of(jones.get("/games/new"))
    assert "(2)" not in text_of(client.get("/house-rules"))


@pytest.mark.parametrize(("content", "message"), [
    (b"not json", "This is not a JSON file"),
    (json.dumps({"format": "scorekeeper-export"}).encode(), "This is not a rules file"),
    (json.dumps({"format": "scorekeeper-variant", "version": 1, "variant": {"name": "X"}}).encode(),
     "the rules snapshot is incomplete"),
])
def test_a_bad_rules_file_is_refused_beside_the_field(client, app, content, message):
    before = db_snapshot(app)
    page = client.post("/house-rules/import", data={"file": (io.BytesIO(content), "x.json")})
    assert page.status_code == 400
    assert "Nothing was imported" in text_of(page) and message in text_of(page)
    assert db_snapshot(app) == before


def test_a_rules_file_that_cannot_be_played_is_refused(client, app):
    data = json.loads(client.get(f"/house-rules/{save(client, GRAN)}/rules.json").data)
    data["variant"]["rounds"][0]["melds"] = []
    before = db_snapshot(app)
    page = client.post("/house-rules/import", data={"file": (io.BytesIO(json.dumps(data).encode()), "x.json")})
    assert "Round 1 has no melds" in text_of(page)
    assert db_snapshot(app) == before


def test_a_game_shows_its_own_rules_page_and_card(client, actions):
    rules_id = save(client, GRAN)
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"])
    screen = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'href="/games/{game_id}/rules"' in screen
    assert f'href="/games/{game_id}/rules.pdf"' in screen
    page = text_of(client.get(f"/games/{game_id}/rules"))
    assert "Gran's Shanghai" in page and "house rules" in page
    assert client.get(f"/games/{game_id}/rules.pdf").mimetype == "application/pdf"


def test_a_family_export_brings_its_house_rules_and_their_games_along(client, app, actions):
    rules_id = save(client, GRAN)
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"], first_dealer="Ann")
    actions.record(actions.player_ids(game_id), game_id, 1, "Ann", {"Bob": "K 7 JK"})
    export = client.get("/export.json").get_data()
    actions.add_member("The Joneses", "jones")
    jones = strict_client(app, "jones")
    for _ in range(2):  # the second import adds nothing
        page = jones.post("/import", data={"file": (io.BytesIO(export), "export.json")})
        assert page.status_code == 302, text_of(page)
    with app.app_context():
        theirs = db.session.execute(db.select(HouseRules).where(HouseRules.id != rules_id)).scalars().all()
    assert [row.name for row in theirs] == ["Gran's Shanghai"]
    history = jones.get(f"/history?preset={theirs[0].key}")
    game_links = re.findall(r'href="/games/(\d+)/standings"', history.get_data(as_text=True))
    assert len(game_links) == 1 and int(game_links[0]) != game_id
    assert actions.stored_points(int(game_links[0])) == {1: {"Ann": -5, "Bob": 47}}
    assert "Gran's Shanghai" in text_of(jones.get(f"/games/{game_links[0]}/rules"))
