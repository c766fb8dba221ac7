"""A small thread-safe least-recently-used cache: drawn pages (``web.page_cache``), PDFs
(``printing.documents``), chances to win (``games.chances``) and history pages.

The eviction is cachetools' ``LRUCache``. What is written here does more than it: a lock, as
the cache is shared by a worker's threads and ``LRUCache`` is not thread-safe, and ``fetch``,
which makes an item the first time it is asked for (made outside the lock, so a slow PDF does
not hold up other pages; two threads asking at once may both make it, and the last one is kept).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

from cachetools import LRUCache


class LRU:
    """At most ``size`` items, the least recently used one dropped first."""

    def __init__(self, size: int):
        self.size = size
        self._items: LRUCache = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: Hashable):
        """The item kept under ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: Hashable, item) -> None:
        """Keep ``item`` under ``key``, dropping the least recently used item beyond ``size``."""
        with self._lock:
            self._items[key] = item

    def fetch(self, key: Hashable, make: Callable[[], object]):
        """The item kept under ``key``, made (and kept) first when there is none."""
        item = self.get(key)
        if item is None:
            item = make()
            self.put(key, item)
        return item

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
