"""The ways in for people and programs: the command line (``cli``), the rating commands
(``rating``) and the HTTP service (``service``), built from one command kit (``kit``). No door
imports another."""
