"""A differential fuzzer: generated programs run on scalargrad and on PyTorch, outcomes compared.

A program is data (``program.Program``: a list of ``Step``s, each one line or block of Python
written against a library bound to the name ``torch``), so the same program runs on both
libraries in-process (``interpreter``), prints as a minimal repro, and can be shrunk
(``shrink``). Generators: ``gen_graphs`` (expression graphs with edge operands and four kinds
of backward; small shaped cases behind ``shapes=True``; smooth graphs for the property tests
behind ``smooth=True``), ``gen_errors`` (error paths), ``gen_modules`` (Module trees and
state_dict loads), ``gen_threads`` (grad mode is thread-local). ``outcome`` encodes what a run
produced; ``compare`` classifies a pair of outcomes as issue 14 defines it, with ``libm`` for
the 1-ulp rule; ``causes`` files each difference under a named cause; ``campaign`` runs a
seeded, bounded batch and ``triage`` writes TRIAGE.md's cause sections; ``mpbackend`` runs a
smooth program in mpmath. ``python -m tests.fuzz`` is the command line.
"""
