"""Printing: score sheets, rule cards and a season's yearbook, their PDF rendering and cache, the download views."""
