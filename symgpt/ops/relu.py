"""ReLU: ``R = max(Z, 0)`` entrywise, each sign decided rigorously; ReLU(0) = 0 and ReLU'(0) = 0, as PyTorch.

>>> from flint import fmpq
>>> relu_rule().grad_Z(fmpq(5, 7), fmpq(0)), relu_rule().grad_Z(fmpq(5, 7), fmpq(1))
(0, 5/7)
"""
from __future__ import annotations

import numpy as np
import sympy
from flint import arb, fmpq

from ..core.graph import Decided
from ..core.grid import tensor
from ..core.proofs import kept
from ..core.prove import Rule, RuleError, closures, prove_equal, real, stated
from ..core.tensor import add
from .base import Apply, accumulate, size
from .naming import Name

PARAMS: dict = {}
KIND = "relu"
MEANING = "ReLU({x}); ReLU(0) = 0"
"""What its output is, of the input ``x`` (a plan writes it)."""

HULL = arb("0.5 +/- 0.5")
"""ReLU'(x) for a ball x that straddles 0 (at a training state, whose inputs are
balls): [0, 1] holds both branches, so the enclosure stays sound whether x is
exactly 0 (ReLU'(0) = 0) or of either sign; ReLU(x) is then x ∪ 0."""


class ReLU(Decided):
    """max(x, 0); the sign of x is decided rigorously by the evaluator.

    >>> ReLU(sympy.Rational(-1, 2)), ReLU(sympy.Rational(1, 2)), ReLU(0)
    (0, 1/2, 0)
    >>> ReLU.ball(fmpq(-2), -1), ReLU.floats(2.5)
    (0, 2.5)
    """

    @staticmethod
    def branches(x):
        return x, sympy.S.Zero

    @staticmethod
    def ball(x, sign):
        return x.union(0) if sign is None else x if sign > 0 else fmpq(0)

    @staticmethod
    def floats(x: float) -> float:
        return max(x, 0.0)

    def fdiff(self, argindex=1):
        return Step(self.args[0])

    def _latex(self, printer, exp=None):
        s = r"\operatorname{ReLU}\left(%s\right)" % printer._print(self.args[0])
        return s if exp is None else f"{s}^{{{exp}}}"


class Step(Decided):
    """ReLU'(x): 1 for x > 0 and 0 for x ≤ 0 (at 0 the rule PyTorch uses).

    >>> Step(0), Step(sympy.Rational(1, 3)), Step.ball(arb(1) / 3, None) is HULL
    (0, 1, True)
    """

    @staticmethod
    def branches(x):
        return sympy.S.One, sympy.S.Zero

    @staticmethod
    def ball(x, sign):
        return HULL if sign is None else fmpq(1) if sign > 0 else fmpq(0)

    @staticmethod
    def floats(x: float) -> float:
        return 1.0 if x > 0 else 0.0

    def fdiff(self, argindex=1):
        return sympy.S.Zero

    def _latex(self, printer, exp=None):
        return r"\mathbb{1}\left[%s > 0\right]" % printer._print(self.args[0])

STATED = {
    # ReLU, with step = ReLU'(Z) decided (ReLU'(0) = 0)
    "relu.grad_Z": lambda gR, step: gR * step,
}
"""The rule as the documents state it, proven equal to SymPy's derivation (:func:`relu_rule`)."""


def define(g, a: Apply, T: dict):
    """R = ReLU(Z), the sign of each Z decided rigorously  (T, d_ff)."""
    Z = T[a.ins[0]]
    return tensor(g, a.out, (len(Z), len(Z[0])), a.meaning, a.axes,
                  lambda i: ReLU(Z[i[0]][i[1]]), [(Z, lambda z: [z])], lambda i: 1)


def groups(a: Apply, net) -> None:
    net.group(a.out, a.shape, a.meaning, a.axes)


def forward(a: Apply, net) -> None:
    Zn = a.ins[0]

    def run(v, ev):
        Z = v[Zn]
        v[a.out] = [[ReLU.ball(z, ev.steering_sign(f"{Zn}[{t},{k}]", z)) for k, z in enumerate(row)]
                    for t, row in enumerate(Z)]
    net.stage((a.out,), run)


def steering(a: Apply) -> tuple:
    """The groups whose signs choose its branches: its input's."""
    return a.ins


def backward(a: Apply, net) -> None:
    """grad_Z = grad_R · Step(Z), each step decided (:meth:`symgpt.engine.values.TensorEvaluator.steering_sign`)."""
    Zn, gZ = a.ins[0], "grad_" + a.ins[0]
    rule = relu_rule().grad_Z

    def run(v, ev):
        Z = v[Zn]
        step = lambda t, k: Step.ball(Z[t][k], ev.steering_sign(f"{Zn}[{t},{k}]", Z[t][k]))
        G = v["grad_" + a.out]
        accumulate(v, gZ, [[rule(g, step(t, k)) for k, g in enumerate(row)] for t, row in enumerate(G)], add)
    net.stage((gZ,), run)


