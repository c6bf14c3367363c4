"""The other games, each self-contained: the Uniscraper pyramid's best run (``uniscraper``) and
the Quartets cheating check (``quartets``)."""
