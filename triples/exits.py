"""Exit statuses of the ``triples`` tool, in one place that every command can import.

0 ok; 1 a replayed fixture failed; 2 bad input or usage; 3 internal error (a defect: please
report it); 130 interrupted (Ctrl-C); 141 stdout closed by the reader (as if killed by SIGPIPE).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REPLAY_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
