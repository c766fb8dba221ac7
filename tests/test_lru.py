"""The caches of drawn pages, PDFs and chances keep the most recently used items."""

from __future__ import annotations

from scorekeeper.lru import LRU


def test_the_least_recently_used_item_goes_first():
    cache = LRU(2)
    cache.put("standings", 1)
    cache.put("rule card", 2)
    assert cache.get("standings") == 1  # now the most recently used
    cache.put("score sheet", 3)
    assert (cache.get("rule card"), cache.get("standings"), cache.get("score sheet")) == (None, 1, 3)


def test_an_item_is_made_once_and_then_fetched():
    cache, made = LRU(4), []
    for _ in range(3):
        assert cache.fetch("pdf", lambda: made.append(1) or b"%PDF") == b"%PDF"
    assert made == [1]
    cache.clear()
    assert cache.get("pdf") is None
