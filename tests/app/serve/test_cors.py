"""CORS only on request (app/serve/cors.py): a page from an origin named with --cors-origin
may read answers, with the token still needed on every real request; no other page may, and
what names no origin is refused before the server starts."""

from __future__ import annotations

import httpx
import pytest

from app.serve.cors import OriginRefused, checked_origin
from tests.app.serve.conftest import running, start
from tests.conftest import SightlineHome

PAGE = "http://localhost:5173"
PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os",
}
ASK = {"model": "ollama:llama3.2:3b", "messages": [{"role": "user", "content": "Hi"}]}


async def test_a_named_origin_may_read_answers_and_still_needs_the_token(
    home: SightlineHome,
) -> None:
    with running(
        home, "--cors-origin", PAGE + "/", "--cors-origin", "HTTPS://Tool.Example:443"
    ) as serving:
        async with httpx.AsyncClient(base_url=serving.openai_url) as raw:
            # A browser's preflight carries no token: it is answered, for the named page.
            for origin in (PAGE, "https://tool.example"):
                preflight = await raw.options(
                    "/chat/completions", headers={"Origin": origin, **PREFLIGHT}
                )
                assert preflight.status_code == 200
                assert preflight.headers["access-control-allow-origin"] == origin
                assert "authorization" in preflight.headers["access-control-allow-headers"]
                assert "POST" in preflight.headers["access-control-allow-methods"]
            # Another page (another port is another origin) is told nothing: its preflight
            # is the guard's, as where CORS is off.
            other = await raw.options(
                "/chat/completions", headers={"Origin": "http://localhost:5174", **PREFLIGHT}
            )
            assert other.status_code == 401 and other.json()["error"]["code"]
            assert not [h for h in other.headers if h.startswith("access-control-")]
            # The real request without the token: the guard's 401, as without CORS.
            refused = await raw.post("/chat/completions", json=ASK, headers={"Origin": PAGE})
            assert refused.status_code == 401
            assert refused.json()["error"]["code"] == "invalid_api_key"
            # With it, the page may read the answer and the notices' header.
            answered = await raw.post(
                "/chat/completions", json=ASK, headers={"Origin": PAGE, **serving.auth}
            )
            assert answered.status_code == 200
            assert answered.json()["choices"][0]["message"]["content"] == "You said: Hi"
            assert answered.headers["access-control-allow-origin"] == PAGE
            exposed = answered.headers["access-control-expose-headers"].lower()
            assert "x-sightline-notices" in exposed
            elsewhere = await raw.get(
                "/models", headers={"Origin": "http://localhost:5174", **serving.auth}
            )
            assert elsewhere.status_code == 200
            assert not [h for h in elsewhere.headers if h.startswith("access-control-")]


@pytest.mark.parametrize(
    ("given", "words"), [("*", "any web page"), ("http://localhost:5173/app", "not an origin")]
)
def test_what_names_no_origin_is_refused_before_serving(
    home: SightlineHome, given: str, words: str
) -> None:
    process = start(home, "--port", "0", "--cors-origin", given)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1 and out == ""
    assert words in err and "--cors-origin" in err and "Traceback" not in err


def test_origins_are_written_as_browsers_send_them() -> None:
    assert checked_origin(" http://LocalHost:5173/ ") == "http://localhost:5173"
    assert checked_origin("https://tool.example:443") == "https://tool.example"
    assert checked_origin("http://[::1]:8080") == "http://[::1]:8080"
    assert checked_origin("vscode-webview://abc123") == "vscode-webview://abc123"
    for given in ("null", "localhost:5173", "http://localhost:99999", "http://u@localhost:1"):
        with pytest.raises(OriginRefused):
            checked_origin(given)
