"""`python -m memory_app` behaves like the `memory-app` command."""

from memory_app.cli import main

raise SystemExit(main())
