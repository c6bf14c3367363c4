"""The model of the sum solitaires: cards (``cards``), the original shuffle (``shuffle``), the
rules of one game (``variant``: the ``Variant``), reading a variant by name or by fields
(``variants``), dealing (``deal``), the play state (``table``), the rules of a move (``rules``)
and what every engine derives once from a variant's rules (``derived``)."""
