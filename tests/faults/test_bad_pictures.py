"""Corrupt, truncated, huge and mislabelled pictures: a clear message, and the chat goes on.

`sightline ask --attach` refuses a file that is no picture with one line; a picture
whose damage only shows when it is made ready to send must not end the turn (or
every later turn, since it stays in the conversation) with a traceback.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from app.store import Store
from routing.errors import ProviderError
from routing.models import ProviderConfig
from tests.conftest import SightlineHome
from tests.events import ended
from tests.faults.cli import sightline
from tests.faults.conftest import Backend, make_rig
from tests.pictures import encoded, gradient, png_claiming
from tests.servers.ollama import FakeOllama
from vision.pictures import Picture, PictureError, sniff

SEEING = "ollama:llava:7b"
PNG = encoded(gradient(), "PNG")


def truncated_animated_gif() -> bytes:
    """An animated GIF cut inside its second frame's header (a download that stopped)."""
    buffer = io.BytesIO()
    first = gradient()
    first.save(buffer, format="GIF", save_all=True, append_images=[first.rotate(90)], loop=0)
    whole = buffer.getvalue()
    return whole[: whole.rindex(b"\x21\xf9\x04") + 4]


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("empty.png", b"", "is empty"),
        ("notes.png", b"These are my notes, not a picture.\n", "not a picture Sightline can read"),
        ("cut.png", PNG[: len(PNG) // 2], "damaged or truncated"),
        ("bomb.png", png_claiming(30_000, 30_000), "too large to open safely"),
    ],
)
def test_a_file_that_is_no_usable_picture_is_one_line(
    home: SightlineHome, tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    done = sightline(home.env(), "ask", "--model", SEEING, "--attach", str(path), "what is it?")
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f"sightline: {name}") and says in line


def test_a_mislabelled_picture_is_read_by_its_bytes(
    home: SightlineHome, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "photo.png"  # a JPEG, whatever its name says
    path.write_bytes(encoded(gradient(), "JPEG"))
    done = sightline(home.env(), "ask", "--model", SEEING, "--attach", str(path), "what is it?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: what is it? (I see 1 pictures)\n"
    with Store.open(home.data) as store:
        [conversation] = store.conversations.list()
        [user, _answer] = store.messages(conversation.id)
    assert user.pictures[0].mime == "image/jpeg"


async def test_a_picture_damaged_past_its_first_frame_does_not_break_the_chat(
    tmp_path: Path,
) -> None:
    with FakeOllama() as server:
        provider = ProviderConfig("ollama", "ollama", server.base_url)
        rig = await make_rig(Backend("ollama", server, provider, SEEING), tmp_path / "data")
        try:
            with pytest.raises(PictureError, match="damaged or truncated"):
                sniff(truncated_animated_gif(), label="cut.gif")  # refused when attached
            # One stored before sniff walked the frames must not break the chat either.
            data = truncated_animated_gif()
            picture = Picture(data, "image/gif", 2, 2, hashlib.sha256(data).hexdigest(), "cut.gif")
            error = ended(await rig.turn("what is it?", pictures=(picture,))).error
            assert error is None or isinstance(error, ProviderError)
            answer = await rig.good_turn("and now?")  # the picture is still in the history
        finally:
            await rig.runner.catalogue.aclose()
            rig.store.close()
    transcript = rig.reopened()
    assert transcript[0] == ("user", "what is it?", "complete")
    assert transcript[-1] == answer


def test_ask_with_a_picture_damaged_past_its_first_frame_is_one_line(
    home: SightlineHome, tmp_path: Path
) -> None:
    path = tmp_path / "cut.gif"
    path.write_bytes(truncated_animated_gif())
    done = sightline(home.env(), "ask", "--model", SEEING, "--attach", str(path), "what is it?")
    assert "Traceback" not in done.stderr
    assert done.returncode == 0 or len(done.stderr.splitlines()) == 1
