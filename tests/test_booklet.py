"""The printed yearbook of a season: its pages read back from the PDF, the games it holds, the
command line and the download (sign-in, ETag, 404)."""

import io
import pickle
import re
import time
from datetime import date, datetime
from pathlib import Path

import pytest
from flask import render_template
from flask.testing import FlaskClient
from pypdf import PdfReader
from sqlalchemy import update

from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.families import commit_for
from scorekeeper.history.seasons import parse_period
from scorekeeper.models import FINISHED, Family, Game
from scorekeeper.printing import booklet, documents, render_queue
from scorekeeper.printing import views as printing_views
from tests import test_rules_limits as limits_tests
from tests.actions import GameActions
from tests.databases import TEST_USERNAME, make_app, sign_in_session, strict_client
from tests.pages import text_of

FRONT_PAGES = 5  # cover, contents, table, charts, records
PAGE_SIZES = {"letter": (792, 612), "a4": (841.89, 595.28)}  # points, landscape
SEASON_PAGE_LINK = re.compile(r'href="(/seasons/2026/booklet\.pdf)"')


def seed_seasons(app, client) -> list[tuple[int, date]]:
    """Three finished games in 2025, six in 2026 and an unfinished one in May 2026: the finished
    2026 games (id, day), oldest first."""
    actions = GameActions(client)
    with app.app_context():
        family = db.session.execute(db.select(Family).where(Family.name == "Our family")).scalar_one()
        seed_demo(family, 3, seed=1, end=datetime(2025, 12, 28))
        seed_demo(family, 3, seed=2, end=datetime(2026, 3, 31))
        seed_demo(family, 3, seed=3, end=datetime(2026, 6, 30))
        family_id = family.id
    unfinished = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    with app.app_context():
        db.session.execute(update(Game).where(Game.id == unfinished).values(started_at=datetime(2026, 5, 15, 12)))
        commit_for(family_id)
        return season_games(family_id, 2026)


def season_games(family_id: int, year: int) -> list[tuple[int, date]]:
    rows = db.session.execute(
        db.select(Game.id, Game.started_at)
        .where(Game.family_id == family_id, Game.status == FINISHED,
               Game.started_at >= datetime(year, 1, 1), Game.started_at < datetime(year + 1, 1, 1))
        .order_by(Game.started_at, Game.id)
    ).all()
    return [(game_id, started.date()) for game_id, started in rows]


def booklet_html(app, period: str = "2026", family: str = "Our family") -> str:
    with app.app_context():
        chosen = db.session.execute(db.select(Family).where(Family.name == family)).scalar_one()
        document = booklet.booklet_document(chosen, parse_period(period), "letter")
        return render_template(document.template, **document.context)


def booklet_pdf(app, paper: str) -> bytes:
    with app.app_context():
        family = db.session.execute(db.select(Family).where(Family.name == "Our family")).scalar_one()
        return documents.render(booklet.booklet_document(family, parse_period("2026"), paper))


def page_texts(pdf: bytes) -> tuple[list[str], list[tuple[float, float]]]:
    reader = PdfReader(io.BytesIO(pdf))
    sizes = [(float(page.mediabox.width), float(page.mediabox.height)) for page in reader.pages]
    return [page.extract_text() for page in reader.pages], sizes


def leaders(text: str) -> list[tuple[str, int]]:
    """The lines of the contents that end in dots and a page number: (what, page)."""
    return [(what.strip(), int(page)) for what, page in re.findall(r"^(.+?) ?\.{3,} ?(\d+)$", text, flags=re.M)]


