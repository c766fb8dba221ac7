"""The world every hostile property runs in: a family with games in several states, a second
family with its own game, ids and links; and legal hands drawn for a card entry."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import sqlalchemy as sa
from hypothesis import strategies as st

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game, Invite, Player, ShareLink
from scorekeeper.rules.scoring import card_totals
from tests.actions import GameActions
from tests.databases import add_member, make_app, strict_client
from tests.fuzz_strategies import DIGIT_LIMIT, INT4_MAX, INT8_MAX, assert_refused, consume, snapshot
from tests.pages import score_url, text_of
from tests.test_house_rules import GRAN

# -- the world every hostile property runs in ----------------------------------------------


@dataclass
class Table:
    """One hand's card entry: the game, the round's rules and who sits at the table."""

    game_id: int
    number: int
    variant: rules.Variant
    round: rules.Round
    decks: rules.Decks
    pids: list[int]
    version: int

    @property
    def url(self) -> str:
        return score_url(self.game_id, self.number)


def table_of(app, client, game_id: int, number: int, version: int | None = None) -> Table:
    actions = GameActions(client)
    with app.app_context():
        game = db.session.get(Game, game_id)
        variant = game.variant
        pids = [p.id for p in game.players]
    if version is None:
        version = actions.version_of(game_id, number)
    return Table(game_id, number, variant, variant.round(number), variant.decks_for(len(pids)), pids, version)


@dataclass
class World:
    """A family with games in several states, and a second family with its own game and ids.

    - ``play``: shanghai-10, Ann Bob Cy; round 1 scored, round 2 being played, Cy has used all
      3 buys in it.
    - ``fresh``: family-7, Di Eve Flo; nothing scored; Di has laid down in round 1 (and so may
      not buy).
    - ``abandoned``: online-11, Ann Bob; abandoned in round 1.
    - ``other_game``: the other family's shanghai-10 game (Zed, Yan).
    - ``links``: share links by name, ``(id, token)``: ``view``, ``keep`` and ``revoked`` (a
      stopped scoreboard link) to ``play``; ``fresh-keep`` to ``fresh``; ``other-view`` and
      ``other-keep`` to ``other_game``.
    - ``house_rules``: the family's own rules (Gran's, from test_house_rules, written in the
      editor); ``other_rules``: the other family's.
    """

    app: object
    family_id: int
    client: object
    anon: object
    play: int
    ids: dict[str, int]
    fresh: int
    fresh_ids: dict[str, int]
    abandoned: int
    other_game: int
    other_ids: dict[str, int]
    invite_token: str
    own_invite: int
    spent_invite: int
    other_invite: int
    tables: dict[str, Table] = field(default_factory=dict)
    links: dict[str, tuple[int, str]] = field(default_factory=dict)
    house_rules: int = 0
    other_rules: int = 0

    @property
    def open_tokens(self) -> dict[str, int]:
        """Token -> game id of every link that opens its game (any kind, either family)."""
        games = {"view": self.play, "keep": self.play, "fresh-keep": self.fresh,
                 "other-view": self.other_game, "other-keep": self.other_game}
        return {self.links[name][1]: game for name, game in games.items()}

    @property
    def keep_tokens(self) -> dict[str, int]:
        """Token -> game id of the open score keeper links."""
        games = {"keep": self.play, "fresh-keep": self.fresh, "other-keep": self.other_game}
        return {self.links[name][1]: game for name, game in games.items()}

    @property
    def foreign_pids(self) -> list[int]:
        return list(self.other_ids.values())

    @property
    def missing_game(self) -> int:
        return max(self.play, self.fresh, self.abandoned, self.other_game) + 1000

    @property
    def missing_rules(self) -> int:
        return max(self.house_rules, self.other_rules) + 1000

    def snapshot(self, exclude=()):
        return snapshot(self.app, exclude)

    def refused(self, response, before, exclude=()):
        assert_refused(self.app, response, before, exclude)


def _invite(app, client) -> tuple[str, int]:
    response = client.post("/family/invites")
    assert response.status_code == 302
    with client.session_transaction() as session:
        link = session.pop("new_invite")
    token = link.rsplit("/", 1)[1]
    with app.app_context():
        invite_id = db.session.execute(sa.select(sa.func.max(Invite.id))).scalar_one()
    return token, invite_id


def _share(app, client, game_id: int, kind: str, show: bool = True) -> tuple[int, str]:
    """Make a share link on the game's share page: ``(id, token)``. Without ``show``, its message
    waits for the next page drawn."""
    page = client.post(f"/games/{game_id}/share", data={"kind": kind})
    assert page.status_code == 302
    if show:
        consume(client, page)
    with app.app_context():
        link = db.session.execute(sa.select(ShareLink).order_by(ShareLink.id.desc()).limit(1)).scalar_one()
        return link.id, link.token


def write_rules(client, data: dict) -> int:
    """House rules saved in the editor: their id."""
    page = client.post("/house-rules/new", data=data)
    assert page.status_code == 302, text_of(page)[:300]
    consume(client, page)
    return int(page.headers["Location"].rsplit("/", 1)[1])


def build_world() -> World:
    app = make_app()
    client = strict_client(app)
    actions = GameActions(client, app)
    play = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(play)
    actions.record(ids, play, 1, "Ann", {"Bob": "K", "Cy": "5"})
    for _ in range(3):
        assert client.post(f"/games/{play}/rounds/2/buy", data={"player": ids["Cy"]}).status_code == 302
    fresh = actions.new_game("family-7", ["Di", "Eve", "Flo"], first_dealer="Di")
    fresh_ids = actions.player_ids(fresh)
    assert client.post(f"/games/{fresh}/rounds/1/down", data={"player": fresh_ids["Di"], "laid_down": "1"}).status_code == 302
    abandoned = actions.new_game("online-11", ["Ann", "Bob"])
    assert client.post(f"/games/{abandoned}/abandon").status_code == 302

    add_member(app, "Other", "other")
    other = strict_client(app, "other")
    other_game = GameActions(other).new_game("shanghai-10", ["Zed", "Yan"], first_dealer="Zed")
    _, other_invite = _invite(app, other)
    house_rules, other_rules = write_rules(client, GRAN), write_rules(other, {**GRAN, "name": "Zed's rules"})

    token, own_invite = _invite(app, client)
    _, spent_invite = _invite(app, client)
    assert client.post(f"/family/invites/{spent_invite}/cancel").status_code == 302
    links = {name: _share(app, who, game, kind, show=False) for name, who, game, kind in (
        ("view", client, play, "view"), ("keep", client, play, "keep"), ("revoked", client, play, "view"),
        ("fresh-keep", client, fresh, "keep"), ("other-view", other, other_game, "view"),
        ("other-keep", other, other_game, "keep"))}
    assert client.post(f"/games/{play}/share/{links['revoked'][0]}/revoke").status_code == 302

    with app.app_context():
        family_id = db.session.execute(sa.select(Player.family_id).where(Player.id == ids["Ann"])).scalar_one()
    world = World(
        app=app, family_id=family_id, client=client, anon=strict_client(app, None), play=play, ids=ids, fresh=fresh,
        fresh_ids=fresh_ids, abandoned=abandoned, other_game=other_game,
        other_ids=actions.player_ids(other_game), invite_token=token, own_invite=own_invite,
        spent_invite=spent_invite, other_invite=other_invite, links=links,
        house_rules=house_rules, other_rules=other_rules,
    )
    world.tables = {  # (their card entries also show the share links' messages)
        "current": table_of(app, client, play, 2),
        "edit": table_of(app, client, play, 1),
        "future": table_of(app, client, play, 3, version=0),
        "abandoned": table_of(app, client, abandoned, 1, version=0),
        "other": table_of(app, other, other_game, 1),
    }
    return world


def rules_ids(w: World) -> st.SearchStrategy:
    """House-rules ids that are not this family's: the other family's, missing ones, huge ones."""
    return st.sampled_from([w.other_rules, w.missing_rules, 0, INT4_MAX, INT4_MAX + 1, INT8_MAX, 10**30,
                            "9" * (DIGIT_LIMIT + 1)])


def game_ids(w: World) -> st.SearchStrategy:
    """Game ids that are not this family's: the other family's, missing ones, huge ones."""
    return st.sampled_from([w.other_game, w.missing_game, 0, INT4_MAX, INT4_MAX + 1, INT8_MAX, INT8_MAX + 1,
                            10**30, "9" * (DIGIT_LIMIT + 1)])  # the last as text: Python will not print it as an int


# -- legal hands ---------------------------------------------------------------------------


def physical_cards(variant: rules.Variant, counts: dict[str, int]) -> list[str]:
    """Keypad counts as real cards (``K`` -> ``KS``, ``2B`` -> ``2S``), to score them without the keypad."""
    cards = []
    for code, n in counts.items():
        special = next((sc for sc in variant.suit_cards if sc.code == code), None)
        if code == rules.JOKER:
            card = "JK"
        elif special:
            card = special.rank + special.suits[0]
        else:
            taken = {s for sc in variant.suit_cards if sc.rank == code for s in sc.suits}
            card = code + next(s for s in "SHDC" if s not in taken)
        cards += [card] * n
    return cards


@dataclass
class Hands:
    fields: dict[str, str]
    points: dict[int, int]  # player id -> points this hand, as the rules score it
    counts: dict[int, dict[str, int]]  # player id -> keypad counts ({} for a total or going out)
    out: int


@st.composite
def legal_hands(draw, t: Table) -> Hands:
    """A hand the form must accept: one player out, the rest with possible cards or a total."""
    variant, codes = t.variant, [k.code for k in t.variant.keys]
    remaining = {k.code: variant.copies(k, t.decks) for k in variant.keys}
    # A total typed by hand must be one some cards add up to (every card a multiple of 5 in family-7).
    most, totals = variant.max_hand(t.round), sorted(card_totals(variant, t.round.number))
    out = draw(st.sampled_from(t.pids))
    fields = {"version": str(t.version), "went_out": str(out)}
    bonus = ""
    if variant.bonuses and draw(st.booleans()):
        bonus = draw(st.sampled_from([""] + [b.code for b in variant.bonuses]))
        fields["bonus"] = bonus
    points = {out: next((b.points for b in variant.bonuses if b.code == bonus), 0)}
    counts_of = {out: {}}
    for pid in t.pids:
        buys = draw(st.integers(0, t.round.buy_limit))
        fields[f"p{pid}-buys"] = str(buys)
        if draw(st.booleans()):
            fields[f"p{pid}-laid_down"] = "y"
        if pid == out:
            continue
        counts: Counter = Counter()
        # No more than this player can hold: cards dealt + their buys × cards per buy.
        cap = min(most, t.round.cards_dealt + buys * variant.cards_per_buy)
        for code in draw(st.lists(st.sampled_from(codes), min_size=1, max_size=cap)):
            if remaining[code] > 0 and sum(counts.values()) < cap:
                counts[code] += 1
                remaining[code] -= 1
        if not counts or draw(st.integers(0, 3)) == 0:
            for code, n in counts.items():
                remaining[code] += n
            total = draw(st.sampled_from(totals))
            fields[f"p{pid}-total"] = str(total)
            points[pid], counts_of[pid] = total, {}
        else:
            fields.update({f"p{pid}-k_{code}": str(n) for code, n in counts.items()})
            points[pid] = rules.score_hand(variant, physical_cards(variant, counts))
            counts_of[pid] = dict(counts)
    return Hands(fields, points, counts_of, out)


def rules_keys(w: World) -> st.SearchStrategy:
    """Values for what names rules (``?from=``, ``?preset=``, ``?variant=``): presets and house
    rules - the family's, the other family's, missing ones - and near misses."""
    return st.sampled_from([*rules.VARIANTS, f"house-{w.house_rules}", f"house-{w.other_rules}",
                            f"house-{w.missing_rules}", "house-", "house-0", "house--1", f"house-{10**30}",
                            f"house-{w.house_rules} ", f"HOUSE-{w.house_rules}", "house-" + "9" * (DIGIT_LIMIT + 1),
                            f"house-{w.house_rules}.0", "house-²"])
