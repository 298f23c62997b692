"""A JSON export read back from real files, every field checked first: each wrong one is an
ExportError of one line naming the file, the place as a JSON path, and what it must be."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.export import ExportError, snapshot
from app.export_json import to_json
from app.import_json import MAX_IMPORT_BYTES, read_json
from app.store import Store
from routing.transcript import (
    Message,
    Notice,
    NoticeKind,
    PicturePart,
    TextPart,
    ToolCall,
    ToolResult,
    user_message,
)
from tests.pdfs import text_pdf
from tests.pictures import make_picture
from vision.pdf import open_pdf

RED = make_picture("red")


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An export of a chat with a picture, a PDF, a tool step and a notice, as JSON data."""
    with Store.open(tmp_path_factory.mktemp("data")) as store:
        chat = store.conversations.create(model="ollama:llava:7b")
        memo = open_pdf(text_pdf(["Friday"]), name="memo.pdf")
        store.add_message(chat, user_message("What is this?", (RED,), (memo,)))
        store.add_notice(chat, Notice(NoticeKind.INFO, "Looked at it here."))
        call = ToolCall("c1", "screenshot", {"n": 1})
        store.add_message(chat, Message("assistant", (TextPart("Let me see."), call), "m"))
        result = ToolResult("c1", "screenshot", (TextPart("800×600"), PicturePart(RED)))
        store.add_message(chat, Message("tool", (result,)))
        return to_json(snapshot(store, chat))


def refused(tmp_path: Path, data: Any) -> str:
    """The one line read_json says about a file holding `data`."""
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ExportError) as caught:
        read_json(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path} is not a Sightline export: ") or str(path) in message
    return message


