"""The differential fuzzer against live PyTorch, within a CI budget (issues 14, 22 and 26).

* issue 14's mix (seed 14: graphs, error paths, module trees, threads; the first ``PROGRAMS``
  programs, the same on every machine and setting) holds issue 14's six bars strictly;
* each of issue 22's families runs ``FAMILY_PROGRAMS[family]`` programs of seed 14 and must not
  get worse than ``MEASURED`` (agreement may only rise, defects, raw errors and wrong errors
  only fall, and no cause outside the recorded ones may appear). These figures are not issue
  22's bars: the families find defects another engineer fixes next. When a fix moves a figure,
  record the new one here (the test says which); once the defects are fixed, these checks
  become issue 22's bars (at least 97% of programs agree, the kernel rule included; no defect,
  no raw error; no defect in training runs);
* the judge cannot be fooled (issue 26): with any of eighteen derivatives of scalargrad made 0.1%
  wrong in this process (``tests/fuzz/mutations.py``), the bars fail and no program whose
  outcome the mutation changed is judged to agree.

Every figure is given as a ``FuzzFigures`` warning (pytest's warnings summary), strict and with
the kernel rule, whatever the outcome. The comparison holds under ``ATEN_CPU_CAPABILITY=default``,
``ATEN_CPU_CAPABILITY=avx2`` and ``MKL_CBWR=COMPATIBLE`` too: the kernel rule replaces what those
change (README, "The differential fuzzer").

The long runs: ``python -m tests.fuzz --seed 14 --programs 28000`` and ``python -m tests.fuzz
--kind views --seed 22 --programs 3000`` (tests/fuzz/TRIAGE.md).
"""

from __future__ import annotations

import warnings

import pytest

from tests.fuzz.campaign import FAMILIES, KINDS, Campaign, causes_of, program_for
from tests.fuzz.compare import compare
from tests.fuzz.interpreter import run_program
from tests.fuzz.mutations import MUTATIONS, judge

pytestmark = [pytest.mark.no_sympy_check, pytest.mark.slow]

SEED = 14
PROGRAMS = 1_500  # issue 14's mix: 10 s on the project's 2-core machine when quiet, up to a minute when busy
FAMILY_PROGRAMS = {"views": 150, "indexing": 150, "inplace": 150, "hooks": 150, "functions": 100, "modes": 150,
                   "ops": 150, "training": 16, "newer": 150, "nn": 150}
_RUN: dict = {}


class FuzzFigures(UserWarning):
    """The campaign's figures, reported in pytest's warnings summary."""


def _campaign(torch) -> Campaign:
    if "mix" not in _RUN:
        import scalargrad

        campaign = Campaign(SEED, sg=scalargrad, torch=torch)
        campaign.run(PROGRAMS)
        _RUN["mix"] = campaign
        warnings.warn(FuzzFigures(f"differential fuzzer, seed {SEED}: {campaign.stats.summary()}"), stacklevel=1)
    return _RUN["mix"]


def _family(torch, family: str) -> tuple[Campaign, set]:
    if family not in _RUN:
        import scalargrad

        campaign = Campaign(SEED, family, sg=scalargrad, torch=torch)
        campaign.run(FAMILY_PROGRAMS[family])
        _RUN[family] = campaign, {key for key in campaign.groups}
        warnings.warn(FuzzFigures(f"differential fuzzer, family {family}, seed {SEED}: {campaign.stats.summary()}"
                                  f"\n  causes: {sorted(campaign.groups)}"), stacklevel=1)
    return _RUN[family]


@pytest.mark.quick_sample  # its first kind: the quick run's share of this file
@pytest.mark.parametrize("kind", KINDS + list(FAMILIES))
def test_pytorch_agrees_with_itself(torch_ref, kind):
    # the comparator and the interpreter, with PyTorch on both sides: any divergence is the
    # fuzzer's own (a nondeterministic encoding, a wrong rule), not a library's; a run that ran
    # out of time (a training run on a busy machine) has nothing to compare
    for i in range(80 if kind in KINDS else 4 if kind == "training" else 40):
        p = program_for(SEED, i, kind)
        v = compare(p, run_program(p, torch_ref), run_program(p, torch_ref))
        assert all(d.cls == "timeout" for d in v.divergences), \
            (p.source(), [d.detail for d in v.divergences])


def test_the_campaign_covers_every_kind(torch_ref):
    stats = _campaign(torch_ref).stats
    assert stats.programs == PROGRAMS, stats.summary()
    assert set(stats.by_kind) == set(KINDS)
    assert stats.cases["value"] and stats.cases["error"] and stats.cases["module"]


