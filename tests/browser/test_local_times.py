"""Times as the family reads them: a share link's times (and every other time the server draws as
<time>) shown in the phone's own time zone and way of writing dates, not in UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright import sync_api

from scorekeeper.extensions import db
from scorekeeper.models import ShareLink
from tests.browser.conftest import phone, shot, sign_up, start_game

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("zone", ["Pacific/Auckland", "America/Los_Angeles"])
def test_a_share_links_time_is_shown_on_the_phones_own_clock(live_server, browser, zone):
    page = phone(browser, 390, 844, timezone_id=zone, locale="en-GB").new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Share").click()
    page.get_by_role("button", name="Scoreboard link").click()
    made_at = page.locator("section.share-link time")
    sync_api.expect(made_at).not_to_contain_text("UTC")
    with live_server.app_context():
        made = db.session.execute(db.select(ShareLink.created_at)).scalar_one()
    local = made.replace(tzinfo=UTC).astimezone(ZoneInfo(zone))
    sync_api.expect(made_at).to_have_text(f"{local.day} {local:%b}, {local:%H:%M}")
    assert made_at.get_attribute("datetime") == made.replace(microsecond=0).isoformat() + "Z"
    assert local.utcoffset() != datetime.now(UTC).utcoffset()  # the zone really differs from UTC
    shot(page, f"share-local-time-{zone.split('/')[1].lower()}")
