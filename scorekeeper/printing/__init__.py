"""Printing: score sheets and rule cards, their PDF rendering and cache, the download views."""
