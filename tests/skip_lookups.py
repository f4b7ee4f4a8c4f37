"""A ``checks.skip`` list that notes the names the checks look up in it, for the tests that
hold the code's lookups to the check registries."""

from __future__ import annotations

from collections.abc import Iterable


class LookedUp(list[str]):
    """``checks.skip`` as the config gives it (a list of names) that notes every name the code
    asks it about (``name in skip``) in :attr:`asked`."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        super().__init__(names)
        self.asked: set[str] = set()

    def __contains__(self, name: object) -> bool:
        self.asked.add(str(name))
        return super().__contains__(name)
