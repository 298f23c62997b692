"""Pulling and deleting Ollama's models (routing/ollama_models.py) against the loopback Ollama."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

import httpx
import pytest

from routing import pull_progress
from routing.errors import (
    CannotConnect,
    MalformedResponse,
    ModelNotFound,
    ServerError,
    TimedOut,
    TooLarge,
)
from routing.ollama_models import (
    LINE_CAP,
    VISION_MODELS,
    PullProgress,
    delete,
    listed_name,
    pull,
    pull_failure,
)
from routing.secrets import MARK
from tests.events import stopped_once
from tests.servers import hostile
from tests.servers.loopback import closed_port
from tests.servers.ollama import FakeOllama
from tests.servers.ollama_library import PULL_NOT_FOUND, PullReply, PullRun, pull_lines


async def pulled(server: FakeOllama, name: str) -> list[PullProgress]:
    """Every progress of one pull, read to its end."""
    async with aclosing(pull(server.base_url, name)) as progress:
        return [p async for p in progress]


NDJSON = "application/x-ndjson"


def tags(server: FakeOllama) -> list[str]:
    """The names GET /api/tags lists."""
    return [m["name"] for m in httpx.get(f"{server.base_url}/api/tags").json()["models"]]


def only_run(server: FakeOllama) -> PullRun:
    """The one pull the server saw."""
    assert len(server.pulls) == 1
    return server.pulls[0]


def outcome(server: FakeOllama) -> str:
    """How the one pull ended, once the server has recorded it: the client can read the
    last line before the server's thread gets to note its end."""
    run = only_run(server)
    run.ended.wait(10)
    return run.outcome


# -- pulling from the loopback Ollama ----------------------------------------------------


async def test_a_pull_streams_its_progress_to_success_and_the_model_is_listed(
    fake_ollama: FakeOllama,
) -> None:
    assert "moondream:1.8b" not in tags(fake_ollama)
    progress = await pulled(fake_ollama, "moondream:1.8b")
    assert progress[0].status == "pulling manifest"
    assert progress[-1].done and progress[-1].percent == 100.0
    assert progress[-1].total == 1_700_000_000  # the library's size, as Ollama reports it
    assert [p.status for p in progress[-3:]] == [
        "verifying sha256 digest",
        "writing manifest",
        "success",
    ]
    counted = [p.completed for p in progress]
    assert counted == sorted(counted) and len(set(counted)) > 4  # it moves, never back
    assert any(p.status.startswith("pulling ") and p.digest.startswith("sha256:") for p in progress)
    request = fake_ollama.received(lambda r: r.path == "/api/pull")
    assert [r.body for r in request] == [{"model": "moondream:1.8b", "stream": True}]
    assert outcome(fake_ollama) == "success"
    assert "moondream:1.8b" in tags(fake_ollama)


async def test_the_model_is_installed_before_the_pull_says_success(fake_ollama: FakeOllama) -> None:
    # Ollama writes the manifest its listing reads ("writing manifest"), then says
    # "success": a client listing as soon as it reads that line finds the model, and a
    # connection cut just before the line leaves it installed. (The double once installed
    # it only after the stream's end, so a window listing at once could miss it.)
    model = fake_ollama.in_library("moondream:1.8b")
    before_success = len(list(pull_lines(model, PullReply()))) - 1
    fake_ollama.enqueue_pull(PullReply(drop_after=before_success))
    statuses: list[str] = []
    with pytest.raises((CannotConnect, MalformedResponse, ServerError)):
        async with aclosing(pull(fake_ollama.base_url, "moondream:1.8b")) as progress:
            async for step in progress:
                statuses.append(step.status)
    assert statuses[-1] == "writing manifest"
    assert outcome(fake_ollama) == "dropped"
    assert "moondream:1.8b" in tags(fake_ollama)


