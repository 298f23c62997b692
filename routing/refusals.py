"""Every provider's words for the ways it says no: no pictures, too long, wrong order, and more.

Pure text matching, no I/O. Each API shape has one `Words`: the OpenAI-compatible
shape's serve every server that speaks it (their words differ, so all are here),
Ollama's native API and Anthropic's Messages API have their own. A wire's
classifier pulls the provider's message out of its error body and asks here what
it means; matching ignores case and runs of whitespace. Sources: docs/providers.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Words:
    """One API shape's words for each way its providers say no."""

    pictures: tuple[str, ...] = ()  # only ever "this model takes no pictures"
    pictures_if_sent: tuple[str, ...] = ()  # that, only when the request carried pictures
    context: tuple[str, ...] = ()  # the conversation no longer fits the model
    context_pairs: tuple[tuple[str, ...], ...] = ()  # that, said in pieces (all must be there)
    role_order: tuple[str, ...] = ()  # the order of the messages' roles was refused
    no_tools: tuple[str, ...] = ()  # the model can't use tools
    no_model: tuple[str, ...] = ()  # there is no such model
    no_credit: tuple[str, ...] = ()  # out of credit or quota: waiting won't help
    data_policy: tuple[str, ...] = ()  # no endpoint the account's data policy allows
    too_large: tuple[str, ...] = ()  # the request is too large
    no_such_path: tuple[str, ...] = ()  # a wrong API path, whatever the status
    rate_limit: tuple[str, ...] = ()  # too many requests (inside a stream)
    overloaded: tuple[str, ...] = ()  # busy for everyone right now
    # Pictures inside a tool's output refused (not pictures as such): send them the other way.
    tool_pictures: tuple[str, ...] = ()
    unsupported_option: tuple[str, ...] = ()  # an optional field the model refuses (left out)
    # A field of the request this model doesn't take, named: patterns whose one group is
    # the field as the shape spells it (matched on the message in lower case).
    parameter: tuple[str, ...] = ()


OPENAI_WORDS = Words(
    pictures=(
        "image_url is only supported by certain models",  # OpenAI, 400
        "no endpoints found that support image input",  # OpenRouter, 404
        "model does not support images",  # LM Studio
        "image input is not supported",  # llama.cpp without --mmproj, 500
        "missing data required for image input",  # Ollama, older runners (inside a 200 stream)
        "does not support image input",  # Ollama cloud models, 400
        "unknown variant `image_url`",  # DeepSeek, 400 (serde's words)
        'unknown variant "image_url"',
        "does not support content elements of type image",  # xAI, text-only models
    ),
    # Refusals only when the request carried pictures: otherwise a shaping bug of ours
    # (a list where a string was expected).
    pictures_if_sent=(
        "content' : value must be a string",  # Groq: 'messages.N.content' : value must be ...
        "content must be a string",  # Groq, older: message[N].content must be a string
        "did not match any variant of untagged enum chatcompletionrequestcontent",  # DeepSeek
        "invalid type: sequence, expected a string",  # DeepSeek, 422
        "cannot unmarshal array into go struct field",  # Ollama's native API behind a proxy
        "does not support image",
        "does not support vision",
        "images are not supported",
        "image input not supported",
        "not a multimodal model",
    ),
    # Never bare "context": Go's "context canceled" would match it.
    context=(
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
        "too large for model with",  # Mistral: ... too large for model with N maximum context
        "exceeded model token limit",  # Moonshot
        "reduce the length of the messages",  # OpenAI-style advice, with or without numbers
    ),
    # Gemini's compatibility endpoint: The input token count (N) exceeds the maximum number ...
    context_pairs=(("input token count", "exceeds the maximum number of tokens"),),
    role_order=(
        "unexpected role 'user' after role 'tool'",  # Mistral, code 3230
        "invalid_request_message_order",
    ),
    no_tools=("does not support tools", "tool use is not supported"),
    no_model=(
        "model_not_found",
        "model not found",
        "does not exist",
        "no such model",
        "unknown model",
        "invalid model",
        "model not exist",
        "is not found",
        "not a valid model",
    ),
    no_credit=(
        "insufficient_quota",
        "exceeded your current quota",
        "insufficient balance",
        "credit",
    ),
    data_policy=("data policy",),  # OpenRouter: "No endpoints found matching your data policy"
    too_large=("request_too_large",),
    no_such_path=("unexpected endpoint or method",),  # LM Studio's answer to a wrong path
    rate_limit=("rate limit",),
    overloaded=("overloaded",),
    parameter=(
        # OpenAI's reasoning models (code unsupported_parameter, param named too).
        r"unsupported parameter: '([\w.\[\]]+)'",
        # The same models for a value other than the default (code unsupported_value).
        r"unsupported value: '([\w.\[\]]+)' does not support",
        # Anthropic's OpenAI-compatible endpoint (param null): "temperature is deprecated ...".
        r"`?([\w.]+)`? is deprecated for this model",
        # Gemini's compatibility endpoint: Unknown name "temperature": Cannot find field.
        r'unknown name "([\w.]+)"(?: at \'[^\']*\')?: cannot find field',
    ),
)

OLLAMA_WORDS = Words(
    # Older runners, Ollama cloud, llama.cpp passed through.
    pictures=(
        "missing data required for image input",
        "does not support image input",
        "image input is not supported",
    ),
    # Never bare "context": Go's "context canceled" would match it.
    context=(
        "context length",
        "context window",
        "context size",
        "exceeds the context",
        "exceed the context",
        "input length exceeds",
        "prompt is too long",
    ),
    no_tools=("does not support tools",),
    no_model=("not found",),  # with a 404
)

