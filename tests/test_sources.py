"""The rule documents are cited to users by their titles, never by the internal names of their files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorekeeper.rules import VARIANTS
from tests.databases import strict_client
from tests.pages import text_of
from tests.test_printing import pdf_text

ROOT = Path(__file__).resolve().parent.parent
FILE_NAME = re.compile(r"\d{3}_[0-9a-f]{16}\.txt")
# How the specification's sources are to be cited ("How to cite them"), by preset.
TITLES = {
    "family-7": ["Shanghai Rummy — one family’s rules, handed down through the generations"],
    "shanghai-rum": ["“Shanghai Card Game” web page", "“Shanghai rum”"],
    "shanghai-10": ["“Shanghai Card Game” web page", "ten contracts", "Angie’s Products, “Shanghai Rummy: Rules”"],
    "online-11": ["“Shanghai Rummy Rules” of an online Shanghai Rummy game"],
}


@pytest.mark.parametrize("key", sorted(VARIANTS))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_rules_page_and_rule_card_cite_the_documents_by_title(app, key):
    guest = strict_client(app, None)
    page = text_of(guest.get(f"/rules/{key}"))
    pages, card = pdf_text(guest.get(f"/print/rules/{key}.pdf").get_data())
    assert pages == 1
    for title in TITLES[key]:
        assert title in page
        assert " ".join(title.split()) in card
    assert not FILE_NAME.search(page) and not FILE_NAME.search(card)


def test_no_file_name_of_a_rule_document_reaches_users_or_the_docs():
    shown = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "templates").rglob("*.html"),
             *(ROOT / "scorekeeper").rglob("*.py")]
    assert [str(p.relative_to(ROOT)) for p in shown if FILE_NAME.search(p.read_text())] == []
