"""`python -m openmasq` is the `openmasq` command."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
