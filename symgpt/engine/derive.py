"""Worked symbolic derivations: lists of steps, each checked equal by SymPy.

>>> steps = softmax_ce_steps(3, 2)
>>> [s.rule for s in steps]
['definition', 'log of a quotient', 'differentiate', 'fold p_j', 'one-hot y']
>>> all(s.checked for s in steps)
True
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..core.proofs import kept


@dataclass(frozen=True)
class Step:
    rule: str            # the rule applied to get here
    lhs: str             # LaTeX of the left-hand side
    expr: sympy.Expr     # the right-hand side
    checked: bool        # SymPy proved it equal to the previous step

    @property
    def latex(self) -> str:
        return sympy.latex(self.expr)


def _equal(a, b) -> bool:
    """a = b for every real z: a − b is 0 as a rational function of its exponentials (``cancel``)
    once each log of a positive product or quotient is split (``expand_log`` splits no other),
    or, failing that, by SymPy's ``simplify``.  Both are proofs; the first costs milliseconds.

    >>> z = sympy.symbols("z_0:2", real=True)
    >>> Z = sympy.exp(z[0]) + sympy.exp(z[1])
    >>> _equal(-sympy.log(sympy.exp(z[1]) / Z), -z[1] + sympy.log(Z))
    True
    >>> _equal(sympy.diff(sympy.log(Z), z[0]), sympy.exp(z[0]) / Z), _equal(sympy.log(Z), sympy.log(Z) + 1)
    (True, False)
    """
    return sympy.cancel(sympy.expand_log(a - b)) == 0 or sympy.simplify(a - b) == 0


def softmax_ce_steps(V: int, t: int, j: int | None = None) -> list[Step]:
    """L = −ln softmax(z)_t → ∂L/∂z_j = p_j − y_j, for V logits and target t.

    Each step is proven equal to the one before by SymPy (the differentiation
    step is proven equal to ``diff`` of the definition).  ``j`` picks the
    component (default: a generic j shown with Kronecker δ).  The proofs depend
    on (V, t, j) alone, so they run once per process (the steps are frozen).

    >>> softmax_ce_steps(3, 2)[-1].latex
    'p_{j} - y_{j}'
    """
    return list(_softmax_ce_steps(V, t, j))


@kept
def _softmax_ce_steps(V: int, t: int, j: int | None) -> tuple[Step, ...]:
    z = sympy.symbols(f"z_0:{V}", real=True)
    p = sympy.symbols(f"p_0:{V}", positive=True)
    Z = sympy.Add(*[sympy.exp(x) for x in z])
    L0 = -sympy.log(sympy.exp(z[t]) / Z)
    L1 = -z[t] + sympy.log(Z)
    steps = [Step("definition", r"\mathcal{L}", L0, True),
             Step("log of a quotient", r"\mathcal{L}", L1, _equal(L0, L1))]
    js = range(V) if j is None else [j]
    ok_diff, ok_fold, ok_y = True, True, True
    for jj in js:
        d = sympy.diff(L0, z[jj])
        d_shown = -sympy.KroneckerDelta(jj, t) + sympy.exp(z[jj]) / Z
        ok_diff &= _equal(d, d_shown)
        folded = -sympy.KroneckerDelta(jj, t) + p[jj]
        ok_fold &= _equal(d_shown, folded.xreplace({p[jj]: sympy.exp(z[jj]) / Z}))
        ok_y &= _equal(folded, p[jj] - (1 if jj == t else 0))
    jsym, tsym = sympy.symbols("j t", integer=True)
    zj, pj, yj = sympy.Symbol("z_j", real=True), sympy.Symbol("p_j"), sympy.Symbol("y_j")
    lhs = r"\frac{\partial \mathcal{L}}{\partial z_j}"
    Z_sym = sympy.Symbol(r"\sum_k e^{z_k}")
    steps += [Step("differentiate", lhs, -sympy.KroneckerDelta(jsym, tsym) + sympy.exp(zj) / Z_sym, ok_diff),
              Step("fold p_j", lhs, -sympy.KroneckerDelta(jsym, tsym) + pj, ok_fold),
              Step("one-hot y", lhs, pj - yj, ok_y)]
    return tuple(steps)


def bigram_gradients(d: int, V: int, t: int):
    """∂L/∂W = xᵀ(p − y) and ∂L/∂x = W(p − y) as SymPy matrices over symbols.

    Returns (dW, dx, ok): ``ok`` says both equal SymPy's own derivatives of
    L = −z_t + ln Σ e^{z_k}, z = xW, with p_j unfolded to e^{z_j}/Σ e^{z_k}
    (proved once per process for each (d, V, t); fresh matrices every call).

    >>> dW, dx, ok = bigram_gradients(2, 3, 2)
    >>> dW[0, 2], ok
    (x_0*(p_2 - 1), True)
    """
    dW, dx, ok = _bigram_gradients(d, V, t)
    return dW.copy(), dx.copy(), ok


@kept
def _bigram_gradients(d: int, V: int, t: int):
    x = sympy.Matrix(1, d, sympy.symbols(f"x_0:{d}", real=True))
    W = sympy.Matrix(d, V, lambda i, k: sympy.Symbol(f"W_{i}{k}", real=True))
    p = sympy.Matrix(1, V, sympy.symbols(f"p_0:{V}", positive=True))
    y = sympy.Matrix(1, V, [1 if k == t else 0 for k in range(V)])
    z = x * W
    Z = sympy.Add(*[sympy.exp(z[k]) for k in range(V)])
    L = -z[t] + sympy.log(Z)
    unfold = {p[k]: sympy.exp(z[k]) / Z for k in range(V)}  # p_k by its definition
    dW = x.T * (p - y)                        # (d, V)
    dx = W * (p - y).T                        # (d, 1)
    ok = all(_equal(sympy.diff(L, W[i, k]), dW[i, k].xreplace(unfold)) for i in range(d) for k in range(V))
    ok &= all(_equal(sympy.diff(L, x[i]), dx[i].xreplace(unfold)) for i in range(d))
    return dW, dx.T, ok
