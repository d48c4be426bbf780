""" "Did you mean" for a misspelt name or value: the nearest of the accepted ones.

Imports nothing heavy, so that a refusal stays fast.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(word: object, choices: Iterable[object], *, cutoff: float = 0.6) -> str:
    """`` (did you mean 'start'?)`` when a choice is close to ``word``, else ``""``.

    Case, spaces, dashes and underscores do not count against a choice.

    Examples
    --------
    >>> did_you_mean("strat", ["start", "end", "freq"])
    " (did you mean 'start'?)"
    >>> did_you_mean("zzz", ["start"])
    ''
    """
    names = [str(c) for c in choices]

    def key(text: str) -> str:
        return text.lower().replace("_", "").replace("-", "").replace(" ", "")

    keyed = {key(name): name for name in names}
    found = difflib.get_close_matches(key(str(word)), list(keyed), n=1, cutoff=cutoff)
    return f" (did you mean {keyed[found[0]]!r}?)" if found else ""
