"""Every provider's words for a refused picture, an overlong chat and a role-order slip."""

from __future__ import annotations

import pytest

from routing.refusals import is_context_too_long, is_role_order_error, refuses_pictures

# (status, the provider's words) for a picture sent to a model that can't see.
REFUSALS = [
    (400, "Invalid content type. image_url is only supported by certain models."),
    (404, "No endpoints found that support image input"),
    (400, "Model does not support images. Please use a model that does."),
    (
        500,
        "image input is not supported - hint: if this is unexpected, you may need to provide "
        "the mmproj",
    ),
    (200, "this model is missing data required for image input"),
    (400, "this model does not support image input"),
    (
        400,
        "Failed to deserialize the JSON body into the target type: messages[1]: unknown variant "
        "`image_url`, expected `text` at line 1 column 62797",
    ),
    (400, "The model does not support content elements of type image."),
]

# Texts that mean a refusal only when the request carried pictures.
WITH_PICTURES = [
    (
        400,
        "'messages.0' : for 'role:user' the following must be satisfied"
        "[('messages.0.content' : value must be a string)]",
    ),
    (400, "message[4].content must be a string"),
    (
        422,
        "Failed to deserialize the JSON body into the target type: messages[1]: data did not "
        "match any variant of untagged enum ChatCompletionRequestContent at line 1 column 18231",
    ),
    (
        422,
        "Failed to deserialize the JSON body into the target type: messages[2]: invalid type: "
        "sequence, expected a string at line 1 column 2901",
    ),
]


@pytest.mark.parametrize(("status", "words"), REFUSALS)
def test_every_refusal_is_recognised(status: int, words: str) -> None:
    """Each provider's own words, whatever the status."""
    assert refuses_pictures(status, words)
    assert refuses_pictures(status, words.upper())  # case never matters


@pytest.mark.parametrize(("status", "words"), WITH_PICTURES)
def test_shape_complaints_are_refusals_only_with_pictures(status: int, words: str) -> None:
    """Groq's and DeepSeek's shape complaints mean refusal only when pictures went along."""
    assert refuses_pictures(status, words, had_pictures=True)
    assert not refuses_pictures(status, words, had_pictures=False)


@pytest.mark.parametrize(
    "words",
    [
        "No endpoints found matching your data policy (Free model publication). Configure: "
        "https://openrouter.ai/settings/privacy",
        "Unexpected role 'user' after role 'tool'",
        "Incorrect API key provided",
        "Rate limit reached for requests",
        "context canceled",
    ],
)
def test_other_errors_are_not_refusals(words: str) -> None:
    """A data-policy 404, a role-order slip or a key problem is not about pictures."""
    assert not refuses_pictures(404, words)


@pytest.mark.parametrize(
    "words",
    [
        "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 204308 tokens. Please reduce the length of the messages.",
        "[context_length_exceeded]",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "the request exceeds the available context size, try increasing it",
        "the request exceeds the available context size. try increasing the context size or "
        "enable context shift [exceed_context_size_error]",
        "Requested tokens (2285) exceed context window of 2048",
        "the input length exceeds the context length",
        "Trying to keep the first 15857 tokens when context the overflows. However, the model "
        "is loaded with context length of only 4096 tokens, which is not enough.",
        "Reached context length of 4096 tokens with model (arch: qwen3vlmoe) that does not "
        "currently support mid-generation context overflow.",
        "Context size has been exceeded.",
        "Error: Input length 6491 exceeds context length 1500",
        "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 "
        "maximum context length",
        "The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).",
        "Your request exceeded model token limit: 8192",
    ],
)
def test_context_too_long(words: str) -> None:
    """OpenAI, Anthropic, llama.cpp, Ollama, LM Studio, Mistral, Gemini and Moonshot wordings."""
    assert is_context_too_long(words)


@pytest.mark.parametrize(
    "words", ["context canceled", "context deadline exceeded", "image input is not supported"]
)
def test_not_context(words: str) -> None:
    """Go's context errors are not a full context window."""
    assert not is_context_too_long(words)


def test_role_order() -> None:
    """Mistral's role-order refusal is a shaping bug of ours."""
    assert is_role_order_error("Unexpected role 'user' after role 'tool'")
    assert is_role_order_error("Unexpected role 'user' after role 'tool' [invalid_request_error]")
    assert is_role_order_error("something [invalid_request_message_order, 3230]")
    assert not is_role_order_error("No endpoints found that support image input")
