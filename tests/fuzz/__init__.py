"""A differential fuzzer: generated programs run on scalargrad and on PyTorch, outcomes compared.

A program is data (``program.Program``: a list of ``Step``s, each one line or block of Python
written against a library bound to the name ``torch``), so the same program runs on both
libraries in-process (``interpreter``), prints as a minimal repro, and can be shrunk
(``shrink``). Generators: ``gen_graphs`` (0-dim expression graphs with edge operands and four
kinds of backward, plus small shaped cases behind ``shapes=True``), ``gen_errors`` (error
paths), ``gen_modules`` (Module trees and state_dict round trips), ``gen_threads`` (grad mode
is thread-local). ``compare`` classifies a pair of outcomes as issue 14 defines it;
``campaign`` runs a seeded, bounded batch; ``python -m tests.fuzz`` is the command line.
"""
