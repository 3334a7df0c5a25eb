"""RemovableHandle: what every ``register_*hook`` returns, as in ``torch.utils.hooks``."""

from __future__ import annotations

import weakref
from typing import Any

from .presentation import present_as_torch


class RemovableHandle:
    """A handle that removes a hook from the dict(s) it was registered in.

    Ids come from one class-global counter, so the order of hooks across all dicts is the
    global insertion order. ``remove()`` is idempotent; the handle holds only weak
    references, and works as a context manager that removes the hook on exit.
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        """Remove the hook; removing twice is harmless."""
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def add_hook(hooks: dict, hook: Any, *, extra_dict: Any = None, prepend: bool = False) -> RemovableHandle:
    """Store ``hook`` in ``hooks`` under a new handle's id (first if ``prepend``: ``hooks`` is
    then an OrderedDict) and return the handle, which also clears ``extra_dict``'s entry."""
    handle = RemovableHandle(hooks, extra_dict=extra_dict)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


present_as_torch({"RemovableHandle": RemovableHandle})  # its default repr names torch.utils.hooks, as PyTorch's
