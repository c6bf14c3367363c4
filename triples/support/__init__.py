"""What every layer leans on: the one error family (``errors``), the cooperative time limit
(``deadline``), the engines' bounded caches (``caches``) and exact integers of any size
(``digits``). Nothing here imports any other part of triples."""
