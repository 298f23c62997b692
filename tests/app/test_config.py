"""Config: the file, the environment, defaults, and messages that name what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Config, ConfigError, effective_providers, load_config, missing_words


def loaded(tmp_path: Path, body: str) -> Config:
    """The settings read from a config.toml holding `body`."""
    (tmp_path / "config.toml").write_text(body)
    return load_config(env_for(tmp_path))


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "SIGHTLINE_CONFIG": str(tmp_path / "config.toml"),
        "SIGHTLINE_DATA_DIR": str(tmp_path / "data"),
        **extra,
    }


def test_no_file_at_all_runs_on_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    env = {"SIGHTLINE_DATA_DIR": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    config = load_config(env)
    assert config.providers == ()
    assert config.discover_local is True
    assert config.source is None
    found = [(p.id, p.kind, p.base_url) for p in effective_providers(config, env)]
    assert found == [
        ("ollama", "ollama", "http://127.0.0.1:11434"),
        ("lmstudio", "lmstudio", "http://127.0.0.1:1234"),
        ("llamacpp", "custom", "http://127.0.0.1:8080/v1"),
    ]
    assert all(p.is_local and p.discovered for p in effective_providers(config, env))


def test_ollama_host_is_honoured(tmp_path: Path) -> None:
    env = {"SIGHTLINE_DATA_DIR": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "x")}
    env["OLLAMA_HOST"] = "127.0.0.1:11500"
    ollama = effective_providers(load_config(env), env)[0]
    assert ollama.base_url == "http://127.0.0.1:11500"


def test_a_named_file_that_does_not_exist_yet_starts_on_defaults_and_says_so(
    tmp_path: Path,
) -> None:
    config = load_config(env_for(tmp_path))
    assert config.providers == () and config.source is None
    assert config.named_missing == tmp_path / "config.toml"
    assert missing_words(config.named_missing) == (
        f"SIGHTLINE_CONFIG names {tmp_path / 'config.toml'}, which doesn't exist yet: "
        "Sightline uses its defaults, and saving Settings writes it."
    )


def test_broken_toml_names_path_and_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        loaded(tmp_path, 'discover_local = true\n\n[[providers]\nid = "x"\n')
    message = str(caught.value)
    assert str(tmp_path / "config.toml") in message
    assert "line 3" in message


def test_providers_are_read_with_their_fields(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        "discover_local = false\n"
        '[[providers]]\nid = "box"\nkind = "ollama"\nbase_url = "http://10.1.2.3:11434/"\n'
        "local = true\n"
        '[[providers]]\nid = "off"\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n'
        "enabled = false\n"
    )
    env = env_for(tmp_path)
    config = load_config(env)
    assert config.discover_local is False
    box, off = config.providers
    assert box.base_url == "http://10.1.2.3:11434"  # trailing slash dropped
    assert box.is_local is True  # the config's word beats the address
    assert off.enabled is False
    assert [p.id for p in effective_providers(config, env)] == ["box"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            '[[providers]]\nkind = "nonsense"\n',
            r"line 2: providers\[0\]\.kind 'nonsense' is not one of: openai, .*ollama",
        ),
        ('[[providers]]\nid = "a:b"\nkind = "ollama"\n', r"id 'a:b' must be"),
        (
            '[[providers]]\nkind = "ollama"\n[[providers]]\nkind = "ollama"\n',
            r"line 3: providers\[1\]\.id 'ollama' is an earlier provider's id too; ids must differ",
        ),
        ('[[providers]]\nkind = "ollama"\nenabled = "yes"\n', "enabled must be true or false"),
        ('[[providers]]\nkind = "ollama"\nbase_url = "ftp://x"\n', "must start with http"),
        ("discover_local = 1\n", "discover_local must be true or false"),
        ("system_prompt = 3\n", "system_prompt must be text in quotes"),
        ('providers = "ollama"\n', r"providers must be \[\[providers\]\] tables"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, body: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        loaded(tmp_path, body)


def test_a_provider_s_own_limits_are_read_in_seconds(tmp_path: Path) -> None:
    slow, plain, far = loaded(
        tmp_path,
        "discover_local = false\n"
        '[[providers]]\nid = "slow"\nkind = "ollama"\nbase_url = "http://127.0.0.1:9"\n'
        "idle_seconds = 900\nturn_seconds = 5400.5\n"
        '[[providers]]\nid = "plain"\nkind = "ollama"\nbase_url = "http://127.0.0.1:8"\n'
        '[[providers]]\nid = "far"\nkind = "custom"\nbase_url = "http://127.0.0.1:7/v1"\n'
        "turn_seconds = 99999999999\n",
    ).providers
    assert (slow.idle_seconds, slow.turn_seconds) == (900.0, 5400.5)
    assert (plain.idle_seconds, plain.turn_seconds) == (None, None)  # Sightline's own
    assert far.turn_seconds == 7 * 24 * 3600  # a week at most


@pytest.mark.parametrize("value", ["0", "-5", "nan", '"600"', "true", "[600]"])
@pytest.mark.parametrize("key", ["idle_seconds", "turn_seconds"])
def test_a_limit_that_is_no_number_of_seconds_says_so(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        loaded(tmp_path, f'[[providers]]\nkind = "ollama"\n{key} = {value}\n')
    assert str(raised.value).endswith(
        f", line 3: providers[0].{key} must be a number of seconds above 0, like {key} = 600"
    )


def test_discovery_adds_local_ollama_unless_configured(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[[providers]]\nid = "remote"\nkind = "ollama"\nbase_url = "http://192.0.2.1:11434"\n'
    )
    env = env_for(tmp_path)
    ids = [p.id for p in effective_providers(load_config(env), env)]
    assert ids == ["remote", "ollama", "lmstudio", "llamacpp"]
    (tmp_path / "config.toml").write_text(
        '[[providers]]\nid = "mine"\nkind = "ollama"\nbase_url = "http://127.0.0.1:11434"\n'
    )
    ids = [p.id for p in effective_providers(load_config(env), env)]
    assert ids == ["mine", "lmstudio", "llamacpp"]  # the same address is not added twice


def test_cloud_presets_fill_in_their_address(tmp_path: Path) -> None:
    anthropic, openrouter = loaded(
        tmp_path,
        'discover_local = false\n[[providers]]\nkind = "anthropic"\n'
        '[[providers]]\nid = "or"\nkind = "openrouter"\n',
    ).providers
    assert (anthropic.id, anthropic.base_url) == ("anthropic", "https://api.anthropic.com")
    assert openrouter.base_url == "https://openrouter.ai/api/v1"
    assert not anthropic.is_local and not openrouter.is_local


def test_routing_and_tool_settings(tmp_path: Path) -> None:
    config = loaded(
        tmp_path,
        'auto_may_use_cloud = true\nvision_model = "ollama:llava:7b"\nmcp_config = "mcp.json"\n',
    )
    assert config.auto_may_use_cloud is True
    assert config.vision_model == "ollama:llava:7b"
    assert config.mcp_config == tmp_path / "mcp.json"  # relative to the config file
    with pytest.raises(ConfigError, match="PROVIDER:MODEL"):
        loaded(tmp_path, 'vision_model = "llava"\n')


def test_a_setting_written_under_a_provider_table_says_where_it_belongs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="go above the first \\[\\[providers\\]\\]"):
        loaded(tmp_path, '[[providers]]\nkind = "ollama"\nmcp_config = "mcp.json"\n')
    with pytest.raises(ConfigError, match="line 1: discover_locale is not a setting"):
        loaded(tmp_path, "discover_locale = true\n")


def test_tools_allowed_without_asking(tmp_path: Path) -> None:
    assert loaded(tmp_path, 'always_allow_tools = ["read_file"]\n').always_allow_tools == (
        "read_file",
    )
    with pytest.raises(ConfigError, match="list of tool names"):
        loaded(tmp_path, 'always_allow_tools = "read_file"\n')


def test_an_error_names_the_file_the_line_and_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        loaded(
            tmp_path,
            "# mine\ndiscover_local = false\n\n"
            '[[providers]]\nkind = "ollama"\n\n'
            '[[providers]]\nid = "box"\nkind = "custom"\nbase_url = 3\n',
        )
    assert str(raised.value) == (
        f"{tmp_path / 'config.toml'}, line 10: providers[1].base_url must be a URL in quotes, "
        "not a number"
    )
    assert (raised.value.line, raised.value.key) == (10, ("providers", 1, "base_url"))


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ('system_prompt = "hi"\ncheck_sight = "no"\n', 2),  # a top-level key's own line
        ('[[providers]]\nkind = "ollama"\n\n[[providers]]\nid = "x"\nkind = "nope"\n', 6),
        ('[[providers]]\nkind = "ollama"\n[[providers]]\nkind = "ollama"\n', 3),  # its header
        ('providers = [{ kind = "nope" }]\n', None),  # an inline table: no line of its own
        ('[[providers]]\nkind = "acp"\nid = "a"\n"command" = 3\n', 4),  # a quoted key
    ],
)
def test_the_line_is_the_key_s_own(tmp_path: Path, body: str, line: int | None) -> None:
    with pytest.raises(ConfigError) as raised:
        loaded(tmp_path, body)
    assert raised.value.line == line


def test_a_toml_syntax_error_names_its_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        loaded(tmp_path, 'discover_local = true\n\n[[providers]\nid = "x"\n')
    assert str(raised.value).startswith(
        f"{tmp_path / 'config.toml'}, line 3, column 12: not valid TOML: "
    )


def test_a_file_that_is_not_utf8_says_which_byte(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b'system_prompt = "caf\xe9"\n')
    with pytest.raises(ConfigError) as raised:
        load_config(env_for(tmp_path))
    assert str(raised.value) == (
        f"{tmp_path / 'config.toml'}: is not UTF-8 text (byte 21 can't be read); save it as UTF-8"
    )
