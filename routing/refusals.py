"""Recognise, in each provider's own words, a refused picture or an overlong conversation.

Pure text matching, no I/O: the wires call these on the message a provider sent,
after pulling it out of whatever JSON shape it came in. Sources: docs/providers.md.
"""

from __future__ import annotations

# Texts that only ever mean "this model takes no pictures".
_REFUSALS = (
    "image_url is only supported by certain models",  # OpenAI, 400
    "no endpoints found that support image input",  # OpenRouter, 404
    "model does not support images",  # LM Studio
    "image input is not supported",  # llama.cpp without --mmproj, 500
    "missing data required for image input",  # Ollama, older runners (inside a 200 stream)
    "does not support image input",  # Ollama cloud models, 400
    "unknown variant `image_url`",  # DeepSeek, 400 (serde's words)
    'unknown variant "image_url"',
    "does not support content elements of type image",  # xAI, text-only models
)

# Texts that mean refusal only when the request carried pictures: otherwise they are
# a shaping bug of ours (a list where a string was expected).
_REFUSALS_WITH_PICTURES = (
    "content' : value must be a string",  # Groq: 'messages.N.content' : value must be a string
    "content must be a string",  # Groq, older: message[N].content must be a string
    "did not match any variant of untagged enum chatcompletionrequestcontent",  # DeepSeek, 422
    "invalid type: sequence, expected a string",  # DeepSeek, 422
    "cannot unmarshal array into go struct field",  # Ollama's native API behind a proxy
    "does not support image",
    "does not support vision",
    "images are not supported",
    "image input not supported",
    "not a multimodal model",
)

# Never bare "context": Go's "context canceled" would match it.
_CONTEXT = (
    "context_length_exceeded",  # OpenAI, Groq, OpenRouter error code
    "maximum context length",  # OpenAI, DeepSeek, vLLM, OpenRouter
    "prompt is too long",  # Anthropic
    "exceeds the available context size",  # llama.cpp llama-server
    "exceed_context_size_error",  # llama.cpp error type
    "exceed context window",  # llama-cpp-python: Requested tokens (N) exceed context window
    "exceeds context window",
    "exceeds the context window",
    "exceeds the context length",  # Ollama: the input length exceeds the context length
    "exceeds context length",  # LM Studio: Input length N exceeds context length M
    "context size has been exceeded",  # LM Studio, MLX engine
    "reached context length",  # LM Studio: Reached context length of N tokens
    "when context the overflows",  # LM Studio: Trying to keep the first N tokens when ...
    "too large for model with",  # Mistral: ... too large for model with N maximum context length
    "exceeded model token limit",  # Moonshot
    "reduce the length of the messages",  # OpenAI-style advice, with or without numbers
)
# Gemini's compatibility endpoint: The input token count (N) exceeds the maximum number ...
_CONTEXT_BOTH = (("input token count", "exceeds the maximum number of tokens"),)

_ROLE_ORDER = (
    "unexpected role 'user' after role 'tool'",  # Mistral, code 3230
    "invalid_request_message_order",
)


def _plain(message: str) -> str:
    return " ".join(message.lower().split())


def refuses_pictures(status: int, message: str, had_pictures: bool = True) -> bool:
    """Whether the provider's message says the model takes no pictures.

    `status` may be the HTTP status or 200 for an error inside a stream; the words
    decide, since providers refuse with 400, 404, 422 and 500 alike.
    """
    del status  # the same words arrive under several statuses
    text = _plain(message)
    if "data policy" in text:  # OpenRouter: "No endpoints found matching your data policy"
        return False
    if any(marker in text for marker in _REFUSALS):
        return True
    return had_pictures and any(marker in text for marker in _REFUSALS_WITH_PICTURES)


def is_context_too_long(message: str) -> bool:
    """Whether the provider's message says the conversation no longer fits the model."""
    text = _plain(message)
    if any(marker in text for marker in _CONTEXT):
        return True
    return any(all(part in text for part in both) for both in _CONTEXT_BOTH)


def is_role_order_error(message: str) -> bool:
    """Whether the provider refused the order of roles (Mistral): our shaping bug, not pictures."""
    text = _plain(message)
    return any(marker in text for marker in _ROLE_ORDER)
