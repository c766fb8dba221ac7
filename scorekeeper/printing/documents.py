"""Printable score sheets (blank or filled) and rule cards, rendered to PDF with WeasyPrint.

The layout is data first (``*_sheet``/``rule_card`` build plain dicts), then HTML, then PDF.
Rendered PDFs are cached by a hash of everything that goes into them, so an unchanged document
is served again without rendering; that hash is the HTTP ``ETag`` of a document made from the
request alone. A document of the family's games has one known before any game is read
(``version_tag``), so a browser that holds it gets a 304 for the cost of no query.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from flask import current_app, render_template

from .. import logs, rules
from ..extensions import db
from ..families import STARTED
from ..games.table import standings as standings_of
from ..lru import LRU
from ..models import Family, Game
from ..rules import figures, limits

log = logging.getLogger(__name__)

PAPERS = ("letter", "a4")
MAX_NAME = 40


class PrintError(ValueError):
    """A document cannot be made from these arguments; the message says why, in one line."""


@dataclass(frozen=True)
class Document:
    """A rendered (or renderable) PDF: its file name and the hash of its content's inputs."""

    filename: str
    etag: str
    template: str
    context: dict
    # A book of many pages is laid out in a process of its own: WeasyPrint holds every page's
    # boxes until the end (about 8 MB a page), which a long-lived server process would keep.
    apart: bool = False


# -- what goes on the page ----------------------------------------------------------------


def _point_key(variant: rules.Variant) -> str:
    """The point table in one line: ``2–9: 5 · 10 J Q K: 10 · A: 15 · Joker: 20``."""
    plain = [k for k in variant.keys if not k.wild]
    numbers = [k for k in plain if k.code.isdigit()]
    parts = []
    if all(k.points == int(k.code) for k in numbers):
        parts.append(f"{numbers[0].code}–{numbers[-1].code}: face value")
        plain = [k for k in plain if k not in numbers]
    groups: list[tuple[list[rules.Key], int]] = []
    for key in plain:
        if groups and groups[-1][1] == key.points:
            groups[-1][0].append(key)
        else:
            groups.append(([key], key.points))
    for keys, points in groups:
        digits = [k for k in keys if k.code.isdigit() and k.label == k.code]
        if len(digits) >= 3:
            rest = [k.label for k in keys if k not in digits]
            name = " ".join(rest + [f"{digits[0].label}–{digits[-1].label}"])
        else:
            name = " ".join(k.label for k in keys)
        parts.append(f"{name}: {points}")
    parts += [f"{k.label}: {k.points}" for k in variant.keys if k.wild]
    return " · ".join(parts)


def _variant(variant: rules.Variant | str) -> rules.Variant:
    """A variant, or the preset with this key."""
    if isinstance(variant, rules.Variant):
        return variant
    try:
        return rules.get_variant(variant)
    except KeyError:
        raise PrintError(f"Unknown preset '{variant}'. Known: {', '.join(rules.VARIANTS)}.") from None


def going_out_score(variant: rules.Variant, round_word: str = "the round number") -> str:
    """What going out scores: ``0``, ``−10``, ``−5 × the round number``."""
    if not variant.going_out_bonus:
        return "0"
    per = f" × {round_word}" if variant.going_out_per_round else ""
    return f"{figures.minus(-variant.going_out_bonus)}{per}"


def _round_numbers(numbers: list[int]) -> str:
    """``round 3``, ``rounds 1–8`` or ``rounds 1, 3 and 5``."""
    if len(numbers) == 1:
        return f"round {numbers[0]}"
    if numbers[-1] - numbers[0] + 1 == len(numbers) and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"rounds {numbers[0]}–{numbers[-1]}"
    return "rounds " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"


def _buy_key(variant: rules.Variant) -> str:
    limits = sorted({r.buy_limit for r in variant.rounds})
    if len(limits) == 1:
        limit = f"{figures.counted(limits[0], 'buy')} per hand"
    else:
        by_limit = {}
        for r in variant.rounds:
            by_limit.setdefault(r.buy_limit, []).append(r.number)
        limit = ", ".join(f"{figures.counted(n, 'buy')} in {_round_numbers(nums)}"
                          for n, nums in sorted(by_limit.items()))
    limit = variant.buy_rule.sentence(limit)
    down = "" if variant.down_may_buy else "; no buying after laying down"
    return f"{limit}; a buy brings {variant.cards_per_buy} cards{down}."


