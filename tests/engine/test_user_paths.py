from __future__ import annotations

from pathlib import Path

from agent.core.user_paths import expand_user


def test_a_known_home_expands_and_an_unknown_user_stays_as_typed() -> None:
    assert expand_user("~/x") == Path.home() / "x"
    assert expand_user("~no-such-user-zq/x") == Path("~no-such-user-zq/x")
    assert expand_user(Path("/abs/y")) == Path("/abs/y")
