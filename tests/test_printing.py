"""Printed score sheets and rule cards: the text inside the PDFs, one page, web and CLI."""

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from pypdf import PdfReader

from scorekeeper import rules
from scorekeeper.printing import documents
from tests.pages import text_of

PNG_DIR = Path(__file__).parent / "screenshots" / "pdf"
PLAYERS_8 = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def pdf_text(pdf: bytes) -> tuple[int, str]:
    """Page count and the first page's text with whitespace collapsed."""
    reader = PdfReader(io.BytesIO(pdf))
    return len(reader.pages), " ".join(reader.pages[0].extract_text().split())


def keep_png(pdf: bytes, name: str) -> None:
    """Render the first page to tests/screenshots/pdf (not in git) for a human to look at."""
    if shutil.which("pdftoppm"):
        PNG_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdftoppm", "-r", "60", "-png", "-singlefile", "-", str(PNG_DIR / name)],
                       input=pdf, check=True)


def render(app, document) -> bytes:
    with app.test_request_context():
        return documents.render(document)


@pytest.mark.parametrize("paper", documents.PAPERS)
@pytest.mark.parametrize("key", list(rules.VARIANTS))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_blank_sheet_for_eight_players_fits_one_page_with_every_round_and_dealer(app, key, paper):
    variant = rules.get_variant(key)
    names = PLAYERS_8[: variant.max_players]
    sheet = documents.blank_sheet(key, names, first_dealer="Cy")
    pdf = render(app, documents.sheet_document(sheet, paper))
    pages, text = pdf_text(pdf)
    keep_png(pdf, f"blank-{key}-{paper}")
    assert pages == 1
    assert variant.name in text
    for name in names:
        assert name in text
    # Each round in order: number, contract (min cards), buys, cards dealt, then its dealer.
    # Cy is seat 2, so round i is dealt by seat (2 + i) % 8.
    position = 0
    for index, round_ in enumerate(variant.rounds):
        dealer = names[(2 + index) % len(names)]
        pattern = re.compile(
            rf"{round_.number} {re.escape(round_.contract.capitalize())} \({round_.min_cards}\) "
            rf"{round_.buy_limit} buys {round_.cards_dealt} {dealer}\b"
        )
        match = pattern.search(text, position)
        assert match, f"round {round_.number} with dealer {dealer} not found in order"
        position = match.end()
    assert "Winner" in text and "Date" in text


@pytest.mark.parametrize("paper", documents.PAPERS)
@pytest.mark.parametrize("players", [2, 4, 6, 8])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_deal_heading_fits_its_column(app, tmp_path, players, paper):
    """"Deal" ends with room to spare before "Dealer" begins (its cell's padding and the rule between):
    at 2-4 players it ran into the rule and was cut. Where the words are, from poppler's pdftotext."""
    if not shutil.which("pdftotext"):
        if os.environ.get("CI"):
            raise RuntimeError("CI needs poppler-utils (pdftotext); .ci/run installs it")
        pytest.skip("pdftotext (poppler-utils) is not installed")
    sheet = documents.blank_sheet("shanghai-10", PLAYERS_8[:players])
    (tmp_path / "sheet.pdf").write_bytes(render(app, documents.sheet_document(sheet, paper)))
    boxes = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "sheet.pdf"), "-"], capture_output=True,
                           text=True, check=True).stdout
    x = {word: (float(low), float(high)) for low, high, word in
         re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">(Deal|Dealer)</word>', boxes)}
    assert x["Dealer"][0] - x["Deal"][1] >= 5.5  # points: 2 mm of padding either side of the rule


def test_blank_sheet_key_states_points_and_buying_in_one_line_each(app):
    pdf = render(app, documents.sheet_document(documents.blank_sheet("shanghai-rum", 5), "letter"))
    _, text = pdf_text(pdf)
    assert "Points: 2♥♦ 3–10: 5 · J Q K: 10 · A: 15 · 2♠♣: 50 · Joker: 25" in text
    assert "Buying: 2 buys per hand; a buy brings 3 cards; no buying after laying down." in text
    assert "3 decks + 6 jokers (162 cards) for 5 players" in text


def test_blank_sheet_with_hand_one_skipped_starts_at_round_two(app):
    sheet = documents.blank_sheet("family-7", ["Ann", "Bob", "Cy"], first_dealer="Bob", skip_first_hand=True)
    _, text = pdf_text(render(app, documents.sheet_document(sheet, "a4")))
    assert "6 rounds" in text and "hand 1 skipped" in text
    assert "2 One set, one run (7) 4 buys 11 Bob" in text
    assert "Two sets (6)" not in text


@pytest.mark.parametrize("paper", documents.PAPERS)
@pytest.mark.parametrize("key", list(rules.VARIANTS))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_rule_card_fits_one_page_with_contracts_points_and_buying(app, key, paper):
    variant = rules.get_variant(key)
    pdf = render(app, documents.rule_card_document(documents.rule_card(key), paper))
    pages, text = pdf_text(pdf)
    keep_png(pdf, f"rulecard-{key}-{paper}")
    assert pages == 1
    position = 0
    for round_ in variant.rounds:
        found = text.find(f"{round_.number} {round_.contract.capitalize()} {round_.min_cards}", position)
        assert found >= 0, f"round {round_.number} missing or out of order"
        position = found
    assert documents._point_key(variant) in text
    assert variant.source in text
    if variant.down_may_buy:
        assert "may still buy" in text
    else:
        assert "A player who has laid down may not buy." in text


def test_rule_card_names_bonuses_and_joker_limits(app):
    _, text = pdf_text(render(app, documents.rule_card_document(documents.rule_card("shanghai-10"), "letter")))
    assert "Went out blind (used a joker): -25" in text
    assert "Went out blind, no joker: -50" in text
    assert "1 in a set of 3 or a sequence of 4" in text
    assert "2–4 2 decks + 1 joker (105 cards)" in text


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"variant": "canasta", "players": 4}, "Unknown preset 'canasta'"),
        ({"variant": "family-7", "players": 9}, "is for 3–8 players, not 9"),
        ({"variant": "shanghai-10", "players": ["Ann"]}, "is for 2–8 players, not 1"),
        ({"variant": "online-11", "players": ["Ann", "Bob"], "first_dealer": "Zed"}, "'Zed' is not one of the players"),
        ({"variant": "online-11", "players": ["Ann", "ann"]}, "only once"),
        ({"variant": "online-11", "players": 4, "first_dealer": "Ann"}, "Give the players' names"),
        ({"variant": "online-11", "players": 4, "skip_first_hand": True}, "no option to skip hand 1"),
    ],
)
def test_blank_sheet_refuses_bad_arguments(kwargs, message):
    with pytest.raises(documents.PrintError, match=re.escape(message)):
        documents.blank_sheet(**kwargs)


