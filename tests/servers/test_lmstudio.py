"""The fake LM Studio answers with its REST model lists, and its own unknown-path answer."""

from __future__ import annotations

import httpx

from tests.servers.lmstudio import FakeLMStudio


def test_lmstudio_listings_and_unknown_paths() -> None:
    """/api/v1 and /api/v0 listings; an unknown path is LM Studio's 200 'Unexpected endpoint'."""
    with FakeLMStudio(v1=False) as server:
        v1 = httpx.get(f"{server.base_url}/api/v1/models")
        v0 = httpx.get(f"{server.base_url}/api/v0/models").json()
    assert v1.status_code == 200
    assert v1.json() == {"error": "Unexpected endpoint or method. (GET /api/v1/models)"}
    assert [m["type"] for m in v0["data"]] == ["vlm", "llm", "embeddings"]
    with FakeLMStudio(v1=True, missing_status=404) as server:
        models = httpx.get(f"{server.base_url}/api/v1/models").json()["models"]
        assert httpx.get(f"{server.base_url}/nowhere").status_code == 404
    assert models[0]["capabilities"] == {"vision": True, "trained_for_tool_use": False}
    assert models[1]["loaded_instances"][0]["config"]["context_length"] == 4096
