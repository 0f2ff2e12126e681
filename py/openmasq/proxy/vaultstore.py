"""Where the proxy keeps its conversation vaults (CPython shell): in this process's memory (one
process, as before) or in Redis, shared by every worker and machine of a deployment.

A store hands out a session's vault with its version and takes a new vault back only if the
version is still the one it handed out (compare-and-set). The relay redacts against what it
loaded; when another worker wrote the session meanwhile, it redacts again against the newer
vault, so both requests' entries end up in it and each real value keeps one fake (the vault
only grows: redacting on top of a vault never changes what it already holds).

In Redis a vault is one hash {v: version, d: sealed vault} under a key derived from the session
id, sealed with AES-256-GCM under a key the proxy holds, with the session id as additional data
(a blob copied to another session's key does not open), and it expires after the proxy's idle
timeout (Redis TTL, renewed by every use). Any fault — Redis unreachable or refusing, a blob that
does not open, a clash that outlasts the retries — raises VaultStoreError: the relay refuses the
request and sends nothing upstream."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..redact import Vault, VaultError

KEY_PREFIX = "openmasq:vault:"
_SEAL_VERSION = b"\x01"
_NONCE_BYTES = 12
_AAD_PREFIX = b"openmasq-vault/v1\x00"
CONNECT_TIMEOUT = 2.0  # seconds: a Redis that does not answer is a refusal, not a hung request
COMMAND_TIMEOUT = 5.0
KEY_ENV = "OPENMASQ_VAULT_KEYS"


class VaultStoreError(RuntimeError):
    """The store cannot vouch for a session's vault: the request must be refused. `reason` is one of
    unavailable, undecryptable, clash (for the counters and the client's error), never a value."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Loaded:
    vault: Vault | None  # None: the session has no vault yet
    version: int  # 0 when there is none


class VaultStore(Protocol):
    name: str  # what /health and the start line say

    async def load(self, session_id: str) -> Loaded: ...

    async def save(self, session_id: str, vault: Vault, version: int) -> bool:
        """Store `vault` as the version after `version`; False when the session moved on meanwhile."""
        ...

    async def close(self) -> None: ...


# --- in memory --------------------------------------------------------------------------------


class MemoryVaultStore:
    """One process's vaults (the default): the proxy's SessionStore keeps each session's vault and
    evicts it after the idle timeout; requests of one session take turns under its lock, so a
    version never clashes here."""

    name = "memory"

    def __init__(self, holder: Callable[[str], Any]) -> None:
        self._holder = holder  # session id -> its Session (vault, version)

    async def load(self, session_id: str) -> Loaded:
        session = self._holder(session_id)
        return Loaded(session.vault if session.version else None, session.version)

    async def save(self, session_id: str, vault: Vault, version: int) -> bool:
        session = self._holder(session_id)
        if session.version != version:
            return False
        session.vault, session.version = vault, version + 1
        return True

    async def close(self) -> None:
        return None


# --- sealing ----------------------------------------------------------------------------------


class VaultKeys:
    """The AES-256-GCM keys of a deployment, by id: the first seals, all of them open (rotation:
    put the new key first, keep the old one until every vault sealed with it expired)."""

    def __init__(self, keys: list[tuple[str, bytes]]) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # the proxy extra

        if not keys:
            raise ValueError("a vault store needs at least one key")
        for key_id, key in keys:
            if not key_id or len(key_id) > 32 or not key_id.isascii() or not key_id.isalnum():
                raise ValueError("a vault key id is 1 to 32 ASCII letters or digits")
            if len(key) != 32:
                raise ValueError(f"vault key {key_id!r} is not 32 bytes (64 hex characters)")
        self.sealing_id = keys[0][0]
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys}

    @staticmethod
    def parse(text: str) -> VaultKeys:
        """Lines of `<id> <64 hex chars>` (or a comma-separated list of them); '#' starts a comment."""
        keys: list[tuple[str, bytes]] = []
        for line in text.replace(",", "\n").splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ValueError("each vault key is '<id> <64 hex characters>'")
            try:
                key = bytes.fromhex(parts[1])
            except ValueError:
                raise ValueError(f"vault key {parts[0]!r} is not hexadecimal") from None
            keys.append((parts[0], key))
        return VaultKeys(keys)

    @staticmethod
    def load(path: Path | None) -> VaultKeys:
        """From a key file, else from $OPENMASQ_VAULT_KEYS."""
        if path is not None:
            return VaultKeys.parse(path.read_text("utf-8"))
        value = os.environ.get(KEY_ENV, "")
        if not value.strip():
            raise ValueError(f"a Redis vault store needs its keys: --vault-key-file FILE or ${KEY_ENV}")
        return VaultKeys.parse(value)

    @staticmethod
    def generate(key_id: str = "k1") -> str:
        """A new key line for a key file."""
        return f"{key_id} {secrets.token_hex(32)}"

    def seal(self, session_id: str, vault: Vault) -> bytes:
        plain = json.dumps(vault.to_json(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        nonce = secrets.token_bytes(_NONCE_BYTES)
        key_id = self.sealing_id.encode("ascii")
        sealed = self._ciphers[self.sealing_id].encrypt(nonce, plain, _aad(session_id))
        return _SEAL_VERSION + bytes([len(key_id)]) + key_id + nonce + sealed

    def open(self, session_id: str, blob: bytes) -> Vault:
        from cryptography.exceptions import InvalidTag

        try:
            if blob[:1] != _SEAL_VERSION:
                raise ValueError("unknown seal")
            id_len = blob[1]
            key_id = blob[2 : 2 + id_len].decode("ascii")
            nonce = blob[2 + id_len : 2 + id_len + _NONCE_BYTES]
            cipher = self._ciphers.get(key_id)
            if cipher is None:
                raise ValueError("sealed with a key this proxy does not hold")
            plain = cipher.decrypt(nonce, blob[2 + id_len + _NONCE_BYTES :], _aad(session_id))
            return Vault.from_json(json.loads(plain))
        except (IndexError, ValueError, UnicodeDecodeError, InvalidTag, VaultError) as error:
            raise VaultStoreError("undecryptable", "The conversation's stored vault cannot be opened with this "
                                  "proxy's keys (wrong or retired key, or a damaged record); nothing was sent "
                                  f"upstream ({type(error).__name__}).") from None


def _aad(session_id: str) -> bytes:
    return _AAD_PREFIX + session_id.encode("utf-8")


def redis_key(session_id: str) -> str:
    """The session's key in Redis: a digest, so Redis never sees the session id itself."""
    return KEY_PREFIX + hashlib.sha256(session_id.encode("utf-8")).hexdigest()


# --- Redis ------------------------------------------------------------------------------------

# Compare-and-set, atomic on the server: store the sealed vault as version ARGV[1] + 1 only if the
# stored version is still ARGV[1] (0: no vault yet), and (re)start its idle expiry.
_SAVE_SCRIPT = """
local current = redis.call('HGET', KEYS[1], 'v')
if (current == false and ARGV[1] == '0') or current == ARGV[1] then
  redis.call('HSET', KEYS[1], 'v', tostring(tonumber(ARGV[1]) + 1), 'd', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
"""


class RedisVaultStore:
    """Vaults sealed in Redis, shared by every worker (redis://host:port/db, rediss:// for TLS)."""

    name = "redis"

    def __init__(self, url: str, keys: VaultKeys, *, idle: float) -> None:
        import redis.asyncio as aioredis  # the proxy extra
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self._keys = keys
        self._ttl_ms = max(1, int(idle * 1000))
        # A pooled connection idle for a second is checked (PING) before use, and a broken one is
        # opened again a few times, briefly: a Redis that came back is used at once, a Redis that is
        # down is a refusal within about CONNECT_TIMEOUT.
        self._client = aioredis.Redis.from_url(
            url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=COMMAND_TIMEOUT, health_check_interval=1,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.01), 3),
            retry_on_error=[RedisConnectionError, RedisTimeoutError])
        self._save = self._client.register_script(_SAVE_SCRIPT)

    async def load(self, session_id: str) -> Loaded:
        key = redis_key(session_id)
        async with self._faults(), self._client.pipeline(transaction=True) as pipe:
            pipe.hmget(key, "v", "d")
            pipe.pexpire(key, self._ttl_ms)  # a use renews the idle expiry
            (version, blob), _ = await pipe.execute()
        if version is None or blob is None:
            return Loaded(None, 0)
        return Loaded(self._keys.open(session_id, bytes(blob)), int(version))

    async def save(self, session_id: str, vault: Vault, version: int) -> bool:
        sealed = self._keys.seal(session_id, vault)
        async with self._faults():
            done = await self._save(keys=[redis_key(session_id)], args=[str(version), sealed, str(self._ttl_ms)])
        return bool(done)

    async def ping(self) -> bool:
        try:
            async with self._faults():
                return bool(await self._client.ping())
        except VaultStoreError:
            return False

    async def close(self) -> None:
        await self._client.aclose()

    def _faults(self) -> _RedisFaults:
        return _RedisFaults()


class _RedisFaults:
    """Any Redis error becomes VaultStoreError("unavailable"), naming its type only."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> None:
        from redis.exceptions import RedisError

        if error is not None and isinstance(error, (RedisError, OSError)):
            raise VaultStoreError("unavailable", "The proxy's vault store (Redis) is unavailable "
                                  f"({type(error).__name__}), so the conversation's fakes cannot be kept: "
                                  "nothing was sent upstream. Retry once it is back.") from None
