"""The ``device=`` argument of nn's layer constructors (``nn.Linear(3, 5, device="meta")``), and
the ``with torch.device`` block around them.

PyTorch's layers pass it to every factory that makes their parameters and buffers
(``factory_kwargs``). scalargrad's run their ``__init__`` inside ``with torch.device(device)``
instead, which sends the factories there in one place (``factories.factory_device``): the CPU,
or the meta device (``_tensor/meta.py``); any other device is PyTorch's refusal
(``use_device``), before anything is made. Outside a layer constructor, scalargrad's own
tensors (an optimizer's state) ignore the block, as PyTorch's optimizers' do.
"""

from __future__ import annotations

import functools
import inspect

from ..._tensor.factories import device as device_class
from ..._tensor.factories import in_layer_constructor, use_device

__all__ = ["with_device_argument"]


def with_device_argument(init):
    """``init`` (a layer's ``__init__``) run as a layer constructor (``in_layer_constructor``: the
    tensors it makes follow a ``with torch.device`` block), on the device it is given if it takes
    ``device``."""
    params = list(inspect.signature(init).parameters)
    pos = params.index("device") if "device" in params else 0  # self is 0: args[pos - 1] if positional

    @functools.wraps(init)
    def run_on_device(self, *args, **kwargs):
        d = None if not pos else args[pos - 1] if len(args) >= pos else kwargs.get("device")
        with in_layer_constructor():
            if d is None:
                return init(self, *args, **kwargs)
            d = d if isinstance(d, device_class) else device_class(d)
            if d.type != "meta":
                use_device(d)  # the CPU, or PyTorch's refusal of a device it lacks
            with d:
                return init(self, *args, **kwargs)

    return run_on_device
