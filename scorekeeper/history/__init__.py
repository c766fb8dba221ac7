"""A family's history: past games, players, records and head-to-head, statistics and charts."""
