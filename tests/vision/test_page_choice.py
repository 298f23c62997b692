"""Which pages of a PDF go when it doesn't fit whole (vision/page_choice.py): the first,
those that answer the question best (BM25 over an FTS5 index of the pages), then the next
in order, always in their own order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vision.page_choice import chosen, ranked, spans

PAGES = [
    "Annual report of the harbour board",
    "Tides and moorings in winter",
    "The lighthouse keeper's log",
    "Moorings: fees for the summer season",
    "Index",
]


def test_the_pages_that_share_the_question_s_words_rank_first() -> None:
    assert ranked(PAGES, "What are the mooring fees in summer?")[:1] == [3]
    assert set(ranked(PAGES, "moorings")) == {1, 3}
    assert ranked(PAGES, "?!") == []  # no words, no ranking
    assert ranked(PAGES, '" OR NOT * NEAR( ^') == [] == ranked(PAGES, "")  # words, not syntax


def test_the_first_page_goes_then_the_best_then_the_next_in_order() -> None:
    sent = chosen(PAGES, str, len, 100, "summer fees")
    # 34 characters, then 36 for the fees, then the next in order while room is left (28).
    assert sent == [PAGES[0], PAGES[1], PAGES[3]]


def test_spans_join_runs_of_pages() -> None:
    assert spans([1]) == "1"
    assert spans([12, 1, 7, 8, 9]) == "1, 7-9 and 12"


@given(
    st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=30),
    st.integers(0, 400),
    st.text(max_size=30),
)
def test_what_goes_fits_holds_the_first_page_and_keeps_the_order(
    pages: list[str], budget: int, question: str
) -> None:
    sent = chosen(list(enumerate(pages)), lambda p: p[1], lambda p: len(p[1]), budget, question)
    assert sent[0] == (0, pages[0])
    numbers = [n for n, _ in sent]
    assert numbers == sorted(set(numbers))
    rest = sum(len(text) for _, text in sent[1:])
    assert rest + len(pages[0]) <= budget or rest == 0
