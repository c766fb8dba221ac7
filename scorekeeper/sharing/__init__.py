"""Sharing a game with the phones at the table: the live scoreboard and score keeper links, QR codes."""