def _rows(variant: rules.Variant, numbers: list[int], names: list[str] | None, first_dealer: int | None):
    rows = []
    for index, number in enumerate(numbers):
        r = variant.round(number)
        dealer = None
        if names and first_dealer is not None:
            dealer = names[rules.dealer_seat(index, first_dealer, len(names))]
        rows.append(
            {
                "number": r.number,
                "contract": r.contract,
                "min_cards": r.min_cards,
                "cards_dealt": r.cards_dealt,
                # The sheet draws a box per buy: never more than a hand can have, whatever rules were stored.
                "buy_limit": min(r.buy_limit, limits.MOST_BUYS),
                "dealer": dealer,
                "cells": None,
            }
        )
    return rows


def blank_sheet(
    variant: rules.Variant | str,
    players: list[str] | int,
    first_dealer: str | None = None,
    skip_first_hand: bool = False,
    today: date | None = None,
) -> dict:
    """A score sheet to fill in by hand: names (or a number of empty columns), dealers by round."""
    variant = _variant(variant)
    if isinstance(players, int):
        count, names = players, None
    else:
        names = [" ".join(n.split()) for n in players if n.strip()]
        count = len(names)
        if len({n.casefold() for n in names}) != count:
            raise PrintError("Each player's name may appear only once.")
        if any(len(n) > MAX_NAME for n in names):
            raise PrintError(f"Names are at most {MAX_NAME} letters.")
    if not variant.min_players <= count <= variant.max_players:
        raise PrintError(
            f"{variant.name} is for {variant.min_players}–{variant.max_players} players, not {count}."
        )
    dealer_index = None
    if first_dealer:
        if not names:
            raise PrintError("Give the players' names to choose a first dealer.")
        folded = [n.casefold() for n in names]
        if first_dealer.strip().casefold() not in folded:
            raise PrintError(f"The first dealer '{first_dealer}' is not one of the players.")
        dealer_index = folded.index(first_dealer.strip().casefold())
    elif names:
        dealer_index = 0
    if skip_first_hand and not variant.can_skip_first_hand:
        raise PrintError(f"{variant.name} has no option to skip hand 1.")
    numbers = variant.hand_numbers(skip_first_hand)
    return {
        "variant": _variant_summary(variant, count),
        "players": names or [""] * count,
        "named": bool(names),
        "rows": _rows(variant, numbers, names, dealer_index),
        "filled": False,
        "date": None,
        "family": None,
        "totals": None,
        "winners": None,
        "printed": (today or date.today()).isoformat(),
        "widest": 4,  # room for a handwritten total
    }


def filled_sheet(game: Game, family_name: str, today: date | None = None) -> dict:
    """The same sheet with a game's recorded hands, running totals, buys and the winner."""
    variant = game.variant
    standings = standings_of(game)
    names = [p.name for p in standings.players]
    numbers = [r.number for r in game.rounds]
    rows = _rows(variant, numbers, names, game.first_dealer)
    for row, st_row in zip(rows, standings.rows):
        # As stored with the game; a spreadsheet's dealers are the import's guess, so not printed.
        row["dealer"] = st_row.dealer.name if st_row.round.dealer_known else NOT_RECORDED
        if st_row.cells is None:
            continue
        row["cells"] = [
            {
                "points": c.result.points,
                "total": c.running_total,
                "buys": min(c.result.buys, limits.MOST_BUYS_PER_GAME),  # a filled box each
                "open": variant.buy_rule.left(row["buy_limit"], c.result.buys, laid_down=False),  # an empty box each
                "marked": st_row.round.marked,  # False: no buys or laid-down marks to print
                "went_out": c.result.went_out,
                "stuck": c.result.stuck,
                "bonus": c.result.bonus,
            }
            for c in st_row.cells
        ]
    scored = standings.scored_rounds > 0
    written = [v for row in rows for c in row["cells"] or () for v in (c["points"], c["total"])]
    return {
        "variant": _variant_summary(variant, len(names)),
        "players": names,
        "named": True,
        "rows": rows,
        "filled": True,
        "date": game.started_at.date().isoformat(),
        "family": family_name,
        "totals": standings.totals if scored else None,
        "winners": [p.name for p in standings.leaders] if standings.finished else None,
        "leaders": [p.name for p in standings.leaders] if scored else [],
        "status": game.status,
        "printed": (today or date.today()).isoformat(),
        "widest": max((len(str(n)) for n in written), default=4),  # characters of the longest number
        "source_note": standings.source_note,
    }


NOT_RECORDED = "\u2014"  # what a sheet prints where the game recorded nothing


def _variant_summary(variant: rules.Variant, players: int) -> dict:
    return {
        "key": variant.key,
        "name": variant.name,
        "decks": str(variant.decks_for(players)),
        "points": _point_key(variant),
        "buying": _buy_key(variant),
        "bonuses": [f"{b.label}: {b.points}" for b in variant.bonuses],
        "going_out": going_out_score(variant, "round"),
    }