ANTHROPIC_WORDS = Words(
    # invalid_request_error texts that mean one of the pictures was refused.
    pictures=(
        "could not process image",
        "image exceeds",
        "image dimensions exceed",
        "image.source",
        "does not match the provided media type",
        "image does not match",
    ),
    context=("prompt is too long", "input length and `max_tokens` exceed context limit"),
    no_credit=("credit balance",),
    parameter=(
        r"`?([\w.]+)`? is deprecated for this model",  # Claude Opus 4.7 on: `temperature` is ...
        r"^`?([\w.]+)`?: extra inputs are not permitted",  # a field its request type lacks
        r"`?([\w.]+)`? is not supported (?:for|with|by|on) this model",
    ),
)


# The Responses API: OpenAI's words, plus its image error codes (`error.code` of a 400 or
# of `response.failed`; the classifier reads those codes, and the words here too).
IMAGE_ERROR_CODES = (
    "invalid_image",
    "invalid_image_format",
    "invalid_base64_image",
    "invalid_image_url",
    "image_too_large",
    "image_too_small",
    "image_parse_error",
    "image_content_policy_violation",
    "invalid_image_mode",
    "image_file_too_large",
    "unsupported_image_media_type",
    "empty_image_file",
    "failed_to_download_image",
    "image_file_not_found",
)
RESPONSES_WORDS = replace(
    OPENAI_WORDS,
    # Servers whose /v1/responses takes a tool's output as a string only (unverified per
    # server: the words of Go's, pydantic's, zod's and serde's validation errors).
    tool_pictures=(
        "cannot unmarshal array into go struct field",
        "input should be a valid string",
        "expected string, received array",
        "output must be a string",
        "invalid type: sequence, expected a string",
        "function_call_output",
    ),
    # OpenAI, for a model without reasoning: include reasoning.encrypted_content refused.
    unsupported_option=("encrypted content is not supported",),
)

# Gemini's own API: `error.message` of its `{"error": {code, status, message}}` body.
GEMINI_WORDS = Words(
    pictures=(
        "provided image is not valid",
        "unable to process input image",
        "image input modality is not enabled",
        "does not support image input",
    ),
    context=("exceeds the maximum number of tokens",),
    context_pairs=(("input token count", "exceeds the maximum number of tokens"),),
    no_model=("is not found for api version", "is not supported for generatecontent"),
    too_large=("request payload size exceeds the limit",),
    no_credit=("prepayment credits are depleted", "billing account"),
    overloaded=("overloaded",),
    # Models before Gemini 3 take a tool's pictures only as parts after its response.
    tool_pictures=("multimodal function responses are not supported",),
    parameter=(
        # Unknown name "temperature" at 'generation_config': Cannot find field.
        r'unknown name "([\w.]+)"(?: at \'[^\']*\')?: cannot find field',
        r"`?([\w.]+)`? is not supported (?:for|with|by) this model",
        r"`?([\w.]+)`? is deprecated for this model",
    ),
)

# The chat's settings (ChatRequest's fields) by every shape's name for their field, in
# lower case without underscores: Gemini's maxOutputTokens is OpenAI's max_output_tokens.
SETTING_FIELDS = {
    "temperature": "temperature",
    "maxtokens": "max_tokens",
    "maxcompletiontokens": "max_tokens",  # OpenAI's chat completions
    "maxoutputtokens": "max_tokens",  # the Responses API, Gemini
    "numpredict": "max_tokens",  # Ollama
    "numctx": "context_length",  # Ollama
}


def _plain(message: str) -> str:
    return " ".join(message.lower().split())


def says(message: str, markers: Iterable[str]) -> bool:
    """Whether any of `markers` is in the message (case and runs of whitespace aside)."""
    text = _plain(message)
    return any(marker in text for marker in markers)


def refuses_pictures(
    status: int, message: str, had_pictures: bool = True, words: Words = OPENAI_WORDS
) -> bool:
    """Whether the provider's message says the model takes no pictures.

    `status` may be the HTTP status or 200 for an error inside a stream; the words
    decide, since providers refuse with 400, 404, 422 and 500 alike.
    """
    del status  # the same words arrive under several statuses
    if says(message, words.data_policy):  # no endpoint allowed: not about pictures at all
        return False
    if says(message, words.pictures):
        return True
    return had_pictures and says(message, words.pictures_if_sent)


def is_context_too_long(message: str, words: Words = OPENAI_WORDS) -> bool:
    """Whether the provider's message says the conversation no longer fits the model."""
    if says(message, words.context):
        return True
    text = _plain(message)
    return any(all(part in text for part in pair) for pair in words.context_pairs)


def setting_of(field: str) -> str | None:
    """The chat's setting a provider's field is (`generation_config.maxOutputTokens`:
    max_tokens), or None for a field that is no setting of a chat's."""
    last = re.split(r"[.\[\]]+", field.strip("`'\" ").lower().rstrip("]"))[-1]
    return SETTING_FIELDS.get(last.replace("_", ""))


def refused_setting(message: str, words: Words) -> str | None:
    """The chat's setting a refusal says the model doesn't take, or None when it names none."""
    text = _plain(message)
    for pattern in words.parameter:
        found = re.search(pattern, text)
        if found and (setting := setting_of(found.group(1))) is not None:
            return setting
    return None


def is_role_order_error(message: str, words: Words = OPENAI_WORDS) -> bool:
    """Whether the provider refused the order of roles (Mistral): our shaping bug, not pictures."""
    return says(message, words.role_order)
