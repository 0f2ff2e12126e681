"""The corpus scorer: what counts as a leak, as over-redaction, and how the tables read."""

from __future__ import annotations

import json

import pytest

from openmasq.redact.evaluate import (
    STRUCTURED_KINDS,
    Label,
    Record,
    changed_tokens,
    format_languages,
    format_leaks,
    format_table,
    is_leaked,
    parse_jsonl,
    run,
    score,
)

RECORDS = [
    Record("fr-001", "fr", "Appelle Marie Dupont au 06 12 34 56 78, IBAN FR76 3000 6000 0112 3456 7890 189.",
           (Label("Marie Dupont", "person"), Label("06 12 34 56 78", "phone"),
            Label("FR76 3000 6000 0112 3456 7890 189", "iban"))),
    Record("fr-002", "fr", "Quelle est la capitale de l'Australie ?"),
    Record("en-001", "en", "Email Tom Baker at tom@bakerfoods.co.uk about Baker Foods.",
           (Label("Tom Baker", "person"), Label("tom@bakerfoods.co.uk", "email"),
            Label("Baker Foods", "org"))),
    Record("en-002", "en", "Is Python 3.12 faster than 3.11 on Windows?"),
]


def _outputs(**by_id: str) -> dict[str, str]:
    outputs = {record.id: record.text for record in RECORDS}
    outputs.update({key.replace("_", "-"): value for key, value in by_id.items()})
    return outputs


@pytest.mark.parametrize("value,kind,output,leaked", [
    ("Marie Dupont", "person", "voir Marie Dupont demain", True),
    ("Marie Dupont", "person", "voir MARIE DUPONT demain", True),          # case variant
    ("Hélène Garnier", "person", "voir Helene  Garnier", True),           # accent and whitespace variant
    ("Marie Dupont", "person", "voir Marie\nDupont", True),               # line break inside
    ("O'Connor", "person", "Mr O’Connor called", True),                   # typographic apostrophe
    ("Marie Dupont", "person", "voir Claire Martin demain", False),
    ("Marie Dupont", "person", "voir Marie Dupontel demain", False),       # glued into a longer word
    ("Ana", "person", "a banana split", False),
    ("06 12 34 56 78", "phone", "tél 0612345678", True),                  # separators are layout
    ("06 12 34 56 78", "phone", "tél 06.12.34.56.78", True),
    ("06 12 34 56 78", "phone", "tél 06 98 76 54 32", False),
    ("FR76 3000 6000 0112 3456 7890 189", "iban", "fr7630006000011234567890189", True),
    ("FR76 3000 6000 0112 3456 7890 189", "iban", "FR76 3000 6000 0112 3456 7890 100", False),
    ("4970 1234 5678 9012", "card", "carte 4970-1234-5678-9012", True),
    ("tom@bakerfoods.co.uk", "email", "write to TOM@BAKERFOODS.CO.UK", True),
    ("tom@bakerfoods.co.uk", "email", "write to ann@fernway.co.uk", False),
    ("Tr0ub4dor&3", "password", "pwd=Tr0ub4dor&3;", True),
    ("Tr0ub4dor&3", "password", "pwd=Xq7ua9dor&1;", False),
    ("17/09/1988", "dob", "né le 17.09.1988", True),
])
def test_a_value_leaks_when_it_or_a_case_accent_or_layout_variant_survives(value, kind, output, leaked):
    assert is_leaked(value, kind, output) is leaked


def test_identity_leaks_every_label_and_changes_no_clean_message():
    result = score(RECORDS, run(RECORDS, lambda text, lang: text))
    assert all(k.leak_rate == 1.0 for k in result.kinds.values())
    assert result.over.messages == 2 and result.over.changed_messages == 0 and result.over.token_rate == 0.0
    assert len(result.leaks) == 6


def test_a_perfect_redaction_leaks_nothing():
    outputs = _outputs(
        fr_001="Appelle Claire Martin au 07 98 76 54 32, IBAN FR76 1027 8060 1000 0205 2140 112.",
        en_001="Email Sam Hale at sam@fernway.co.uk about Fernway Foods.",
    )
    result = score(RECORDS, outputs)
    assert result.leaks == ()
    assert result.group(STRUCTURED_KINDS).labelled == 3
    assert result.group(STRUCTURED_KINDS).leak_rate == 0.0
    assert result.kinds["person"].fragment_rate == 0.0


