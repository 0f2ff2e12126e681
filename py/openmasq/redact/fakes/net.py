"""Fake network addresses: an IPv4/IPv6 address stays in its class (private stays in the same
private range, public stays public), a MAC keeps its separators, case and address-type bits."""

from __future__ import annotations

import ipaddress
import random
import re

from ...patterns import deferred
from ._shape import distinct, swap_digits

# Address blocks whose members must stay inside them (LAN stays LAN); checked in this order.
_KEPT_NETWORKS = tuple(ipaddress.IPv4Network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8",
))
_IPV4 = deferred(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})((?::\d{1,5}|/\d{1,2})?)")
_HEX = "0123456789abcdef"
_IPV6_GROUP = deferred(r"[0-9A-Fa-f]{1,4}")


def _random_in(network: ipaddress.IPv4Network, rng: random.Random) -> ipaddress.IPv4Address:
    """A host of `network` whose last octet is 1-254 (never a network or broadcast address)."""
    base = int(network.network_address)
    host_bits = 32 - network.prefixlen
    while True:
        address = ipaddress.IPv4Address(base + rng.getrandbits(host_bits))
        if 1 <= int(address) & 0xFF <= 254:
            return address


def _random_public(rng: random.Random) -> ipaddress.IPv4Address:
    while True:
        address = ipaddress.IPv4Address(rng.randint(1, 223) << 24 | rng.getrandbits(24))
        if address.is_global and 1 <= int(address) & 0xFF <= 254:
            return address


def _parsed_ipv4(real: str) -> tuple[re.Match[str], ipaddress.IPv4Address] | None:
    match = _IPV4.fullmatch(real.strip())
    if not match or any(int(octet) > 255 for octet in match.groups()[:4]):
        return None
    return match, ipaddress.IPv4Address(".".join(match.groups()[:4]))


def _random_like(address: ipaddress.IPv4Address, rng: random.Random) -> ipaddress.IPv4Address:
    """A host in the block of `address` (private, shared, link-local, loopback), else public."""
    block = next((n for n in _KEPT_NETWORKS if address in n), None)
    return _random_in(block, rng) if block is not None else _random_public(rng)


def _slash24(address: ipaddress.IPv4Address) -> str:
    return str(address).rpartition(".")[0]


def subnet_of(real: str) -> str | None:
    """The /24 of an IPv4 address as its first three octets ("10.0.1"); None when `real` is not one."""
    parsed = _parsed_ipv4(real)
    return None if parsed is None else _slash24(parsed[1])


def fake_subnet(real: str, rng: random.Random) -> str:
    """A fake /24 for the /24 of `real` (its first three octets): in the same block for private,
    shared, link-local and loopback addresses, public for a public one, never the real /24."""
    parsed = _parsed_ipv4(real)
    if parsed is None:
        raise ValueError("not an IPv4 address")
    real_subnet = subnet = _slash24(parsed[1])
    for _ in range(12):  # a block of one /24 cannot do better than its own
        subnet = _slash24(_random_like(parsed[1], rng))
        if subnet != real_subnet:
            break
    return subnet


def fake_ipv4(real: str, rng: random.Random, *, subnet: str | None = None) -> str:
    """Private, shared, link-local and loopback addresses stay in their block; public ones stay
    public; a port or prefix length suffix is kept. `subnet`: the fake /24 chosen for the real
    one (fake_subnet), so that hosts of one network stay in one fake network; only the host is
    drawn then."""
    parsed = _parsed_ipv4(real)
    if parsed is None:
        return swap_digits(real, rng)
    match, address = parsed
    suffix = match.group(5)

    def make(r: random.Random) -> str:
        fake = f"{subnet}.{r.randint(1, 254)}" if subnet is not None else str(_random_like(address, r))
        return real.replace(match.group(0), f"{fake}{suffix}", 1)

    return distinct(real, rng, make)


def _kept_hex_prefix(address: ipaddress.IPv6Address) -> int:
    """How many leading hex digits carry the address class and stay as they are."""
    if address.is_link_local:
        return 4  # fe80
    if address.is_private and str(address).startswith(("fc", "fd")):
        return 2  # unique local fdxx
    if str(address).startswith("2001:db8"):
        return 8  # documentation block
    return 1


def _redraw_ipv6(text: str, keep: int, rng: random.Random) -> str:
    upper = any(ch.isupper() for ch in text)
    out: list[str] = []
    seen = 0
    for group in re.split(r"(:+)", text):
        if not _IPV6_GROUP.fullmatch(group) or int(group, 16) == 0:
            out.append(group)
            seen += len(group) if _IPV6_GROUP.fullmatch(group) else 0
            continue
        chars: list[str] = []
        for ch in group:
            if seen >= keep:
                ch = rng.choice(_HEX.upper() if upper else _HEX)
            chars.append(ch)
            seen += 1
        out.append("".join(chars))
    return "".join(out)


def fake_ipv6(real: str, rng: random.Random) -> str:
    """Same textual shape (groups, "::", case), class prefix kept (fe80::, fdxx:, 2001:db8:,
    a global address stays global); an embedded IPv4 is faked as IPv4."""
    text = real.strip()
    bare = text.strip("[]").split("%")[0]
    try:
        address = ipaddress.IPv6Address(bare)
    except ValueError:
        return swap_digits(real, rng)
    head, dot, _ = bare.rpartition(":")
    if "." in bare and dot:
        return real.replace(bare, head + ":" + fake_ipv4(bare[len(head) + 1:], rng), 1)
    keep = _kept_hex_prefix(address)

    def make(r: random.Random) -> str:
        for _ in range(20):
            candidate = _redraw_ipv6(bare, keep, r)
            if not address.is_global or ipaddress.IPv6Address(candidate).is_global:
                break
        return real.replace(bare, candidate, 1)

    return distinct(real, rng, make)


def fake_mac(real: str, rng: random.Random) -> str:
    """Every hex digit redrawn with the separators and case kept; the first octet keeps its
    unicast/multicast and universal/local bits."""
    hex_positions = [i for i, ch in enumerate(real) if ch in "0123456789abcdefABCDEF"]
    if len(hex_positions) != 12:
        return swap_digits(real, rng)
    first_octet = int(real[hex_positions[0]] + real[hex_positions[1]], 16)
    upper = any(real[i].isupper() for i in hex_positions)

    def make(r: random.Random) -> str:
        octet = (r.getrandbits(8) & 0xFC) | (first_octet & 0x03)
        digits = f"{octet:02x}" + "".join(r.choice(_HEX) for _ in range(10))
        chars = list(real)
        for position, new in zip(hex_positions, digits, strict=True):
            chars[position] = new.upper() if upper else new
        return "".join(chars)

    return distinct(real, rng, make)