def changed(document: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copy = json.loads(json.dumps(document))
    change(copy)
    return copy


def test_the_export_reads_back_whole(document: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    back = read_json(path)
    kinds = [type(e.item).__name__ for e in back.entries]
    assert kinds == ["Message", "Notice", "Message", "Message"]
    first = back.entries[0].item
    assert isinstance(first, Message) and first.pictures[0].data == RED.data


@pytest.mark.parametrize(
    ("top", "kind"), [([], "a list"), (None, "null"), ("a chat", "a string"), (3, "a number")]
)
def test_a_file_that_is_not_an_object(tmp_path: Path, top: Any, kind: str) -> None:
    assert refused(tmp_path, top).endswith(f"the top level must be an object, not {kind}.")


WRONG_FIELDS = [
    # (what is changed, the place and words the message ends with)
    (
        lambda d: d["items"][0]["parts"][0].update(text={"a": 1}),
        "items[0].parts[0].text must be a string, not an object.",
    ),
    (
        lambda d: d["items"][0]["parts"][0].update(text=42),
        "items[0].parts[0].text must be a string, not a number.",
    ),
    (
        lambda d: d["items"][1].update(text={"a": 1}),
        "items[1].text must be a string, not an object.",
    ),
    (lambda d: d["items"][1].update(text=7), "items[1].text must be a string, not a number."),
    (
        lambda d: d["items"][2]["parts"][1].update(arguments=[1, 2]),
        "items[2].parts[1].arguments must be an object, not a list.",
    ),
    (
        lambda d: d["items"][2]["parts"][1].update(arguments="n=1"),
        "items[2].parts[1].arguments must be an object, not a string.",
    ),
    (
        lambda d: d["conversation"].update(model={"name": "x"}),
        "conversation.model must be a string, not an object.",
    ),
    (
        lambda d: d["items"][2].update(model={"name": "x"}),
        "items[2].model must be a string, not an object.",
    ),
    (
        lambda d: d["items"][0].update(created_at="yesterday"),
        "items[0].created_at must be a number, not a string.",
    ),
    (
        lambda d: d["items"][0].update(role="admin"),
        "items[0].role must be one of assistant, system, tool, user, not 'admin'.",
    ),
    (lambda d: d["items"][1].update(kind=["info"]), "items[1].kind must be a string, not a list."),
    (
        lambda d: d["items"][0].update(parts={"type": "text"}),
        "items[0].parts must be a list, not an object.",
    ),
    (
        lambda d: d["items"][0]["parts"].append("words"),
        "items[0].parts[3] must be an object, not a string.",
    ),
    (lambda d: d["items"][0]["parts"].append({"type": "video"}), "not 'video'."),
    (
        lambda d: d["items"][3]["parts"][0]["parts"].append({"type": "pdf", "sha256": "x"}),
        "items[3].parts[0].parts[2].type must be one of pages, picture, text, not 'pdf'.",
    ),
    (
        lambda d: d["items"][3]["parts"][0].update(is_error="no"),
        "items[3].parts[0].is_error must be true or false, not a string.",
    ),
    (
        lambda d: d["items"][0].update(stats={"input_tokens": "12"}),
        "items[0].stats.input_tokens must be a whole number, not a string.",
    ),
    (
        lambda d: d["items"][1].update(crossed={"model": 1}),
        "items[1].crossed.model must be a string, not a number.",
    ),
    (
        lambda d: d["items"][2].update(shown="yes"),
        "items[2].shown must be true or false, not a string.",
    ),
    (lambda d: d["items"].append(7), "items[4] must be an object, not a number."),
    (lambda d: d.update(items={}), "items must be a list, not an object."),
    (lambda d: d.update(version="2"), "version must be a whole number, not a string."),
    (
        lambda d: d.update(version=3),
        "version 3 is not one this Sightline reads (a newer Sightline wrote it).",
    ),
    (lambda d: d.update(format="other"), "format must be 'sightline.conversation', not 'other'."),
    (lambda d: d.pop("conversation"), "the top level has no 'conversation' (an object)."),
    (
        lambda d: d["items"][0]["parts"][1].update(sha256="0" * 64),
        "items[0].parts[1].sha256 names a picture the file doesn't carry.",
    ),
    (
        lambda d: d["items"][0]["parts"][2].update(sha256="0" * 64),
        "items[0].parts[2].sha256 names a PDF the file doesn't carry.",
    ),
    (lambda d: d["pictures"][0].update(data="not base64!"), "pictures[0].data is not base64."),
    (
        lambda d: d["pictures"][0].update(data=base64.b64encode(b"other").decode()),
        "does not match its bytes.",
    ),
    (
        lambda d: d["pictures"][0].update(mime="text/html"),
        "pictures[0].mime must be one of image/bmp, image/gif, image/jpeg, image/png, "
        "image/tiff, image/webp, image/x-icon, not 'text/html'.",
    ),
    (lambda d: d["pictures"][0].update(width=0), "pictures[0].width must be at least 1, not 0."),
    (
        lambda d: d["pdfs"][0].update(pages="1"),
        "pdfs[0].pages must be a whole number, not a string.",
    ),
]


@pytest.mark.parametrize(("change", "words"), WRONG_FIELDS)
def test_a_field_of_the_wrong_kind_is_named_by_its_place(
    document: dict[str, Any], tmp_path: Path, change: Callable[[dict[str, Any]], None], words: str
) -> None:
    assert refused(tmp_path, changed(document, change)).endswith(words)


def test_an_item_can_follow_only_one_before_it(document: dict[str, Any], tmp_path: Path) -> None:
    last = document["items"][-1]["id"]
    itself = changed(document, lambda d: d["items"][-1].update(parent=last))
    assert refused(tmp_path, itself).endswith(
        f"items[3].parent names {last}, which is no item before it."
    )
    later = changed(document, lambda d: d["items"][0].update(parent=last))
    assert f"items[0].parent names {last}, which is no item before it." in refused(tmp_path, later)
    twice = changed(document, lambda d: d["items"][2].update(id=d["items"][0]["id"]))
    assert "items[2].id is" in refused(tmp_path, twice) and "as items[0]'s is" in refused(
        tmp_path, twice
    )


def test_text_no_utf8_can_hold_and_numbers_json_has_not_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    for raw, words in [
        (b'{"format": NaN}', "it is not JSON (NaN is not a number JSON has)."),
        (b'{"format": "\\ud800"}', "format holds a lone surrogate"),
        (b"\xff\xfe{}", "byte 0 is not UTF-8 text."),
        (b'{"format": "sightline.conversation",', "it is not JSON (Expecting property name"),
        (b"[" * 100_000 + b"]" * 100_000, "it is nested too deeply."),
    ]:
        path.write_bytes(raw)
        with pytest.raises(ExportError) as caught:
            read_json(path)
        assert words in str(caught.value)


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_IMPORT_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(
        ExportError,
        match=r"huge.json is too large \(over 1.0 GB\); an? export may be at most 1.0 GB",
    ):
        read_json(path)


def test_a_picture_over_a_pictures_cap_is_refused_before_it_is_decoded(
    document: dict[str, Any], tmp_path: Path
) -> None:
    big = changed(document, lambda d: d["pictures"][0].update(data="A" * 70_000_000))
    assert refused(tmp_path, big).endswith("pictures[0] is larger than a picture may be.")


def test_the_first_format_and_fields_older_exports_lack_read_with_their_defaults(
    document: dict[str, Any], tmp_path: Path
) -> None:
    def first_format(data: dict[str, Any]) -> None:
        data["version"] = 1
        data.pop("pdfs")
        data["items"] = data["items"][1:2] + data["items"][2:3]  # no PDF to carry
        for item in data["items"]:
            for key in ("id", "parent", "shown", "crossed", "details", "model", "status"):
                item.pop(key, None)
            for part in item.get("parts", []):
                part.pop("arguments", None)

    path = tmp_path / "old.json"
    path.write_text(json.dumps(changed(document, first_format)), encoding="utf-8")
    notice, answer = (e.item for e in read_json(path).entries)
    assert notice == Notice(NoticeKind.INFO, "Looked at it here.")
    assert isinstance(answer, Message) and answer.tool_calls == (ToolCall("c1", "screenshot", {}),)
    entries = read_json(path).entries
    assert [(e.id, e.parent, e.shown) for e in entries] == [(1, None, True), (2, 1, True)]