@pytest.mark.parametrize("paper", ["letter", pytest.param("a4", marks=pytest.mark.slow)])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_yearbook_has_a_cover_and_contents_pointing_at_the_right_pages_then_one_page_per_game(app, client, paper):
    games = seed_seasons(app, client)
    pages, sizes = page_texts(booklet_pdf(app, paper))
    assert len(pages) == FRONT_PAGES + len(games)
    width, height = PAGE_SIZES[paper]
    assert all(abs(w - width) < 1 and abs(h - height) < 1 for w, h in sizes), sizes

    cover = " ".join(pages[0].split())
    assert "Our family" in cover and "Season 2026" in cover and "Champion:" in cover
    assert f"{len(games)} finished games" in cover

    entries = leaders(pages[1])
    assert pages[1].startswith("Contents")
    sections = dict(entries[:4])
    table, charts, records = (pages[sections[name] - 1] for name in ("The season's table", "Charts", "The season's records"))
    assert table.startswith("The season's table") and "Average final score" in table
    assert charts.startswith("Charts") and "Wins" in charts
    assert records.startswith("The season's records") and "Lowest final score" in records
    first_game = sections["The games: every score sheet"]
    assert first_game == FRONT_PAGES + 1

    # The index of games: each by its day, on the page that holds its sheet, oldest first.
    index = entries[4:]
    assert [page for _, page in index] == list(range(first_game, first_game + len(games)))
    for (entry, page), (_, day) in zip(index, games):
        assert entry.startswith(f"{day.day} {day:%b}"), entry
        sheet = pages[page - 1]
        assert "score sheet" in sheet and f"Our family · {day.isoformat()}" in sheet
        assert f"Winner: {entry.split(maxsplit=2)[2]}" in " ".join(sheet.split())
        assert f"page {page} of {len(pages)}" in sheet  # the footer
    assert not any("in progress" in page or "· 2025-" in page for page in pages)

    # Each record with a game names the page of that game's sheet.
    references = re.findall(r"(\d{4}-\d{2}-\d{2}) (\d+)$", records, flags=re.M)
    assert references
    for day, page in references:
        assert f"Our family · {day}" in pages[int(page) - 1]


def test_the_yearbook_holds_the_seasons_finished_games_of_this_family_only(app, client, actions):
    games = seed_seasons(app, client)
    family_id, _ = actions.add_member("Other family", "other")
    with app.app_context():
        seed_demo(db.session.get(Family, family_id), 4, seed=9, end=datetime(2026, 8, 1))
    html = booklet_html(app)
    assert re.findall(r'<section class="game layout-\d+" id="game-(\d+)"', html) == [str(i) for i, _ in games]
    # The sheets' shared style once, their sizes once per layout: not once per game.
    layouts = set(re.findall(r'<section class="game (layout-\d+)"', html))
    assert html.count("<style>") == 1 + 1 + len(layouts) + 1  # and the chart's ink for paper
    assert '<svg class="chart"' in html and "<style>text { fill: #000" in html

    spring = booklet_html(app, "2026-05-01..2026-06-30")
    ids = re.findall(r'id="game-(\d+)"', spring)
    assert ids and ids == [str(i) for i, day in games if day >= date(2026, 5, 1)]
    assert "1 May 2026 – 30 Jun 2026" in text_of(spring)

    other = booklet_html(app, family="Other family")
    assert not set(re.findall(r'id="game-(\d+)"', other)) & {str(i) for i, _ in games}


def fake_renderer(monkeypatch) -> list[str]:
    """PDFs without WeasyPrint: the HTML each render was asked for is kept."""
    asked = []

    def html_to_pdf(html: str) -> bytes:
        asked.append(html)
        return b"%PDF-1.7 fake"

    # A yearbook is drawn in a process of its own, where this test's stand-in would not reach:
    # the render queue runs in this one.
    for name in ("html_to_pdf", "html_to_pdf_apart"):
        monkeypatch.setattr(documents, name, html_to_pdf)
    monkeypatch.setattr(render_queue, "INLINE", True)
    return asked