def test_a_surname_left_behind_is_a_fragment_not_a_full_leak():
    outputs = _outputs(fr_001="Appelle Claire Dupont au 07 98 76 54 32, IBAN FR76 1027 8060 1000 0205 2140")
    person = score(RECORDS, outputs).kinds_by_lang["fr"]["person"]
    assert (person.leaked, person.fragments) == (0, 1)


def test_a_name_word_the_message_uses_in_its_own_right_is_not_blamed_as_a_fragment():
    text = "Tom Baker bakes. Baker Street is famous."
    record = Record("en-009", "en", text, (Label("Tom Baker", "person"),))
    result = score([record], {"en-009": "Sam Hale bakes. Baker Street is famous."})
    assert result.kinds["person"].fragments == 0


def test_a_full_leak_also_counts_as_a_fragment_leak():
    result = score(RECORDS, run(RECORDS, lambda text, lang: text))
    assert result.kinds["person"].fragments == result.kinds["person"].leaked == 2


def test_over_redaction_counts_changed_clean_messages_and_their_changed_tokens():
    outputs = _outputs(en_002="Is Python 3.12 faster than 3.11 on [ORG1]?")
    result = score(RECORDS, outputs)
    assert result.over.changed_messages == 1 and result.over.message_rate == 0.5
    assert result.changed_clean_ids == ("en-002",)
    assert result.over_by_lang["en"].changed_messages == 1 and result.over_by_lang["fr"].changed_messages == 0
    assert result.over.changed_tokens == 1


def test_changes_inside_messages_with_personal_data_are_not_over_redaction():
    outputs = _outputs(fr_001="[REDACTED]")
    assert score(RECORDS, outputs).over.changed_messages == 0


@pytest.mark.parametrize("before,after,expected", [
    ("a b c d", "a b c d", (4, 0)),
    ("a b c d", "a X c d", (4, 1)),
    ("a b c d", "a c d", (4, 1)),
    ("a b c d", "", (4, 4)),
    ("", "", (0, 0)),
])
def test_changed_tokens_counts_tokens_of_the_input_that_did_not_survive(before, after, expected):
    assert changed_tokens(before, after) == expected


def test_scores_are_kept_per_language():
    result = score(RECORDS, _outputs(en_001="Email Sam Hale at sam@fernway.co.uk about Fernway Foods."))
    assert result.kinds_by_lang["fr"]["person"].leaked == 1
    assert result.kinds_by_lang["en"]["person"].leaked == 0
    assert result.kinds["person"].labelled == 2 and result.kinds["person"].leaked == 1


def test_parse_jsonl_reads_records_and_rejects_malformed_ones():
    line = json.dumps({"id": "fr-001", "lang": "fr", "text": "x y", "pii": [{"value": "y", "kind": "org"}]})
    assert parse_jsonl(line + "\n\n") == [Record("fr-001", "fr", "x y", (Label("y", "org"),))]
    with pytest.raises(ValueError):
        parse_jsonl(json.dumps({"id": "fr-001", "lang": "fr", "pii": []}))
    with pytest.raises(ValueError):
        parse_jsonl(json.dumps({"id": "fr-001", "lang": "fr", "text": "x", "pii": [{"value": 3}]}))


def test_format_table_lists_every_kind_marks_unsupported_ones_and_the_over_redaction():
    ours = score(RECORDS, _outputs(
        fr_001="Appelle Claire Martin au 07 98 76 54 32, IBAN FR76 1027 8060 1000 0205 2140 112."))
    identity = score(RECORDS, run(RECORDS, lambda text, lang: text))
    table = format_table({"openmasq": ours, "presidio": identity}, {"presidio": {"iban"}})
    assert "openmasq" in table and "presidio" in table
    iban_row = next(line for line in table.splitlines() if line.startswith("iban"))
    assert "0/1 0.0 %" in iban_row and "1/1 100.0 % n/s" in iban_row
    structured_row = next(line for line in table.splitlines() if line.startswith("structured"))
    assert "1/3 33.3 %" in structured_row and "3/3 100.0 %" in structured_row
    assert "messages changed" in table and "tokens changed" in table


def test_format_languages_and_format_leaks_name_languages_records_and_values():
    identity = score(RECORDS, run(RECORDS, lambda text, lang: text))
    assert "fr (3)" in format_languages({"identity": identity})
    leaks = format_leaks(identity, limit=2)
    assert "fr-001" in leaks and "'Marie Dupont'" in leaks and "... 4 more" in leaks