# issue 14's bars (agreement with the kernel rule); a figure that misses its bar is the assertion's message
THRESHOLDS = {
    "value cases agree >= 99%": lambda st: st.rate("value") >= 0.99,
    "error cases agree >= 97%": lambda st: st.rate("error") >= 0.97,
    "module cases agree >= 99%": lambda st: st.rate("module") >= 0.99,
    "no raw Python errors": lambda st: st.any_class["raw_error"] == 0,
    "no silently wrong gradients": lambda st: st.any_class["silently_wrong_grad"] == 0,
    "no failed load changes state": lambda st: st.any_class["failed_load_changed_state"] == 0,
}


# Under ATen's generic kernels (ATEN_CPU_CAPABILITY=default: no fused multiply-add) the bars
# hold as well: the kernel rule gives PyTorch scalargrad's bits at every kernel whose rounding
# depends on the build, each checked against its machine-independent reference (and the
# conftest has scalargrad round products first there, as ATen's generic code does)
@pytest.mark.parametrize("bar", THRESHOLDS)
def test_issue_14_thresholds(torch_ref, bar):
    stats = _campaign(torch_ref).stats
    assert THRESHOLDS[bar](stats), f"{bar}: not met\n{stats.summary()}"


# ---------------------------------------------------------------- issue 22's families

