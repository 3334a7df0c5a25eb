"""``torch.utils``: ``hooks`` and ``data`` (loaded on first use, as ``torch.utils.data`` is
reachable after a bare ``import torch``)."""


def __getattr__(name: str):
    if name in ("data", "hooks"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    if name.startswith("__"):
        raise AttributeError(name)
    from .._base.errors import Unsupported

    raise Unsupported(f"torch.utils.{name}")