@kept
def relu_rule() -> Rule:
    """R = ReLU(Z): grad_Z(gR, step) = gR · step, with step = ReLU'(Z) decided and ReLU'(0) = 0.

    >>> r = relu_rule()
    >>> r.name, r.derived["grad_Z"], r.grad_Z(3, 1)
    ('relu', gR*step, 3)
    """
    Z, gR, step = real("Z gR step")
    derived_Z = gR * sympy.diff(ReLU(Z), Z)
    if derived_Z != gR * Step(Z):
        raise RuleError(f"relu: SymPy differentiates ReLU(Z) to {derived_Z / gR}, not Step(Z)")
    for z, want in ((-1, 0), (0, 0), (sympy.Rational(1, 3), 1)):  # Step is ReLU' with ReLU'(0) = 0, as PyTorch
        if Step(z) != want or Step(z) != sympy.Heaviside(z, 0):
            raise RuleError(f"relu: Step({z}) = {Step(z)}, expected {want} (ReLU'(0) = 0)")
    G = {"gR": gR, "step": step}
    grad_Z = derived_Z.xreplace({Step(Z): step})
    prove_equal("relu.grad_Z", grad_Z, stated(STATED, "relu", "grad_Z", G))
    derived = {"grad_Z": grad_Z}
    return Rule(
        name="relu", forward={"R": ReLU(Z)},
        symbols={"Z": "pre-activation", "gR": "grad_R", "step": "Step(Z) = ReLU'(Z) ∈ {0, 1}, decided"},
        derived=derived,
        checked="d ReLU(Z)/dZ = Step(Z) = Heaviside(Z, 0) at −1, 0, 1/3 (ReLU'(0) = 0); grad_Z = gR·step",
        closures=closures(STATED, "relu", derived, G),
    )


def rules() -> list:
    return [relu_rule()]


def cost(a: Apply, shapes: dict) -> tuple:
    """(nodes, operations): one decided maximum per entry."""
    return size(a.shape), size(a.shape)


# ---------------------------------------------------------------- floats: the op in IEEE arithmetic, in PyTorch's order

# ReLU(0) = 0 and its adjoint is 0 there, as torch's ``threshold_backward``; exact in every format.


def relu(ar, z):
    """max(z, 0) entrywise (0 where z ≤ 0 or z is NaN).

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("bfloat16")
    >>> [float(v) for v in relu(ar, ar.cast([-1, 0, 2]))]
    [0.0, 0.0, 2.0]
    """
    return ar.out(np.where(ar.w(z) > 0, ar.w(z), ar.const(0)))


def step_mask(ar, z, g):
    """ReLU's adjoint: g where z > 0, else 0.

    >>> from symgpt.floats.model import Floats
    >>> ar = Floats("float32")
    >>> [float(v) for v in step_mask(ar, ar.cast([-1, 0, 2]), ar.cast([5, 5, 5]))]
    [0.0, 0.0, 5.0]
    """
    return ar.out(np.where(ar.w(z) > 0, ar.w(g), ar.const(0)))


def floats_forward(a: Apply, pipe) -> None:
    """R = ReLU(Z); each entry of Z is an on/off decision (the forensics counts the ones a format flips)."""
    pipe.add(a.out, [a.ins[0]], relu)
    pipe.decide(a.ins[0], "sign", "ReLU")


def floats_backward(a: Apply, pipe) -> None:
    pipe.share(a.ins[0], [a.ins[0], pipe.grad(a.out)], step_mask)


# ---------------------------------------------------------------- names: meanings in both languages, TeX, aliases

NAMES = {"R": Name("ReLU(Z); ReLU(0) = 0", "ReLU(Z)；约定 ReLU(0) = 0", ("t", "k"), aliases=("relu",))}
"""How its output is called (:mod:`symgpt.ops.naming`)."""


# ---------------------------------------------------------------- document: what a derivation shows of it

DOCUMENT = {
    "layout": "activation",
    "word": "act_relu",                        # its name in prose (a word of the language files)
    "symbol": r"\mathrm{ReLU}",                                      # its name in a formula
    "name": "ReLU",                                                   # … and in a picture's plain text
    "decisions": {1: "relu_pos", 0: "relu_zero", -1: "relu_neg"},  # the word for each sign of its input
    "table": "ffn.relu_cap",                                          # caption of one position's decisions
    "rule": "ffn.relu_rule",                                          # how a sign is decided
}
"""How a document shows it (:mod:`symgpt.documents.transformer`): at each position, a table of its inputs,
the branch each sign takes and its outputs; then how the signs are decided."""