async def test_a_pull_goes_direct_whatever_proxy_the_environment_sets(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    for variable in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(variable, nowhere)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert (await pulled(fake_ollama, "llava:7b"))[-1].done


async def test_an_empty_address_means_ollama_host(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.base_url)
    async with aclosing(pull("", "gemma3:4b")) as progress:
        assert [p async for p in progress][-1].done


async def test_an_error_line_midway_names_the_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(error_after=4))
    seen: list[PullProgress] = []
    with pytest.raises(CannotConnect) as caught:
        async with aclosing(pull(fake_ollama.base_url, "gemma3:4b")) as progress:
            async for step in progress:
                seen.append(step)
    assert len(seen) == 4 and seen[-1].completed > 0
    assert "gemma3:4b" in caught.value.message and "online" in caught.value.message
    assert "no such host" in caught.value.detail  # Ollama's words kept for the log
    assert outcome(fake_ollama) == "error"
    assert "gemma3:4b" not in tags(fake_ollama)


async def test_a_dropped_connection_says_the_pull_stopped(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(drop_after=3))
    with pytest.raises(ServerError) as caught:
        await pulled(fake_ollama, "llava:7b")
    assert "Pulling llava:7b stopped" in caught.value.message
    assert "Pull it again" in caught.value.message
    assert outcome(fake_ollama) == "dropped"


async def test_an_unknown_name_says_so_and_suggests_checking_it(fake_ollama: FakeOllama) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await pulled(fake_ollama, "qwen2.5vl:300b")
    message = caught.value.message
    assert "no model called qwen2.5vl:300b" in message and "Check the name" in message
    assert caught.value.detail.endswith(PULL_NOT_FOUND)


async def test_a_name_that_is_no_name_is_refused_before_any_progress(
    fake_ollama: FakeOllama,
) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await pulled(fake_ollama, "two words")
    assert "“two words” is not a model name" in caught.value.message
    assert caught.value.detail == "HTTP 400: invalid model name"
    with pytest.raises(ModelNotFound, match="Type the name"):
        await pulled(fake_ollama, "  ")
    assert fake_ollama.pulls == []


async def test_nothing_listening_says_to_start_ollama() -> None:
    with pytest.raises(CannotConnect) as caught:
        async with aclosing(pull(f"http://127.0.0.1:{closed_port()}", "llava:7b")) as progress:
            async for _ in progress:
                pass
    assert "Is Ollama running?" in caught.value.message and "llava:7b" in caught.value.message


async def test_cancelling_the_reader_closes_the_connection(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(delay=0.05, steps=400))  # twenty seconds if let be
    first = asyncio.Event()

    async def read() -> None:
        async with aclosing(pull(fake_ollama.base_url, "qwen2.5vl:3b")) as progress:
            async for step in progress:
                if step.completed:
                    first.set()

    await stopped_once(first, read(), 10)
    run = only_run(fake_ollama)
    # The server learns at its next write that nobody reads: Ollama stops the pull then.
    assert await asyncio.to_thread(run.ended.wait, 5)
    assert run.outcome == "client gone" and run.lines_sent < 100
    assert "qwen2.5vl:3b" in tags(fake_ollama)  # it was installed already, and stays
    assert len([m for m in tags(fake_ollama) if m == "qwen2.5vl:3b"]) == 1


# -- numbers and layers no model has ----------------------------------------------------


def stream_of(*lines: str) -> PullReply:
    """A pull answered with these NDJSON lines, verbatim (numbers Python's JSON can't write)."""
    return PullReply(raw_body="".join(line + "\n" for line in lines), content_type=NDJSON)


