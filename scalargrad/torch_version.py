"""``torch.torch_version.TorchVersion``: the str that ``torch.__version__`` is.

A program compares PyTorch's version with strings (``torch.__version__ >= "2.0"``) and with
tuples (``torch.__version__ >= (1, 12)``); PyTorch answers with PEP 440's ordering (through the
``packaging`` library) and falls back to plain string comparison for a string that is not a
version. scalargrad depends on the standard library only, so the ordering is computed here
(``_pep440_key``) for the spellings PEP 440 defines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TorchVersion"]

_INF = float("inf")

# PEP 440's version scheme, with the alternative spellings it normalises (alpha, pre, rev, -1...)
_VERSION = re.compile(
    r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""", re.VERBOSE | re.IGNORECASE)

_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


class _InvalidVersion(Exception):
    pass


def _pep440_key(text: str) -> tuple:
    """The sort key PEP 440 gives ``text`` (raises _InvalidVersion when it is not a version)."""
    m = _VERSION.match(text)
    if m is None:
        raise _InvalidVersion(text)
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 2.13 == 2.13.0
        release.pop()
    has_pre = m["pre_l"] is not None
    has_post = m["post_n1"] is not None or m["post_l"] is not None
    has_dev = m["dev_l"] is not None
    if has_pre:
        pre: tuple = (_PRE_RANK[m["pre_l"].lower()], int(m["pre_n"] or 0))
    elif has_dev and not has_post:
        pre = (-_INF,)  # 2.0.dev1 sorts before 2.0a1
    else:
        pre = (_INF,)
    post = (int(m["post_n1"] or m["post_n2"] or 0),) if has_post else (-_INF,)
    dev = (int(m["dev_n"] or 0),) if has_dev else (_INF,)
    if m["local"] is None:
        local: tuple = ()  # sorts before every local label
    else:  # numeric segments sort after alphanumeric ones, each kind in its own order
        local = tuple((int(s), "") if s.isdigit() else (-_INF, s.lower()) for s in re.split(r"[-_.]", m["local"]))
    return int(m["epoch"] or 0), tuple(release), pre, post, dev, local


def _as_key(other: object) -> tuple:
    if isinstance(other, str):
        return _pep440_key(other)
    if isinstance(other, Iterable):  # (2, 13) stands for "2.13"
        return _pep440_key(".".join(str(item) for item in other))
    raise _InvalidVersion(repr(other))


class TorchVersion(str):
    """A version string that compares with strings and tuples by PEP 440's ordering, as
    PyTorch's does: ``TorchVersion("2.13.0+cpu") >= "2.0"`` and ``>= (2, 0)`` are True, and
    ``== "2.13.0"`` is False (the local label ``+cpu`` counts). A string that is not a version
    (``"parrot"``) is compared as a plain string."""

    __slots__ = ()

    def _compare(self, other: object, method: str) -> bool:
        try:
            mine, theirs = _pep440_key(self), _as_key(other)
        except _InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __lt__(self, other: object) -> bool:
        return self._compare(other, "__lt__")

    def __le__(self, other: object) -> bool:
        return self._compare(other, "__le__")

    def __gt__(self, other: object) -> bool:
        return self._compare(other, "__gt__")

    def __ge__(self, other: object) -> bool:
        return self._compare(other, "__ge__")

    def __eq__(self, other: object) -> bool:
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__  # equal versions hash as the strings they are (as PyTorch's does)
