"""Serving the app to the family's phones: the serve command, its certificates, the phone set-up page."""
