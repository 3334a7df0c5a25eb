"""The ``scalargrad`` command: ``demo`` (more commands arrive with the reference suite)."""

from __future__ import annotations

import argparse
import sys


def demo() -> int:
    """The documents' first example, z = log(x ** q) at x = 5, q = 3, printed as PyTorch does."""
    import scalargrad as torch

    x = torch.tensor(5.0, requires_grad=True)
    q = torch.tensor(3.0, requires_grad=True)
    z = torch.log(x**q)
    z.backward()
    print("z = log(x ** q) at x = 5, q = 3")
    print("z", z)
    print("x.grad", x.grad)
    print("q.grad", q.grad)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scalargrad", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="compute the documents' z = log(x ** q) and its gradients")
    args = parser.parse_args(argv)
    if args.command in (None, "demo"):
        return demo()
    parser.error(f"unknown command {args.command}")  # pragma: no cover
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
