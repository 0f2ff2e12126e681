"""The `openmasq build` and `openmasq serve` subcommands (wired into openmasq.cli); the work is
imported only when one of them runs, so the other commands start as fast as before."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_PORT = 8765
DEFAULT_HOST = "127.0.0.1"


def add_site_commands(commands: Any, error_class: type[Exception]) -> None:
    """Adds build and serve to the CLI's subparsers; failures are raised as `error_class` (one line)."""
    build = commands.add_parser(
        "build", help="build the PWA into a self-contained static folder",
        description="Copy web/, the vendored libraries, Pyodide with our wheel and the cached model files into "
                    "DIR, with a content-hashed service worker. Deploy DIR to any HTTPS static host.")
    build.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to write (created)")
    build.add_argument("--with-tests", action="store_true",
                       help="also ship what the in-browser test runner needs (not precached)")
    build.add_argument("--repo", type=Path, default=None, metavar="DIR", help="the checkout to build from")
    build.set_defaults(run=lambda args: _run_build(args, error_class))

    serve = commands.add_parser(
        "serve", help="build the PWA (unless --dir is given) and serve it on loopback",
        description="Serve the built site with the strict Content-Security-Policy, explicit MIME types and "
                    "no-cache headers. Without --dir, first builds it into $OPENMASQ_CACHE/site.")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--host", default=DEFAULT_HOST, help=f"address (default {DEFAULT_HOST})")
    serve.add_argument("--dir", type=Path, default=None, metavar="DIR", help="an already built site to serve")
    serve.add_argument("--quiet", action="store_true", help="do not log requests")
    serve.set_defaults(run=lambda args: _run_serve(args, error_class))


def _log(line: str) -> None:
    print(f"[build] {line}", file=sys.stderr, flush=True)


def _build(out: Path, with_tests: bool, repo: Path | None, error_class: type[Exception]) -> None:
    from .assets import DEFAULT_REPO
    from .build import BuildError, BuildOptions, build_site

    try:
        build_site(BuildOptions(out=out, repo=repo or DEFAULT_REPO, with_tests=with_tests), log=_log)
    except BuildError as error:
        raise error_class(f"build failed: {error}") from None


def _run_build(args: argparse.Namespace, error_class: type[Exception]) -> int:
    _build(args.out, args.with_tests, args.repo, error_class)
    return 0


def _run_serve(args: argparse.Namespace, error_class: type[Exception]) -> int:
    from .assets import cache_dir
    from .serve import serve_forever

    root = args.dir
    if root is None:
        root = cache_dir() / "site"
        _build(root, False, None, error_class)
    try:
        serve_forever(root, host=args.host, port=args.port, quiet=args.quiet)
    except (FileNotFoundError, OSError) as error:
        raise error_class(str(error)) from None
    return 0
