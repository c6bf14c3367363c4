"""What every command shares: exit statuses and the one error model (``exits``), hints for
optional extras (``install``), the option parsers (``options``, ``variant_option``)."""