def rule_card(variant: rules.Variant | str) -> dict:
    """Everything a table needs to know about a variant (or the preset with this key), for one
    printed page."""
    variant = _variant(variant)
    decks = []
    for rule in variant.deck_rules:
        band = str(rule.min_players)
        if rule.max_players > rule.min_players:
            band = f"{rule.min_players}–{rule.max_players}"
        decks.append((band, str(rules.Decks(rule.decks, rule.jokers))))
    dealt = sorted({r.cards_dealt for r in variant.rounds})
    return {
        "variant": variant,
        "decks": decks,
        "dealt": dealt,
        "points": _point_key(variant),
        "buying": _buy_key(variant),
        "going_out_score": going_out_score(variant),
        "notes": [note for note in variant.notes if "deals first" not in note],  # that one goes with the deal
        "joker_limits": variant.joker_limits,
        "preset": variant.key in rules.VARIANTS,
    }


# -- documents, cache and rendering -------------------------------------------------------


def _document(kind: str, template: str, context: dict, paper: str, variant_key: str, day: str = "") -> Document:
    if paper not in PAPERS:
        raise PrintError(f"Paper must be letter or a4, not '{paper}'.")
    context = {**context, "paper": paper}
    digest = hashlib.sha256(
        json.dumps([template, context], default=repr, sort_keys=True).encode()
    ).hexdigest()[:32]
    suffix = f"-{day}" if day else ""
    return Document(f"{variant_key}-{kind}{suffix}.pdf", digest, template, context)


def sheet_document(sheet: dict, paper: str) -> Document:
    """A score sheet, named by preset and the game's (or today's) date."""
    day = sheet["date"] or sheet["printed"]
    return _document("score-sheet", "printing/sheet.html", sheet, paper, sheet["variant"]["key"], day)


def rule_card_document(card: dict, paper: str) -> Document:
    """A rule card; its name carries no date because it does not change from day to day."""
    return _document("rule-card", "printing/rulecard.html", card, paper, card["variant"].key)


def version_tag(kind: str, family: Family, *parts) -> str:
    """The ``ETag`` of a document made from the family's data, known before any of it is read:
    every change to the family's games, players or name moves its version on.

    Also in it: the process start (a restored backup takes versions back), the database (another
    one's versions start from the same numbers), the code and templates documents are made with
    (a new release draws them anew) and ``parts`` (the game, the paper, the day...). Signed with
    the app's secret, so no one can make the tag of a document they were never sent."""
    raw = json.dumps([kind, STARTED, str(db.engine.url), family.id, family.version, family.name,
                      code_fingerprint(), *parts], default=str)
    secret = current_app.secret_key
    secret = secret if isinstance(secret, bytes) else str(secret).encode()
    return hmac.new(secret, raw.encode(), hashlib.sha256).hexdigest()[:32]


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the app's code and its printing templates, read once per process."""
    package = Path(__file__).resolve().parent.parent
    templates = Path(current_app.root_path, current_app.template_folder or "templates", "printing")
    digest = hashlib.sha256()
    for path in sorted([*package.rglob("*.py"), *templates.glob("*")]):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


cache = LRU(64)  # document hash -> PDF bytes


class NoPdfRenderer(RuntimeError):
    """This computer cannot make PDFs (WeasyPrint finds no Pango); the message says what to install."""


def html_to_pdf(html: str) -> bytes:
    """Render HTML (with its CSS inline) to PDF bytes, never touching the network."""
    try:
        from weasyprint import HTML
        from weasyprint.urls import URLFetcher
    except (ImportError, OSError):  # WeasyPrint loads Pango when imported
        raise NoPdfRenderer(
            "Printing needs Pango on the computer that runs Scorekeeper (on Debian or Ubuntu: "
            "apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core). Everything else works without it."
        ) from None

    # Documents carry their CSS inline and use installed fonts: nothing is fetched.
    return HTML(string=html, url_fetcher=URLFetcher(allowed_protocols=("data",))).write_pdf()


def render(document: Document) -> bytes:
    """The PDF for ``document``, from the cache when the same document was rendered before."""
    def made() -> bytes:
        html = render_template(document.template, **document.context)
        pdf = html_to_pdf_apart(html) if document.apart else html_to_pdf(html)
        log.info("PDF rendered: family=%s %s, %d bytes", logs.family_id(), document.template, len(pdf))
        return pdf

    return cache.fetch(document.etag, made)


def html_to_pdf_apart(html: str) -> bytes:
    """``html_to_pdf`` in a new process, whose memory goes back to the system when it ends."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as child:
        return child.submit(html_to_pdf, html).result()