# Measured at this branch's last commit (seed 14, FAMILY_PROGRAMS programs each; the same under
# ATEN_CPU_CAPABILITY=default, =avx2 and MKL_CBWR=COMPATIBLE): programs that agree in every
# observable (strictly or by the kernel rule), that show a defect, a raw Python error, a wrong
# error; and the causes found (tests/fuzz/causes_shaped.py, TRIAGE.md).
MEASURED: dict = {
    # at branch hooks (issue 22's fuzz defects): the figures had fallen behind main's fixes;
    # measured again, and the hook engine's fixes (pruned edges in post-hooks, typed multi-output
    # gradients, multi-grad hooks, AccumulateGrad's copy under create_graph) leave no defect here
    "views": {"agree": 145, "defect": 0, "raw": 0, "error": 1,
        "causes": [
            'create-graph-nodes',
            'layout-strides',
            'other-messages',
            'reduce-dim-0dim-create-graph',
        ]},
    "indexing": {"agree": 140, "defect": 0, "raw": 0, "error": 3,
        "causes": [
            'index-out-of-bounds-message',
            'index-two-none',
            'layout-strides',
        ]},
    "inplace": {"agree": 146, "defect": 0, "raw": 0, "error": 0,
        "causes": [
            'inplace-overlap',
            'layout-strides',
        ]},
    "hooks": {"agree": 149, "defect": 0, "raw": 0, "error": 0,
        "causes": [
            'create-graph-nodes',
        ]},
    "functions": {"agree": 100, "defect": 0, "raw": 0, "error": 0,
        "causes": [
        ]},
    "modes": {"agree": 149, "defect": 1, "raw": 0, "error": 0,
        "causes": [
            # under ATEN_CPU_CAPABILITY=default only (150 agree elsewhere): the kernel rule's
            # re-run of PyTorch with scalargrad's tanh_backward bits gives -0.0 where both
            # libraries, each run as is, give the same sign (modes:14:74, checked by running the
            # program on both)
            'unclassified: silently_wrong_grad | read_grad | signed zero | ',
        ]},
    "ops": {"agree": 144, "defect": 0, "raw": 0, "error": 0,
        "causes": [
            'alpha-overflow',
            'create-graph-nodes',
            'mask-broadcast',
            'norm-overflow',
        ]},
    "training": {"agree": 16, "defect": 0, "raw": 0, "error": 0,
        "causes": [
        ]},
    # the newer families (tests/fuzz/gen_newer.py: attention, medians, det/inverse/cholesky/cross,
    # out=, seeded sampling, prune/parametrize, the scatter views, block_diag, 3-D convolution and
    # pooling, interpolate); the defect: a double backward through PyTorch's fused CPU attention
    # kernel, which PyTorch refuses and scalargrad (the math path) computes
    "newer": {"agree": 125, "defect": 1, "raw": 0, "error": 0,
        "causes": [
            'create-graph-nodes',
            'layout-strides',
            'next-functions',
            'unclassified: missing_error | double_backward | - | RuntimeError: derivative for '
            'aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented',
            'unsupported',
        ]},
    # the nn names of round 10 (tests/fuzz/gen_nn.py: the normalisations, the newer losses,
    # distances, GLU, fold, the random activations and dropouts, range/diagflat/float_power/put/
    # fill_diagonal_/masked_scatter); the new seed 11027's campaign is in TRIAGE.md. Left: the
    # refused gradients (multi_margin_loss, multilabel_margin_loss, put in a graph, the double
    # backwards of batch_norm/group_norm/glu), create_graph graphs of composite nodes
    "nn": {"agree": 126, "defect": 0, "raw": 0, "error": 0,
        "causes": [
            'create-graph-nodes',
            'diagonal-beyond-2d',
            'layout-strides',
            'unsupported',
        ]},
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_does_not_get_worse(torch_ref, family):
    campaign, causes = _family(torch_ref, family)
    st = campaign.stats
    agree = st.categories["agree"] + st.categories["kernel"]
    # a defect and a raw error are counted together: where scalargrad models ATen's generic
    # kernels (conftest, under ATEN_CPU_CAPABILITY=default) a program can move from one to the other
    now = {"agree": agree, "defect + raw": st.categories["defect"] + st.categories["raw"],
           "error": st.categories["error"]}
    want = MEASURED[family]
    measured = {"agree": want["agree"], "defect + raw": want["defect"] + want["raw"], "error": want["error"]}
    worse = [f"{k}: {now[k]} (measured {measured[k]})" for k in ("defect + raw", "error") if now[k] > measured[k]]
    if agree < measured["agree"]:
        worse.append(f"agree: {agree} (measured {measured['agree']})")
    new = sorted(causes - set(want["causes"]))
    assert not worse and not new, (f"{family}: worse than measured: {worse}; new causes: {new}\n{st.summary()}"
                                   f"\n(a fix that moves a figure: record the new one in MEASURED)")


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_wrong_derivative_fails_the_bars(torch_ref, mutation):
    # issue 26: the judge's rules may not let a wrong gradient through. Each derivative of
    # MUTATIONS made 0.1% wrong, on the programs of its family: every program whose outcome the
    # mutation changes is judged a divergence (none agrees, strictly or by the kernel rule), and
    # some are judged a defect, which fails the bars (issue 14's, or the family's MEASURED)
    import scalargrad

    result = judge(mutation, SEED, 300, sg=scalargrad, torch=torch_ref)
    st = result["stats"]
    warnings.warn(FuzzFigures(f"mutation {mutation} ({result['kind']}): {result['changed']} programs changed, "
                              f"{result['failed']} failed ({result['defects']} a defect), {len(result['accepted'])} "
                              f"accepted\n{st.summary()}"), stacklevel=1)
    assert result["changed"] >= 2, result
    assert result["accepted"] == [], result["accepted"]
    assert result["caught"], result
    if result["kind"] == "graphs":
        assert not all(THRESHOLDS[bar](st) for bar in THRESHOLDS), st.summary()


def test_a_listed_defect_is_filed_under_its_cause(torch_ref):
    # issue 22's first silently wrong value (indexing with two None), as the families meet it:
    # filed under its cause while it differs, agreeing once it is fixed
    import scalargrad
    from tests.fuzz.program import Program, Step

    p = Program("indexing", SEED, -1, [
        Step("torch.tensor([[1., 2., 3., 4.]] * 4, requires_grad=True)", "v0", (), "leaf"),
        Step("v0[None, None, 1:3]", "v1", ("v0",), "getitem")])
    v = compare(p, run_program(p, scalargrad), run_program(p, torch_ref))
    assert v.agrees or {k for k, _, _ in causes_of(p, v)} == {"index-two-none"}, v.divergences


def test_the_softmax_backward_check_refuses_a_slightly_wrong_gradient_of_about_0(torch_ref):
    # softmax(x).sum()'s gradient is 0 in exact arithmetic; the kernel leaves (1 - sum) * y, a
    # rounding residue within the sum's error bound. A derivative 0.1% off stays inside that bound
    # (the mutation "softmax" slipped through it), but is not a value the kernel's last step gives
    # for any sum within the bound: the check refuses it and accepts the kernel's own value
    from tests.fuzz import libm
    from tests.fuzz.kernels import kernel_table

    x = torch_ref.tensor([0.5, 1.5, -2.0, 3.0])
    y = torch_ref.softmax(x, 0)
    g = torch_ref.ones(4)
    kernel, _ = kernel_table()[torch_ref.ops.aten._softmax_backward_data.default]
    args = (g, y, 0, torch_ref.float32)
    f32 = lambda v: libm.round_to(v, "float32")
    s = 0.0
    for v in y.tolist():  # one order of the sum, rounded at each step
        s = f32(s + v)
    assert s != 1.0  # a residue to be off by 0.1%
    for j, yj in enumerate(y.tolist()):
        exact_kernel = f32(yj * f32(1.0 - s))
        assert kernel.check(args, {}, 0, j, exact_kernel, "float32", [4])
        assert exact_kernel != 0
        assert not kernel.check(args, {}, 0, j, f32(exact_kernel * 1.001), "float32", [4])
        assert kernel.accuracy(args, {}, 0, j, f32(exact_kernel * 1.001), "float32", [4])  # inside the bound
