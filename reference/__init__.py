"""The reference catalogue, installed as ``scalargrad._reference``: one directory per source
document with its ``examples.json`` and one program per code example (see README.md).
``scalargrad verify`` reads it with ``importlib.resources``, so an installed wheel carries it."""
