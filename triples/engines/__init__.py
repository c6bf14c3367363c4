"""The engines over the model: the exact search (``search``), the auto-play strategies
(``strategies``), the fair player who never sees the stock (``fair``, with its exact part
``expectimax``) and a deal's difficulty (``difficulty``)."""

# The strategy ``autoplay`` and ``triples rate`` use unless told: named here, not beside the
# strategies, so that the interpreter knows the name without loading them.
DEFAULT_STRATEGY = "high"
