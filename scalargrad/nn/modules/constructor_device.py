"""The ``device=`` argument of nn's layer constructors (``nn.Linear(3, 5, device="meta")``).

PyTorch's layers pass it to every factory that makes their parameters and buffers
(``factory_kwargs``). scalargrad's run their ``__init__`` inside ``with torch.device(device)``
instead, which sends the factories there in one place (``factories.factory_device``): the CPU,
or the meta device (``_tensor/meta.py``); any other device is PyTorch's refusal
(``use_device``), before anything is made.
"""

from __future__ import annotations

import functools
import inspect

from ..._tensor.factories import device as device_class
from ..._tensor.factories import use_device

__all__ = ["with_device_argument"]


def with_device_argument(init):
    """``init`` (a layer's ``__init__`` that takes ``device``) run on the device it is given;
    ``init`` itself when it takes none."""
    params = list(inspect.signature(init).parameters)
    if "device" not in params:
        return init
    pos = params.index("device")  # self is parameter 0: args[pos - 1] when given positionally

    @functools.wraps(init)
    def run_on_device(self, *args, **kwargs):
        d = args[pos - 1] if len(args) >= pos else kwargs.get("device")
        if d is None:
            return init(self, *args, **kwargs)
        d = d if isinstance(d, device_class) else device_class(d)
        if d.type != "meta":
            use_device(d)  # the CPU, or PyTorch's refusal of a device it lacks
        with d:
            return init(self, *args, **kwargs)

    return run_on_device
