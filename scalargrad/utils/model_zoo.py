"""``torch.utils.model_zoo``: PyTorch's alias of the hub's weight download, importable here too;
``load_url`` raises ``Unsupported`` naming the download when it is called (``hub.py``)."""

from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
