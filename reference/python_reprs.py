"""Python's own printed forms that changed between Python versions, as a newer Python prints
them, for capturing PyTorch's output under that Python where PyTorch is installed only for an
older one (PyTorch 2.13's CPU wheel here: Python 3.11 only).

One change matters to the catalogue: from Python 3.12 on, ``repr(OrderedDict)`` shows a dict,
``OrderedDict({'a': 1})``, where 3.11 showed a list of pairs, ``OrderedDict([('a', 1)])``
(CPython's ``odict_repr``: ``%s()`` when empty, ``...`` for a recursive reference, else the
type's name and the repr of a plain dict built from the keys in order and ``self[key]``).
``install((3, 12))`` replaces ``collections.OrderedDict`` by a subclass that prints so, before
torch is imported, so that every OrderedDict PyTorch builds (``state_dict()``, ``_metadata``,
``nn.Sequential``'s argument) is one; nothing else changes. ``tests/test_python_versions.py``
checks the subclass against the real ``repr`` of Python 3.12 and 3.13.

Each catalogue entry whose output changes holds the output captured this way under
``torch_output_python`` (``reference/README.md``); ``scalargrad verify`` reads the one for the
running Python.
"""

import collections
import reprlib
import sys

# (version, how the change is made while capturing); newest last
CHANGES = ((3, 12),)


class OrderedDict312(collections.OrderedDict):
    """collections.OrderedDict printed as Python 3.12 and 3.13 print it."""

    @reprlib.recursive_repr("...")
    def __repr__(self):
        name = type(self).__name__
        if not self:
            return "%s()" % name
        return "%s(%r)" % (name, {key: self[key] for key in self.keys()})


OrderedDict312.__module__ = "collections"  # pickle and copy find it where the original was
OrderedDict312.__name__ = OrderedDict312.__qualname__ = "OrderedDict"


def install(version):
    """From now on, ``collections.OrderedDict`` prints as Python ``version`` prints it (a no-op
    where the running Python already does)."""
    version = tuple(version)
    if version >= (3, 12) and sys.version_info < (3, 12):
        collections.OrderedDict = OrderedDict312


def label(version):
    """How a capture for ``version`` was made, as the catalogue records it."""
    running = "%d.%d.%d" % sys.version_info[:3]
    if sys.version_info[:2] >= tuple(version):
        return "Python %s" % running
    return ("Python %s with collections.OrderedDict printing as Python %d.%d's "
            "(reference/python_reprs.py)" % ((running,) + tuple(version)))
