"""Memory Curator: long-term memory for AI coding assistants, kept in the open."""

import os

# The sentence encoder (conflicts/encoder.py) multiplies small matrices: with more than one
# OpenBLAS thread they mostly wait for each other (400 sentences in batches of 8: 12.8 s
# with two threads on a busy two-core machine, 4.0 s with one). OpenBLAS reads this when
# numpy loads, which only happens after this package is imported; a value set by the
# person wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
