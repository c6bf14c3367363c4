"""The JSON operations interpreter: one handler per operation with a strict model of its
arguments (``session``), and JSON in and out with integers of any size (``jsonio``).
``triples.api.run`` is its public face."""
