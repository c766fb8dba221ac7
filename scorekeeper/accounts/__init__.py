"""Families as accounts: signing up, in and out, members and invites, and the sign-in door."""
