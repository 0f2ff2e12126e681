"""extract_steps (issue 20, item 4): a PDF read page by page says how far it is and stops when its
shell closes it; every other format is one step; the result is extract()'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from openmasq.attach import AttachmentError, extract, extract_steps

DATA = Path(__file__).resolve().parent.parent / "data" / "attachments"


def drained(data: bytes, name: str) -> tuple[list[tuple[int, int]], object]:
    steps = extract_steps(data, name)
    seen: list[tuple[int, int]] = []
    while True:
        try:
            seen.append(next(steps))
        except StopIteration as done:
            return seen, done.value


def test_a_pdf_is_read_in_one_step_per_page_with_the_same_result_as_extract() -> None:
    data = (DATA / "contract.pdf").read_bytes()
    seen, found = drained(data, "contract.pdf")
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert found == extract(data, "contract.pdf")


@pytest.mark.parametrize("name", ["contract.docx", "clients.ods", "review.pptx"])
def test_other_formats_are_one_step(name: str) -> None:
    data = (DATA / name).read_bytes()
    seen, found = drained(data, name)
    assert seen == [(1, 1)] and found == extract(data, name)


def test_closing_the_steps_stops_the_reading_between_pages() -> None:
    steps = extract_steps((DATA / "contract.pdf").read_bytes(), "contract.pdf")
    assert next(steps) == (1, 3)
    steps.close()
    with pytest.raises(StopIteration):
        next(steps)


@pytest.mark.parametrize("name, reason", [("encrypted.pdf", "encrypted"), ("scanned.pdf", "no_text_layer")])
def test_a_refused_pdf_raises_its_reason_from_the_steps(name: str, reason: str) -> None:
    with pytest.raises(AttachmentError) as refused:
        drained((DATA / name).read_bytes(), name)
    assert refused.value.reason == reason