def test_the_download_needs_sign_in_answers_304_to_its_etag_and_404_to_a_season_it_cannot_print(app, client, monkeypatch, actions):
    rendered = fake_renderer(monkeypatch)
    seed_seasons(app, client)
    url = SEASON_PAGE_LINK.search(client.get("/seasons/2026").get_data(as_text=True)).group(1)
    assert strict_client(app, None).get(url).status_code == 302  # to the sign-in page

    first = client.get(url + "?paper=a4")
    assert first.status_code == 200 and first.mimetype == "application/pdf" and first.data.startswith(b"%PDF")
    assert 'filename="yearbook-2026.pdf"' in first.headers["Content-Disposition"]
    etag = first.headers["ETag"]
    again = client.get(url + "?paper=a4", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    cached = client.get(url + "?paper=a4")
    assert cached.status_code == 200 and cached.headers["ETag"] == etag
    assert len(rendered) == 1, "a repeated download is served from the cache"
    assert "@page { size: A4 landscape" in rendered[0]

    letter = client.get(url + "?paper=letter")
    assert letter.headers["ETag"] != etag
    actions.new_game("family-7", ["Di", "Ed", "Flo"], first_dealer="Ed")  # any change: a new yearbook
    assert client.get(url + "?paper=a4", headers={"If-None-Match": etag}).status_code == 200

    for bad in ("20x6", "2026-02-30..2026-03-01", "2026-06-01..2026-05-01", "1999"):
        assert client.get(f"/seasons/{bad}/booklet.pdf").status_code == 404, bad


def test_the_download_says_503_when_this_computer_cannot_make_pdfs(app, client, monkeypatch):
    seed_seasons(app, client)

    def no_pango(html):
        raise documents.NoPdfRenderer("Printing needs Pango.")

    for name in ("html_to_pdf", "html_to_pdf_apart"):
        monkeypatch.setattr(documents, name, no_pango)
    monkeypatch.setattr(render_queue, "INLINE", True)
    plain = FlaskClient(app)  # 503 is the answer wanted
    sign_in_session(app, plain, TEST_USERNAME)
    response = plain.get("/seasons/2026/booklet.pdf")
    assert response.status_code == 503 and "Pango" in text_of(response)


@pytest.mark.slow
def test_the_command_writes_the_yearbook_of_a_year_or_of_any_days(app, client, runner, tmp_path):
    games = seed_seasons(app, client)
    output = tmp_path / "booklet.pdf"
    result = runner.invoke(args=["booklet", "--year", "2026", "--family", "Our family", "-o", str(output)])
    assert result.exit_code == 0, result.output
    assert f"Season 2026: {len(games)} games in" in result.output
    pages, sizes = page_texts(output.read_bytes())
    assert len(pages) == FRONT_PAGES + len(games) and sizes[0] == PAGE_SIZES["letter"]

    spring = [day for _, day in games if day >= date(2026, 5, 1)]
    result = runner.invoke(args=["booklet", "--from", "2026-05-01", "--to", "2026-06-30", "--paper", "a4",
                                 "-o", str(output)])
    assert result.exit_code == 0, result.output
    pages, _ = page_texts(output.read_bytes())
    assert len(pages) == FRONT_PAGES + len(spring)
    assert "1 May 2026 – 30 Jun 2026" in pages[0]


def test_the_command_refuses_a_season_or_family_it_cannot_print_in_one_line(app, client, runner, tmp_path,
                                                                           monkeypatch):
    fake_renderer(monkeypatch)
    seed_seasons(app, client)
    output = tmp_path / "booklet.pdf"
    cases = {
        ("--year", "2026", "--family", "Nope"): "There is no family 'Nope'.",
        ("--year", "20x6"): "--year must be a year such as 2026, not '20x6'.",
        ("--year", "2026-01-01..2026-02-01"): "--year must be a year such as 2026",
        ("--year", "1999"): "Our family has no finished games in Season 1999.",
        ("--from", "2026-05-01"): "Give either --year YYYY, or both --from and --to",
        ("--year", "2026", "--from", "2026-05-01", "--to", "2026-06-01"): "Give either --year YYYY",
        ("--from", "2026-06-01", "--to", "2026-05-01"): "the first not after the last",
    }
    for args, message in cases.items():
        result = runner.invoke(args=["booklet", *args, "-o", str(output)])
        assert result.exit_code == 1, (args, result.output)
        assert result.output.startswith("Error: ") and message in result.output, result.output
        assert result.output.count("\n") == 1, result.output
    assert not output.exists()
    result = runner.invoke(args=["booklet", "--year", "2026", "-o", str(output)])
    assert result.exit_code == 0 and output.read_bytes() == b"%PDF-1.7 fake"


# The largest rules allowed, every hand and buy recorded: played once, copied for each test.
built_largest, largest_game = limits_tests.built_largest, limits_tests.largest_game


@pytest.mark.slow  # a 20-round game of 8 players played first
@pytest.mark.parametrize("paper", documents.PAPERS)
def test_the_largest_game_the_rules_allow_takes_one_page_of_the_yearbook(largest_game, paper):
    app, client, _, game_id = largest_game
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.status == FINISHED
        year = game.started_at.year
    response = made_by_the_queue(client, f"/seasons/{year}/booklet.pdf?paper={paper}")
    pages, _ = page_texts(response.data)
    assert len(pages) == FRONT_PAGES + 1
    sheet = " ".join(pages[-1].split())
    assert "Largest — score sheet" in sheet and "Winner: Ann" in sheet and f"page {len(pages)} of" in sheet


def made_by_the_queue(client, url: str, looks: int = 600):
    """The yearbook at ``url``, asked for as the waiting page does (``Refresh``) until it is made."""
    first = client.get(url)
    assert first.status_code == 202 and first.headers["Refresh"] == "3", first.status_code
    assert "The yearbook is being made" in text_of(first) and "looks again every 3 seconds" in text_of(first)
    for _ in range(looks):
        response = client.get(url)
        if response.status_code != 202:
            return response
        time.sleep(0.25)
    raise AssertionError(f"the yearbook was not made after {looks} looks")


@pytest.mark.slow  # a real render process
def test_the_web_yearbook_is_made_by_one_render_process_and_kept_for_every_worker(app, client, tmp_path):
    seed_seasons(app, client)
    url = "/seasons/2026/booklet.pdf?paper=letter"
    made = made_by_the_queue(client, url)
    assert made.status_code == 200 and made.data.startswith(b"%PDF") and len(page_texts(made.data)[0]) == 11
    kept = list((Path(app.instance_path) / render_queue.FOLDER).glob("*.pdf"))
    assert [p.name for p in kept] == [f"{made.headers['ETag'].strip(chr(34))}.pdf"]
    # Another server process of the same instance (here: another app on the same folder and
    # database) sends the kept book at once, without laying it out again.
    other = make_app(database_url=app.config["SQLALCHEMY_DATABASE_URI"], **{"TESTING": True})
    other.instance_path = app.instance_path
    again = strict_client(other).get(url)
    assert again.status_code == 200 and again.data == made.data


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_yearbook_is_laid_out_in_a_process_of_its_own_and_its_errors_come_back():
    pdf = documents.html_to_pdf_apart("<h1>Season 2026</h1>")
    assert pdf.startswith(b"%PDF") and b"%%EOF" in pdf[-64:]
    # "Printing needs Pango" raised over there reaches the 503 answer here.
    error = pickle.loads(pickle.dumps(documents.NoPdfRenderer("Printing needs Pango.")))
    assert isinstance(error, documents.NoPdfRenderer) and str(error) == "Printing needs Pango."


def test_a_season_too_long_to_draw_while_a_phone_waits_says_how_to_print_it(app, client, monkeypatch):
    seed_seasons(app, client)
    rendered = fake_renderer(monkeypatch)
    monkeypatch.setattr(printing_views, "WEB_MOST_GAMES", 5)
    plain = FlaskClient(app)  # 422 is the answer wanted
    sign_in_session(app, plain, TEST_USERNAME)
    response = plain.get("/seasons/2026/booklet.pdf")
    assert response.status_code == 422
    assert "Season 2026 has 6 finished games; a yearbook from the web holds at most 5." in text_of(response)
    assert "flask --app scorekeeper booklet" in text_of(response) and not rendered
    assert plain.get("/seasons/2026-01-01..2026-03-31/booklet.pdf").status_code == 200
