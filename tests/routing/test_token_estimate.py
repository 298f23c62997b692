"""Counting a request's tokens before it goes: a message's count is kept while the message
lives, never given to another, and keeps no message alive."""

from __future__ import annotations

from routing.token_estimate import MESSAGE_OVERHEAD, Estimator, text_tokens
from routing.transcript import Message, TextPart, user_message
from tests.pictures import make_picture


def test_a_count_is_the_messages_own_and_kept_with_it() -> None:
    estimator = Estimator("openai")
    words = user_message("seven words are in this one here")
    assert estimator.message(words) == MESSAGE_OVERHEAD + text_tokens(words.text)
    assert estimator.message(words) == estimator.message(words)  # kept: the same
    seeing = user_message("and a picture", (make_picture("red", (1024, 1024)),))
    assert estimator.message(seeing) > estimator.message(user_message("and a picture"))


def test_a_count_kept_is_never_another_messages() -> None:
    estimator = Estimator("openai")
    estimator.KEPT = 3  # let go of all once three are kept
    counts = {}
    for size in range(1, 40):
        # Each message dropped after counting: its id may name the next one made.
        counts[size] = estimator.message(Message("user", (TextPart("x" * size * 10),)))
    assert counts == {
        size: MESSAGE_OVERHEAD + text_tokens("x" * size * 10) for size in range(1, 40)
    }
    assert len(estimator._counted) <= 3


def test_a_kept_count_keeps_no_message_alive() -> None:
    import gc
    import weakref

    estimator = Estimator("openai")
    message = user_message("words " * 1000)
    estimator.message(message)
    gone = weakref.ref(message)
    del message
    gc.collect()
    assert gone() is None
