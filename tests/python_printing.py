"""Expected outputs whose form is the running Python's, not PyTorch's: an OrderedDict printed
by Python 3.10/3.11 as ``OrderedDict([('a', 1)])`` and from 3.12 on as ``OrderedDict({'a': 1})``.
A test writes the items PyTorch printed and lets the running Python print the container."""

from __future__ import annotations

from collections import OrderedDict


class Shown:
    """A value printed as the given text (PyTorch's repr of a tensor, say)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def printed_ordered_dict(items: list[tuple[object, str]]) -> str:
    """How the running Python prints an OrderedDict of these keys, each value printed as its text."""
    return repr(OrderedDict((key, Shown(text)) for key, text in items))