async def test_nan_infinity_and_absurd_numbers_are_ignored_and_the_pull_ends(
    fake_ollama: FakeOllama,
) -> None:
    layer = '"status":"pulling aaaa","digest":"sha256:aaaa"'
    fake_ollama.enqueue_pull(
        stream_of(
            '{"status":"pulling manifest"}',
            "{" + layer + ',"total":1000,"completed":250}',
            "{" + layer + ',"total":NaN,"completed":Infinity}',
            "{" + layer + ',"total":-Infinity,"completed":-7}',
            "{" + layer + ',"total":1e400,"completed":123456789012345678901234567890}',
            '{"status":"pulling bbbb","digest":"sha256:bbbb","total":NaN,"completed":NaN}',
            "{" + layer + ',"total":1000,"completed":1000}',
            '{"status":"success"}',
        )
    )
    progress = await pulled(fake_ollama, "llava:7b")
    assert [(p.completed, p.total) for p in progress[1:6]] == [(250, 1000)] * 5
    assert [p.percent for p in progress[1:6]] == [25.0] * 5
    assert (progress[-2].completed, progress[-2].total, progress[-2].percent) == (1000, 1000, 100.0)
    assert progress[-1].done


async def test_a_number_longer_than_python_reads_ends_with_one_clear_error(
    fake_ollama: FakeOllama,
) -> None:
    huge = "9" * 5000  # past Python's 4,300 digits for reading an int
    fake_ollama.enqueue_pull(
        stream_of(
            '{"status":"pulling manifest"}',
            '{"status":"pulling a","digest":"sha256:a","total":' + huge + "}",
        )
    )
    with pytest.raises(MalformedResponse) as caught:
        await pulled(fake_ollama, "llava:7b")
    assert "not in Ollama's format" in caught.value.message
    assert "\n" not in caught.value.message and len(caught.value.message) < 300


async def test_twenty_thousand_layers_add_up_and_the_pull_ends(fake_ollama: FakeOllama) -> None:
    """Each line costs the same however many layers came before (measured in the report)."""
    layers = 20_000
    lines = ['{"status":"pulling manifest"}']
    for n in range(layers):
        digest = f"sha256:{n:064x}"
        lines.append(f'{{"status":"pulling","digest":"{digest}","total":{n + 1}}}')
        lines.append(
            f'{{"status":"pulling","digest":"{digest}","total":{n + 1},"completed":{n + 1}}}'
        )
    lines.append('{"status":"success"}')
    fake_ollama.enqueue_pull(stream_of(*lines))
    progress = await pulled(fake_ollama, "llava:7b")
    assert len(progress) == 2 * layers + 2 and progress[-1].done
    everything = layers * (layers + 1) // 2
    assert (progress[-2].completed, progress[-2].total, progress[-2].percent) == (
        everything,
        everything,
        100.0,
    )
    # Half-way: the first 10,000 layers whole, the next one named with nothing yet.
    assert progress[2 * 10_000 + 1].total == 10_000 * 10_001 // 2 + 10_001
    assert progress[2 * 10_000 + 1].completed == 10_000 * 10_001 // 2


async def test_more_layers_than_any_model_has_end_the_pull_with_one_clear_error(
    fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pull_progress, "LAYER_CAP", 50)
    lines = [f'{{"status":"pulling","digest":"sha256:{n}","total":1}}' for n in range(60)]
    fake_ollama.enqueue_pull(stream_of(*lines, '{"status":"success"}'))
    seen: list[PullProgress] = []
    with pytest.raises(MalformedResponse) as caught:
        async with aclosing(pull(fake_ollama.base_url, "llava:7b")) as progress:
            async for step in progress:
                seen.append(step)
    assert len(seen) == 50 and seen[-1].total == 50
    assert "more than 50 layers in one pull" in caught.value.message


# -- caps ----------------------------------------------------------------------------


async def test_a_line_longer_than_any_progress_stops_at_its_cap(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(hostile=hostile.ENDLESS_LINE))
    with pytest.raises(TooLarge) as caught:
        await pulled(fake_ollama, "llava:7b")
    assert f"more than {LINE_CAP} decoded bytes" in caught.value.detail


