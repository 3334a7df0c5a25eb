"""``torch.hub``: importable without a network, as PyTorch's is.

The cache directory helpers (``get_dir``, ``set_dir``) work as PyTorch's do; everything that
would fetch a repository or weights (``load``, ``list``, ``help``, ``load_state_dict_from_url``,
``download_url_to_file``) raises ``Unsupported`` naming that download when it is called, so a
program that imports the hub (or ``torch.utils.model_zoo``) and builds its model with
``pretrained=False`` runs.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ._base.errors import Unsupported
from ._base.missing_api import missing_attribute

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024

_HUBCONF = "it fetches a repository's hubconf.py (from GitHub, or a local directory) and runs it"
_DOWNLOAD = "it downloads a file from the network"


class _Dir:
    """The directory ``set_dir`` chose (None: the default under ``$TORCH_HOME``)."""

    hub: str | None = None


def _torch_home() -> str:
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME,
                                        os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir() -> str:
    """The hub's cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``$TORCH_HOME`` defaults
    to ``$XDG_CACHE_HOME/torch``, ``$XDG_CACHE_HOME`` to ``~/.cache``), as PyTorch's."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _Dir.hub is not None:
        return _Dir.hub
    return os.path.join(_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Set the hub's cache directory (``~`` expanded), as PyTorch's."""
    _Dir.hub = os.path.expanduser(d)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """Refused: it fetches a repository's hubconf.py."""
    raise Unsupported("torch.hub.list", _HUBCONF)


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """Refused: it fetches a repository's hubconf.py."""
    raise Unsupported("torch.hub.help", _HUBCONF)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Refused: it fetches (or, for ``source='local'``, runs) a repository's hubconf.py."""
    raise Unsupported("torch.hub.load", _HUBCONF)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Refused: it downloads ``url``."""
    raise Unsupported("torch.hub.download_url_to_file", _DOWNLOAD)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> dict[str, Any]:
    """Refused: it downloads the weights at ``url`` (or reads the hub's cache of them)."""
    raise Unsupported("torch.hub.load_state_dict_from_url", _DOWNLOAD)


def __getattr__(name: str):
    # a PyTorch name scalargrad lacks is Unsupported in every spelling (missing_api.py)
    return missing_attribute("torch.hub", name)
