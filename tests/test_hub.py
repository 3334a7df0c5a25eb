"""``torch.hub`` and ``torch.utils.model_zoo`` import without a network (issue 23): the cache
directory helpers answer as PyTorch's (compared live), what would download raises Unsupported
naming the download when called, and a program that builds a model zoo's model with
``pretrained=False`` runs."""

from __future__ import annotations

import importlib
import inspect

import pytest

import scalargrad
from scalargrad.errors import Unsupported
from scalargrad.runner import torch_alias

ZOO = """
import torch.utils.model_zoo
from torch.utils import model_zoo
import torch.hub
from torch.hub import load_state_dict_from_url, get_dir
import torch.nn as nn

model_urls = {"tiny": "https://download.example.org/models/tiny-0123abcd.pth"}


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)


def tiny(pretrained=False):
    model = Tiny()
    if pretrained:
        model.load_state_dict(model_zoo.load_url(model_urls["tiny"]))
    return model


torch.manual_seed(0)
out = tiny()(torch.ones(1, 2)).shape
"""
DOWNLOADS = [
    ("torch.hub.load", lambda h: h.load("pytorch/vision", "resnet18", weights=None)),
    ("torch.hub.load", lambda h: h.load("/tmp", "m", source="local")),
    ("torch.hub.list", lambda h: h.list("pytorch/vision")),
    ("torch.hub.help", lambda h: h.help("pytorch/vision", "resnet18")),
    ("torch.hub.download_url_to_file", lambda h: h.download_url_to_file("https://example.org/a", "/tmp/a")),
    ("torch.hub.load_state_dict_from_url", lambda h: h.load_state_dict_from_url("https://example.org/a.pth")),
]


def test_model_zoo_program_runs_with_pretrained_false():
    with torch_alias():
        env: dict = {}
        exec(ZOO, env)  # the test's own program, with torch resolved to scalargrad
        assert tuple(env["out"]) == (1, 1)
        with pytest.raises(Unsupported, match=r"^torch\.hub\.load_state_dict_from_url is not supported.*downloads"):
            env["tiny"](pretrained=True)
        assert env["model_zoo"].load_url is env["load_state_dict_from_url"]


@pytest.mark.parametrize("name, call", DOWNLOADS)
def test_downloads_refused_by_name_when_called(name, call):
    with pytest.raises(Unsupported) as info:
        call(scalargrad.hub)
    assert str(info.value).startswith(f"{name} is not supported") and info.value.reason


def test_public_names_and_signatures_are_pytorchs(torch_ref):
    import scalargrad.utils.model_zoo as ours_zoo

    assert scalargrad.hub.__all__ == torch_ref.hub.__all__
    for name in torch_ref.hub.__all__:
        ours, theirs = inspect.signature(getattr(scalargrad.hub, name)), inspect.signature(getattr(torch_ref.hub, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
               [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
    assert ours_zoo.load_url is scalargrad.hub.load_state_dict_from_url
    assert importlib.import_module("torch.utils.model_zoo").load_url is torch_ref.hub.load_state_dict_from_url


@pytest.mark.parametrize("env", [{}, {"TORCH_HOME": "~/th"}, {"XDG_CACHE_HOME": "/xdg"},
                                 {"TORCH_HOME": "/a", "XDG_CACHE_HOME": "/b"}])
def test_get_dir_and_set_dir_as_pytorchs(torch_ref, monkeypatch, env):
    monkeypatch.delenv("TORCH_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("TORCH_HUB", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(torch_ref.hub, "_hub_dir", None)  # PyTorch's own record of set_dir, restored after
    monkeypatch.setattr(scalargrad.hub._Dir, "hub", None)
    assert scalargrad.hub.get_dir() == torch_ref.hub.get_dir()
    for d in ("~/models", "/tmp/hub"):
        scalargrad.hub.set_dir(d)
        torch_ref.hub.set_dir(d)
        assert scalargrad.hub.get_dir() == torch_ref.hub.get_dir()
    monkeypatch.setenv("TORCH_HUB", "/old")
    with pytest.warns(UserWarning, match="TORCH_HUB is deprecated, please use env TORCH_HOME instead"):
        scalargrad.hub.get_dir()