async def test_blank_lines_alone_are_no_progress_and_time_out(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(hostile=hostile.KEEPALIVE_FLOOD))
    seen: list[PullProgress] = []
    started = asyncio.get_running_loop().time()
    with pytest.raises(TimedOut) as caught:
        async with aclosing(pull(fake_ollama.base_url, "llava:7b", idle_limit=0.5)) as progress:
            async for step in progress:
                seen.append(step)
    assert 0.5 <= asyncio.get_running_loop().time() - started < 4
    assert [step.status for step in seen] == ["pulling manifest"]
    assert caught.value.message == (
        f"Ollama at 127.0.0.1:{fake_ollama.port} said nothing about llava:7b for 0.5 seconds, "
        "so Sightline stopped waiting. Try again."
    )


async def test_a_slow_pull_that_shows_progress_is_never_idle(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(delay=0.15, steps=8))  # well past 0.5 s in all
    async with aclosing(pull(fake_ollama.base_url, "llava:7b", idle_limit=0.5)) as progress:
        steps = [step async for step in progress]
    assert steps[-1].done


async def test_a_gzip_bomb_inflates_no_further_than_a_line(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(hostile=hostile.GZIP_BOMB))
    with pytest.raises(TooLarge):
        await pulled(fake_ollama, "llava:7b")


async def test_an_endless_error_body_stops_at_its_cap(fake_ollama: FakeOllama) -> None:
    fake_ollama.enqueue_pull(PullReply(hostile=hostile.ENDLESS_LINE, status=500))
    with pytest.raises(TooLarge, match="error body"):
        await pulled(fake_ollama, "llava:7b")


async def test_a_web_page_instead_of_ollama_says_to_check_the_address(
    fake_ollama: FakeOllama,
) -> None:
    fake_ollama.enqueue_pull(PullReply(status=502, raw_body="<html>Bad gateway</html>"))
    with pytest.raises(MalformedResponse, match="points at Ollama"):
        await pulled(fake_ollama, "llava:7b")


def test_ollamas_words_are_redacted_and_kept_short() -> None:
    words = "registry said: Bearer abcdefghijklmnopqrstuvwxyz0123 " + "x" * 2000
    error = pull_failure(words, "llava:7b")
    assert MARK in error.message and "abcdefghijklmnop" not in error.message + error.detail
    assert len(error.message) < 500 and error.detail.endswith("x" * 2000)
    full = pull_failure("write /root/.ollama: no space left on device", "gemma3:4b")
    assert "ran out of disk space while pulling gemma3:4b" in full.message


# -- deleting ------------------------------------------------------------------------


async def test_delete_removes_an_installed_model(fake_ollama: FakeOllama) -> None:
    await delete(fake_ollama.base_url, "llava:7b")
    assert "llava:7b" not in tags(fake_ollama)
    request = fake_ollama.received(lambda r: r.path == "/api/delete")
    assert [(r.method, r.body) for r in request] == [("DELETE", {"model": "llava:7b"})]


async def test_delete_of_a_model_not_installed_says_so(fake_ollama: FakeOllama) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await delete(fake_ollama.base_url, "moondream:1.8b")
    assert "moondream:1.8b is not installed" in caught.value.message
    assert "model 'moondream:1.8b' not found" in caught.value.detail


# -- names and the offer -------------------------------------------------------------


def test_a_bare_name_is_listed_with_its_latest_tag() -> None:
    assert listed_name("moondream") == "moondream:latest"
    assert listed_name(" llava:7b ") == "llava:7b"
    assert listed_name("hf.co/user/model") == "hf.co/user/model:latest"
    assert listed_name("localhost:5000/m") == "localhost:5000/m:latest"


def test_the_vision_models_offered_are_small_and_in_the_loopback_library() -> None:
    library = FakeOllama().library
    assert [name for name, _ in VISION_MODELS] == [
        "qwen2.5vl:3b",
        "gemma3:4b",
        "granite3.2-vision:2b",
        "moondream:1.8b",
        "llava:7b",
    ]
    for name, size in VISION_MODELS:
        assert 1_000_000_000 < size < 5_000_000_000
        assert "vision" in library[name].capabilities and library[name].size == size