# -- a played game --------------------------------------------------------------------------


def play_two_rounds(client) -> int:
    """family-7, Ann Bob Cy, Cy deals first; two hands recorded with known points."""
    response = client.post(
        "/games/new/seating",
        data={"variant": "family-7", "seat": ["n:Ann", "n:Bob", "n:Cy"], "first_dealer": "n:Cy"},
    )
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    client.post(f"/games/{game_id}/rounds/1/buy", data={"player": 2})
    # Round 1: Ann out; Bob K K = 20; Cy Joker 9 = 25.
    client.post(f"/games/{game_id}/rounds/1/score", data={
        "went_out": "1", "p2-k_K": "2", "p2-buys": "1", "p3-k_JK": "1", "p3-k_9": "1",
        "p3-laid_down": "y", "action": "save", "version": "1"})  # the buy moved the hand to version 1
    # Round 2: Bob out; Ann A = 15; Cy a counted total of 40.
    client.post(f"/games/{game_id}/rounds/2/score", data={
        "went_out": "2", "p1-k_A": "1", "p3-total": "40", "action": "save", "version": "0"})
    return game_id


def test_filled_sheet_shows_points_running_totals_and_leader(client):
    game_id = play_two_rounds(client)
    response = client.get(f"/games/{game_id}/sheet.pdf?paper=a4")
    assert response.status_code == 200
    assert response.mimetype == "application/pdf"
    assert re.fullmatch(r'inline; filename="family-7-score-sheet-\d{4}-\d{2}-\d{2}\.pdf"',
                        response.headers["Content-Disposition"])
    pages, text = pdf_text(response.data)
    keep_png(response.data, "filled-family-7-a4")
    assert pages == 1
    assert "Our family" in text and "in progress" in text
    # Round rows: 1 dealt by Cy, 2 by Ann, 3 by Bob.
    assert "1 Two sets (6) 4 buys 11 Cy" in text
    assert "2 One set, one run (7) 4 buys 11 Ann" in text
    assert "3 Two runs (8) 4 buys 11 Bob" in text
    assert "Total 15 20 65" in text  # Ann 0+15, Bob 20+0, Cy 25+40
    assert "Leading: Ann" in text


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_filled_sheet_of_a_finished_game_names_the_winner(client, app):
    game_id = play_two_rounds(client)
    for number in range(3, 8):  # Ann goes out every remaining hand; Bob and Cy hold a 5 each.
        client.post(f"/games/{game_id}/rounds/{number}/score", data={
            "went_out": "1", "p2-k_5": "1", "p3-k_5": "1", "action": "save", "version": "0"})
    _, text = pdf_text(client.get(f"/games/{game_id}/sheet.pdf").data)
    assert "Total 15 45 90" in text
    assert "Winner: Ann (15)" in text


