"""Entry point of the hook entries: `python -m memory_app.hooks EVENT` (see runtime.py)."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    try:
        from memory_app.hooks.runtime import main
    except BaseException:  # a broken install must not block the assistant
        raise SystemExit(0) from None
    raise SystemExit(main(sys.argv[1:]))
