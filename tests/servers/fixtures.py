"""A loopback server as a test's fixture: started before the test, stopped after it (the
servers themselves stay free of pytest: tests/servers/loopback.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from tests.servers.loopback import LoopbackServer

S = TypeVar("S", bound=LoopbackServer)


def served(make: Callable[[], S], name: str) -> Any:
    """A fixture called `name` that gives the server `make` starts, as the server it is
    (its docstring says what it speaks)."""

    def serve() -> Iterator[S]:
        with make() as server:
            yield server

    serve.__doc__ = make.__doc__
    return pytest.fixture(name=name)(serve)
