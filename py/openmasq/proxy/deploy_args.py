"""The `openmasq proxy` options of a deployment beyond one process (workers, the vault store and
its keys, timeouts), and the ProxyConfig fields they set. Imports nothing of the proxy extra, so
the command line can list them without it installed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

# Seconds; app.py takes its defaults from here (the one source).
DEFAULT_UPSTREAM_TIMEOUT = 300.0
DEFAULT_SHUTDOWN_TIMEOUT = 10


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _positive_float(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def add_deployment_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--workers", type=_positive_int, default=1, metavar="N",
                         help="worker processes sharing the port (default 1); more than one needs --vault-store")
    command.add_argument("--vault-store", default="memory", metavar="URL",
                         help="where session vaults live: memory (default, this process only) or redis://host:port/db "
                              "(shared by every worker and machine; sealed with AES-GCM)")
    command.add_argument("--vault-key-file", type=Path, default=None, metavar="FILE",
                         help="the Redis store's keys, one '<id> <64 hex>' per line, the first sealing "
                              "(default: $OPENMASQ_VAULT_KEYS)")
    command.add_argument("--upstream-timeout", type=_positive_float, default=DEFAULT_UPSTREAM_TIMEOUT,
                         metavar="SECONDS", help="seconds without a byte from the upstream before a 504 "
                                                 f"(default {DEFAULT_UPSTREAM_TIMEOUT:g})")
    command.add_argument("--shutdown-timeout", type=_positive_int, default=DEFAULT_SHUTDOWN_TIMEOUT, metavar="SECONDS",
                         help="on SIGTERM, seconds requests in flight get to finish before they are cut "
                              f"(default {DEFAULT_SHUTDOWN_TIMEOUT})")


def deployment_config(args: argparse.Namespace) -> dict[str, Any]:
    """ProxyConfig fields from the parsed options; raises ValueError on a store or key it cannot use."""
    from .vaultstore import VaultKeys

    fields: dict[str, Any] = {"timeout": args.upstream_timeout, "shutdown_timeout": args.shutdown_timeout}
    if args.vault_store != "memory":
        if not args.vault_store.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("--vault-store takes memory or a redis://, rediss:// or unix:// URL")
        fields["vault_store"] = args.vault_store
        fields["vault_keys"] = VaultKeys.load(args.vault_key_file)
    elif args.workers > 1:
        raise ValueError("--workers above 1 needs --vault-store redis://...: each worker's memory would hold other "
                         "fakes for the same conversation")
    return fields
