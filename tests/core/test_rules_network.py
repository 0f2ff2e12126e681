"""Rule detection of URLs, personal domains, IPv4/IPv6 and MAC addresses."""

from __future__ import annotations

import pytest

from openmasq.redact.rules import detect_network, detect_rules


def spans_of(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [(s.value, s.start, s.end) for s in detect_rules(text) if s.kind == kind]


def located(text: str, value: str) -> list[tuple[str, int, int]]:
    start = text.index(value)
    return [(value, start, start + len(value))]


MATCHES = [
    ("voir https://example.com/a?b=c&d=1#top, merci", "url", "https://example.com/a?b=c&d=1#top"),
    ("http://localhost:8080/api/v1", "url", "http://localhost:8080/api/v1"),
    ("site : www.jean-dupont.fr.", "url", "www.jean-dupont.fr"),
    ("(voir https://example.com/page)", "url", "https://example.com/page"),
    ("https://en.wikipedia.org/wiki/Foo_(bar) ok", "url", "https://en.wikipedia.org/wiki/Foo_(bar)"),
    ("HTTPS://EXAMPLE.COM/X", "url", "HTTPS://EXAMPLE.COM/X"),
    ("<https://example.com>", "url", "https://example.com"),
    ("mon blog jean-dupont.fr !", "domain", "jean-dupont.fr"),
    ("photos.famille-martin.com", "domain", "photos.famille-martin.com"),
    ("écrivez via mon-site.io/contact.", "domain", "mon-site.io/contact"),
    ("Portfolio: marie-curie.dev", "domain", "marie-curie.dev"),
    ("IP 192.168.1.10 bloquée", "ipv4", "192.168.1.10"),
    ("8.8.8.8", "ipv4", "8.8.8.8"),
    ("127.0.0.1:8080", "ipv4", "127.0.0.1"),
    ("255.255.255.255.", "ipv4", "255.255.255.255"),
    ("10.0.0.1\u200b", "ipv4", "10.0.0.1"),
    ("addr 2001:db8::1 up", "ipv6", "2001:db8::1"),
    ("fe80::1ff:fe23:4567:890a", "ipv6", "fe80::1ff:fe23:4567:890a"),
    ("2001:0db8:85a3:0000:0000:8a2e:0370:7334", "ipv6", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"),
    ("loopback ::1.", "ipv6", "::1"),
    ("::ffff:192.168.1.1", "ipv6", "::ffff:192.168.1.1"),
    ("[2001:db8::1]:8080", "ipv6", "2001:db8::1"),
    ("MAC aa:bb:cc:dd:ee:ff", "mac", "aa:bb:cc:dd:ee:ff"),
    ("AA-BB-CC-DD-EE-FF", "mac", "AA-BB-CC-DD-EE-FF"),
    ("cisco 0011.2233.4455.", "mac", "0011.2233.4455"),
    ("00:1A:2B:3C:4D:5E", "mac", "00:1A:2B:3C:4D:5E"),
]


@pytest.mark.parametrize(("text", "kind", "value"), MATCHES)
def test_network_value_is_found_with_exact_offsets(text: str, kind: str, value: str) -> None:
    assert spans_of(text, kind) == located(text, value)


NOT_MATCHES = [
    ("e.g. this, i.e. that", "domain"),
    ("voir rapport.pdf et photo.jpg", "domain"),
    ("main.rs script.sh notes.md archive.zip", "domain"),
    ("config.json index.html setup.py", "domain"),
    ("la fin.De plus", "domain"),
    ("user.name self.email this.page", "domain"),
    ("version 2.0.1 and 3.14", "domain"),
    ("jean@example.com", "domain"),
    ("https://www.example.com/x", "domain"),
    ("ftp is not http", "url"),
    ("www.", "url"),
    ("version 1.2.3", "ipv4"),
    ("v1.2.3.4", "ipv4"),
    ("256.1.1.1", "ipv4"),
    ("1.2.3.4.5", "ipv4"),
    ("build 10.0.19041.1", "ipv4"),
    ("12.03.2024", "ipv4"),
    ("12:30:45", "ipv6"),
    ("std::vector<int>", "ipv6"),
    ("dead::beef", "ipv6"),
    ("a:b:c", "ipv6"),
    ("2024-01-01T12:30:45Z", "ipv6"),
    ("aa:bb:cc:dd:ee", "mac"),
    ("aa:bb-cc:dd:ee:ff", "mac"),
    ("12:30:45:00:11:22:33", "mac"),
    ("2024.0312.1430.5", "mac"),
]


@pytest.mark.parametrize(("text", "kind"), NOT_MATCHES)
def test_no_network_value_in_lookalikes(text: str, kind: str) -> None:
    assert spans_of(text, kind) == []


def test_reserved_addresses_are_reported_for_policy_to_judge() -> None:
    kinds = {(s.kind, s.value) for s in detect_network("0.0.0.0 and 10.1.2.3 and ::1")}
    assert kinds == {("ipv4", "0.0.0.0"), ("ipv4", "10.1.2.3"), ("ipv6", "::1")}


def test_url_scores_above_a_bare_domain() -> None:
    by_kind = {s.kind: s.score for s in detect_network("https://a-b.fr and c-d.fr")}
    assert by_kind == {"url": 1.0, "domain": 0.6}


def test_a_dotted_phone_fragment_with_leading_zeros_is_not_an_ipv4_address():
    from openmasq.redact.rules import detect_rules

    assert [s for s in detect_rules("appelez le 06.37.68.08") if s.kind == "ipv4"] == []
