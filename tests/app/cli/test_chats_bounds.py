"""`chats`, `export` and `ask` on a damaged or hostile store, as a person runs them: a chat
whose items loop is named and left out while the others work, and titles and ids are
echoed within bounds (app/cli/chats.py, common.py, app/store/branches.py)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from app.store import Store
from tests.app.cli.helpers import sightline
from tests.app.store.helpers import DAMAGE as STORE_DAMAGE
from tests.conftest import SightlineHome
from tests.servers.ollama import FakeOllama

MODEL = "ollama:llama3.2:3b"


def ask(home: SightlineHome, *args: str) -> str:
    """Run `ask --json`, returning the conversation id from its done line."""
    done = sightline(home, "ask", "--json", "--model", MODEL, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])["conversation"]


def raw_sql(home: SightlineHome, statement: str, *params: object) -> list[tuple]:
    """Run SQL on the store's file behind Sightline's back, as damage or a hostile tool would."""
    with sqlite3.connect(home.data / Store.DB_NAME) as db:
        return db.execute(statement, params).fetchall()


def one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


# The damage the commands must name and leave out (the store's tests also take a loop of four).
DAMAGE = {kind: STORE_DAMAGE[kind] for kind in ("itself", "two", "missing")}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_chat_is_named_and_left_out_and_the_others_still_work(
    home: SightlineHome, fake_ollama: FakeOllama, kind: str
) -> None:
    sound = ask(home, "a sound chat")
    broken = ask(home, "a chat to break")
    ask(home, "--conversation", broken, "and more")
    a, b, c, d = (
        row[0]
        for row in raw_sql(
            home, "SELECT id FROM items WHERE conversation_id = ? ORDER BY id", broken
        )
    )
    damage, words = DAMAGE[kind]
    raw_sql(home, damage.format(a=a, b=b, c=c, d=d))
    what = words.format(a=a, b=b, c=c, d=d)

    listed = sightline(home, "chats")  # each run here fails at 60 s rather than hang
    assert listed.returncode == 0
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == [sound]
    named = one_line(listed.stderr)
    assert broken in named and what in named and "left out" in named
    as_json = sightline(home, "chats", "--json")
    assert [row["id"] for row in json.loads(as_json.stdout)] == [sound]
    assert as_json.stderr == listed.stderr

    for form in ("md", "json"):
        exported = sightline(home, "export", broken, "--format", form)
        assert exported.returncode == 1 and exported.stdout == ""
        assert broken in one_line(exported.stderr) and what in exported.stderr
    assert sightline(home, "export", sound).returncode == 0

    items = raw_sql(home, "SELECT COUNT(*) FROM items")
    sent = len(fake_ollama.chat_requests())
    for more in (["one more"], ["--regenerate"]):
        refused = sightline(home, "ask", "--model", MODEL, "--conversation", broken, *more)
        assert refused.returncode == 1 and refused.stdout == ""
        assert broken in one_line(refused.stderr) and what in refused.stderr
    assert raw_sql(home, "SELECT COUNT(*) FROM items") == items  # nothing added to it
    assert len(fake_ollama.chat_requests()) == sent  # nor anything asked
    assert ask(home, "--conversation", sound, "still here?") == sound


def test_a_huge_title_is_one_bounded_line(home: SightlineHome, fake_ollama: FakeOllama) -> None:
    cid = ask(home, "hello")
    hostile = "Line one\nforged\tline\x1b[31m" + "t" * 10_000_000
    raw_sql(
        home, "UPDATE conversations SET title = ?, model = ? WHERE id = ?", hostile, hostile, cid
    )
    plain = sightline(home, "chats")
    assert plain.returncode == 0, plain.stderr
    [line] = plain.stdout.splitlines()
    assert len(line) < 1000 and line.endswith("…")
    assert "\\n" in line and "\x1b" not in line and line.count("\t") == 3
    [row] = json.loads(sightline(home, "chats", "--json").stdout)
    assert row["title"] == hostile[:200] + "…" and row["model"] == hostile[:200] + "…"


def test_an_unknown_huge_id_is_echoed_within_bounds(home: SightlineHome) -> None:
    huge = "x" * 100_000
    for command in (
        ["export", huge],
        ["ask", "--model", MODEL, "--conversation", huge, "hi"],
        ["ask", "--model", MODEL, "--conversation", huge, "--regenerate"],
    ):
        done = sightline(home, *command)
        assert done.returncode == 1
        message = one_line(done.stderr)
        assert len(message) < 300 and "x" * 80 + "…" in message
        assert "no conversation" in message and "sightline chats" in message