def test_repeated_download_of_an_unchanged_sheet_is_304_and_changes_follow_the_game(client):
    game_id = play_two_rounds(client)
    first = client.get(f"/games/{game_id}/sheet.pdf")
    etag = first.headers["ETag"]
    again = client.get(f"/games/{game_id}/sheet.pdf", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    client.post(f"/games/{game_id}/rounds/3/score", data={
        "went_out": "1", "p2-k_5": "1", "p3-k_5": "1", "action": "save", "version": "0"})
    changed = client.get(f"/games/{game_id}/sheet.pdf", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_paper_choice_is_remembered(client):
    response = client.get("/print/rules/family-7.pdf?paper=a4")
    assert response.headers["Content-Disposition"] == 'inline; filename="family-7-rule-card.pdf"'
    a4 = PdfReader(io.BytesIO(response.data)).pages[0].mediabox
    later = client.get("/print/rules/shanghai-10.pdf")  # no paper asked: the cookie decides
    assert PdfReader(io.BytesIO(later.data)).pages[0].mediabox == a4
    assert round(float(a4.width)) == 595  # A4 portrait, in points
    letter = client.get("/print/rules/shanghai-10.pdf?paper=letter")
    assert round(float(PdfReader(io.BytesIO(letter.data)).pages[0].mediabox.width)) == 612


def test_blank_sheet_page_and_its_errors(client):
    page = client.get("/print?variant=online-11")
    assert page.status_code == 200 and b"Print a blank score sheet" in page.data
    ok = client.get("/print/sheet.pdf?variant=online-11&players=Ann,Bob,Cy&first_dealer=Bob&paper=letter")
    assert ok.mimetype == "application/pdf"
    assert "1 Two sets (6) 3 buys 11 Bob" in pdf_text(ok.data)[1]
    bad = client.get("/print/sheet.pdf?variant=online-11&players=Ann,Bob&first_dealer=Zed")
    assert bad.status_code == 400
    assert b"The first dealer &#39;Zed&#39; is not one of the players." in bad.data
    assert b'value="Ann,Bob"' in bad.data  # what was typed stays
    assert client.get("/print/sheet.pdf?variant=nope&count=4").status_code == 400
    assert client.get("/print/sheet.pdf?variant=online-11&count=").status_code == 400
    assert client.get("/print/rules/nope.pdf").status_code == 404


# -- command line ---------------------------------------------------------------------------


def test_cli_blank_sheet_and_rule_card(runner, tmp_path):
    out = tmp_path / "sheet.pdf"
    result = runner.invoke(args=["sheet", "--variant", "shanghai-10", "--players", "Ann,Bob,Cy",
                                 "--first-dealer", "Bob", "--paper", "a4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    pages, text = pdf_text(out.read_bytes())
    assert pages == 1 and "1 Two sets of 3 (6) 3 buys 11 Bob" in text
    card = tmp_path / "card.pdf"
    result = runner.invoke(args=["rulecard", "--variant", "online-11", "-o", str(card)])
    assert result.exit_code == 0, result.output
    assert "Four runs" in pdf_text(card.read_bytes())[1]


def test_cli_filled_sheet(client, runner, tmp_path):
    game_id = play_two_rounds(client)
    out = tmp_path / "game.pdf"
    result = runner.invoke(args=["sheet", "--game", str(game_id), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Total 15 20 65" in pdf_text(out.read_bytes())[1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["sheet", "--variant", "canasta"], "Unknown preset 'canasta'"),
        (["sheet", "--variant", "family-7", "--players", "9"], "is for 3–8 players, not 9"),
        (["sheet", "--variant", "family-7", "--players", "A,B,C,D,E,F,G,H,I"], "not 9"),
        (["sheet", "--variant", "family-7", "--players", "Ann,Bob,Cy", "--first-dealer", "Zed"], "'Zed' is not one of"),
        (["sheet", "--game", "999"], "There is no game 999."),
        (["sheet"], "Give either --variant"),
        (["rulecard", "--variant", "canasta"], "Unknown preset 'canasta'"),
    ],
)
def test_cli_bad_arguments_print_one_line_and_leave_no_file(runner, tmp_path, args, message):
    folder = tmp_path / "out"
    folder.mkdir()
    result = runner.invoke(args=args + ["-o", str(folder / "out.pdf")])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert list(folder.iterdir()) == []


def test_cli_paper_must_be_letter_or_a4(runner, tmp_path):
    result = runner.invoke(args=["rulecard", "--variant", "family-7", "--paper", "legal", "-o", str(tmp_path / "x.pdf")])
    assert result.exit_code != 0 and "letter" in result.output
    assert not (tmp_path / "x.pdf").exists()


def test_rendering_never_fetches_from_the_network(app):
    html = '<img src="http://example.invalid/x.png"><p>local</p>'
    with app.app_context():
        pdf = documents.html_to_pdf(html)
    assert "local" in pdf_text(pdf)[1]


def test_without_pango_a_pdf_says_what_to_install_and_the_rest_of_the_app_works(app, client, runner, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # as when WeasyPrint cannot load Pango
    documents.cache.clear()
    response = FlaskClient(app).get("/print/rules/family-7.pdf")  # a public page; 503 is the answer wanted
    assert response.status_code == 503
    assert "Printing needs Pango" in text_of(response) and "libpango-1.0-0" in text_of(response)
    assert client.get("/").status_code == 200
    out = tmp_path / "card.pdf"
    result = runner.invoke(args=["rulecard", "--variant", "family-7", "-o", str(out)])
    assert result.exit_code != 0 and "Printing needs Pango" in result.output
    assert not out.exists()
