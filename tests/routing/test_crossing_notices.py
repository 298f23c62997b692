"""The one factory of crossing notices (routing/crossing_notices.py): the words a person
reads and the facts the ledger lists, made together."""

from __future__ import annotations

from routing.crossing_notices import leaving_notice, routing_notice
from routing.models import ModelInfo
from routing.router import Choice
from routing.transcript import WHOLE_MESSAGE, Crossed, NoticeKind


def test_earlier_pictures_and_pdfs_leaving_are_named_with_their_facts() -> None:
    notice = leaving_notice(["a.png", "b.png"], ["notes.pdf"], "oa:gpt-4o", "api.openai.com", "why")
    assert notice.kind == NoticeKind.DISCLOSURE
    assert notice.text == (
        "2 pictures (a.png, b.png), 1 PDF (notes.pdf) from earlier in this chat now go to "
        "oa:gpt-4o at api.openai.com, off this computer; until now they had stayed on it."
    )
    assert notice.crossed == Crossed(
        "oa:gpt-4o",
        "api.openai.com",
        "2 pictures (a.png, b.png), 1 PDF (notes.pdf) from earlier turns",
        "why",
        False,
    )


def test_a_routing_choice_crosses_only_when_it_runs_off_this_computer() -> None:
    choice = Choice(ModelInfo("oa", "gpt-4o", sees=True), "it sees", True)
    away = routing_notice(choice, "api.openai.com", False)
    assert away.kind == NoticeKind.ROUTING and away.crossed is not None
    assert (away.crossed.what, away.crossed.why) == (WHOLE_MESSAGE, "Sightline chose it: it sees")
    assert routing_notice(choice, "localhost:11434", True).crossed is None
