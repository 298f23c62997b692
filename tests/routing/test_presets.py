"""The preset table and the order in which sight is decided (SPEC §2)."""

from __future__ import annotations

import pytest

from routing.presets import KINDS, PRESETS, counts_as_seeing, preset_for, sees_for, tools_for


def test_every_kind_the_spec_names_has_a_preset() -> None:
    """One table: the cloud presets, servers of your own, LM Studio, Anthropic and Ollama."""
    expected = {
        "openai",
        "openrouter",
        "gemini",
        "mistral",
        "groq",
        "xai",
        "deepseek",
        "cerebras",
        "zai",
        "moonshot",
        "qwen",
        "minimax",
        "custom",
        "lmstudio",
        "anthropic",
        "ollama",
    }
    assert set(KINDS) == expected
    assert all(PRESETS[k].kind == k for k in KINDS)


def test_unknown_kind_lists_the_kinds() -> None:
    """A typo in the config gets the list of kinds to choose from."""
    with pytest.raises(ValueError, match="openai, openrouter") as caught:
        preset_for("opneai")
    assert "ollama" in str(caught.value)


@pytest.mark.parametrize(
    ("kind", "base_url", "key_env", "wire"),
    [
        ("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "responses"),
        ("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openai_chat"),
        ("gemini", "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY", "gemini"),
        ("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "openai_chat"),
        ("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "openai_chat"),
        ("xai", "https://api.x.ai/v1", "XAI_API_KEY", "openai_chat"),
        ("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", "openai_chat"),
        ("zai", "https://api.z.ai/api/paas/v4", "ZAI_API_KEY", "openai_chat"),
        ("moonshot", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY", "openai_chat"),
        ("lmstudio", "http://127.0.0.1:1234", "", "lmstudio"),
        ("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "anthropic"),
        ("ollama", "http://127.0.0.1:11434", "", "ollama"),
    ],
)
def test_addresses_keys_and_wires(kind: str, base_url: str, key_env: str, wire: str) -> None:
    """Each preset knows its address, its key's usual variable and its wire."""
    preset = preset_for(kind)
    assert (preset.base_url, preset.key_env, preset.wire) == (base_url, key_env, wire)
    assert preset.needs_key == bool(key_env)


def test_local_ones_need_no_key() -> None:
    """Servers on this computer need no key and default to local."""
    for kind in ("custom", "lmstudio", "ollama"):
        preset = preset_for(kind)
        assert not preset.needs_key and preset.key_env == "" and preset.local_default
    assert not any(preset_for(k).local_default for k in ("openai", "groq", "anthropic"))


def test_only_mistral_bridges_and_mistral_asks_no_usage() -> None:
    """Mistral gets the bridge and no stream_options (it refuses unknown fields)."""
    assert [k for k in KINDS if PRESETS[k].bridge_tool_then_user] == ["mistral"]
    assert not preset_for("mistral").include_usage
    assert preset_for("openai").include_usage


@pytest.mark.parametrize(
    ("kind", "model", "sees"),
    [
        ("openai", "gpt-4o-mini", True),
        ("gemini", "gemini-2.5-flash", True),
        ("anthropic", "claude-sonnet-4-5", True),
        ("deepseek", "deepseek-chat", False),
        ("cerebras", "llama-3.3-70b", False),
        ("minimax", "MiniMax-M2", False),
        ("groq", "meta-llama/llama-4-scout-17b-16e-instruct", True),
        ("groq", "meta-llama/llama-4-maverick-17b-128e-instruct", True),
        ("groq", "llama-3.2-90b-vision-preview", True),
        ("groq", "llama-3.3-70b-versatile", False),
        ("groq", "qwen/qwen3-32b", False),
        ("xai", "grok-2-vision-1212", True),
        ("xai", "grok-4-0709", True),
        ("xai", "grok-4-1-fast-reasoning", True),
        ("xai", "grok-3-mini", False),
        ("xai", "grok-code-fast-1", False),
        ("xai", "grok-imagine-image", False),
        ("zai", "glm-4.5v", True),
        ("zai", "glm-4.6v-flash", True),
        ("zai", "glm-4v-plus", True),
        ("zai", "glm-4.6", False),
        ("zai", "glm-4.5-air", False),
        ("moonshot", "moonshot-v1-8k-vision-preview", True),
        ("moonshot", "kimi-k2.5", True),
        ("moonshot", "kimi-latest", True),
        ("moonshot", "kimi-k2-turbo-preview", False),
        ("moonshot", "moonshot-v1-32k", False),
        ("qwen", "qwen-vl-max", True),
        ("qwen", "qwen3-vl-plus", True),
        ("qwen", "qwen2.5-vl-72b-instruct", True),
        ("qwen", "qvq-max", True),
        ("qwen", "qwen3-omni-flash", True),
        ("qwen", "qwen-plus", False),
        ("qwen", "qwen3-coder-plus", False),
    ],
)
def test_rules_when_the_listing_is_mute(kind: str, model: str, sees: bool) -> None:
    """All, none, or a name pattern, as the provider's docs say."""
    assert sees_for(preset_for(kind), model, None) is sees


def test_listing_wins_over_the_rule() -> None:
    """The provider's own word comes first, even against the preset's rule."""
    assert sees_for(preset_for("openai"), "gpt-4o", False) is False
    assert sees_for(preset_for("deepseek"), "deepseek-vl-next", True) is True
    assert sees_for(preset_for("groq"), "llama-3.3-70b-versatile", True) is True


def test_unknown_where_no_one_says() -> None:
    """A server of your own, OpenRouter or Mistral without a listing: unknown, not a guess."""
    for kind in ("custom", "openrouter", "mistral", "lmstudio", "ollama"):
        assert sees_for(preset_for(kind), "some-model", None) is None


def test_unknown_counts_as_seeing_only_where_pictures_are_taken() -> None:
    """Unknown sends pictures to a server of your own, never to DeepSeek."""
    assert counts_as_seeing(preset_for("custom"), None) is True
    assert counts_as_seeing(preset_for("deepseek"), None) is False
    assert counts_as_seeing(preset_for("deepseek"), True) is True
    assert counts_as_seeing(preset_for("openai"), False) is False


def test_tools_rule() -> None:
    """Tools follow the same order: listing, then rule, then unknown."""
    assert tools_for(preset_for("openai"), "gpt-4o", None) is True
    assert tools_for(preset_for("openai"), "gpt-4o", False) is False
    assert tools_for(preset_for("custom"), "x", None) is None
