"""The explicit sweep (reference 3.7, 11.13) with fixes: a failure is not "truncated" (12 item 7),
"full" counts offered rows (item 6), an empty legible sweep is not a failure (item 0)."""

from __future__ import annotations

from collections.abc import Sequence

from openmasq.memory.extract.parse import ParsedExtraction, ParsedFact
from openmasq.memory.extract.sweep import SweepResult, sweep_extraction


def _page(*entities: str, profile: str | None = None, rows: int | None = None) -> ParsedExtraction:
    facts = tuple(ParsedFact(e, f"Fait sur {e}.", "organisation") for e in entities)
    return ParsedExtraction(facts, profile, len(facts) if rows is None else rows)


def _drive(pages: Sequence[ParsedExtraction | None], *, limit: int = 3, max_passes: int = 4,
           known: Sequence[str] = (), drop_known: bool = False) -> tuple[SweepResult, list[list[str]]]:
    """Run the sweep over scripted passes; return its result and the exclusion list of each pass."""
    sweep = sweep_extraction(limit=limit, max_passes=max_passes, known=known, drop_known=drop_known)
    exclusions = [next(sweep)]
    for page in pages:
        try:
            exclusions.append(sweep.send(page))
        except StopIteration as stop:
            result: SweepResult = stop.value
            return result, exclusions
    raise AssertionError("the sweep asked for more passes than scripted")


def test_full_pages_are_followed_until_a_short_one_and_exclusions_grow():
    result, exclusions = _drive([_page("A", "B", "C"), _page("D", "E", "F"), _page("G")])
    assert [f.entity for f in result.facts] == list("ABCDEFG")
    assert (result.passes, result.truncated, result.failed, result.legible) == (3, False, False, True)
    assert exclusions == [[], ["A", "B", "C"], ["A", "B", "C", "D", "E", "F"]]


def test_a_short_first_pass_makes_one_call():
    result, exclusions = _drive([_page("A")])
    assert result.passes == 1 and len(exclusions) == 1 and not result.truncated


def test_a_full_pass_that_repeats_itself_stops_after_two_calls():
    result, _ = _drive([_page("A", "B", "C"), _page("A", "B", "C")])
    assert result.passes == 2 and [f.entity for f in result.facts] == ["A", "B", "C"]
    assert not result.truncated


def test_all_full_passes_up_to_the_budget_are_truncated():
    result, _ = _drive([_page("A", "B", "C"), _page("D", "E", "F")], max_passes=2)
    assert len(result.facts) == 6 and result.passes == 2 and result.truncated


def test_known_entities_are_listed_from_the_first_pass():
    _, exclusions = _drive([_page("X")], known=["Apple", "Walmart"])
    assert exclusions[0] == ["Apple", "Walmart"]


def test_a_fact_about_a_known_entity_is_kept_as_a_possible_update():
    result, _ = _drive([_page("Apple", "Zeta")], known=["Apple"])
    assert [f.entity for f in result.facts] == ["Apple", "Zeta"]


def test_with_drop_known_a_known_entity_is_dropped_as_in_the_reference():
    result, _ = _drive([_page("apple", "Zeta")], known=["Apple"], drop_known=True)
    assert [f.entity for f in result.facts] == ["Zeta"]


def test_cross_pass_dedup_ignores_case_and_spacing():
    result, exclusions = _drive([_page("Karl Studio", "B", "C"), _page("karl  STUDIO", "D")])
    assert [f.entity for f in result.facts] == ["Karl Studio", "B", "C", "D"]
    assert exclusions[1] == ["Karl Studio", "B", "C"]


def test_two_facts_about_one_entity_in_one_pass_are_both_kept():
    result, _ = _drive([_page("Karl Studio", "Karl Studio")])
    assert len(result.facts) == 2


def test_the_first_profile_is_kept_and_a_mid_sweep_failure_keeps_earlier_facts():
    result, _ = _drive([_page("A", "B", "C", profile="Consultant."), _page("D", "E", "F", profile="Autre."), None])
    assert [f.entity for f in result.facts] == list("ABCDEF")
    assert result.profile == "Consultant."
    assert result.failed and result.passes == 3


def test_a_failed_pass_after_a_full_one_is_not_truncated():
    result, _ = _drive([_page("A", "B", "C"), None])
    assert result.failed and not result.truncated


def test_a_failing_first_pass_gives_nothing_and_is_not_legible():
    result, _ = _drive([None])
    assert result == SweepResult(passes=1, truncated=False, legible=False, failed=True)


def test_a_valid_empty_first_pass_is_legible_nothing_durable():
    result, _ = _drive([_page()])
    assert result == SweepResult(passes=1, legible=True)


def test_a_pass_with_invalid_rows_that_filled_the_cap_still_counts_as_full():
    result, _ = _drive([_page("A", "B", rows=3), _page("C")])
    assert result.passes == 2 and [f.entity for f in result.facts] == ["A", "B", "C"]


def test_silent_mode_makes_a_single_pass():
    result, _ = _drive([_page("A", "B", "C")], max_passes=1)
    assert result.passes == 1 and result.truncated
