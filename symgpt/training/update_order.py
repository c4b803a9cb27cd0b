"""The update-order pitfall: SGD that updates W before computing E's gradient.

Document 004 warns of a loop that first updates the output weights and then
computes the embedding's gradient with the *new* weights.  In engine terms,
one such step from parameters θ is:

1. the forward pass and the adjoints at θ (as in a correct step);
2. every parameter outside ``E`` takes its SGD update θ' = θ − η·∂L/∂θ;
3. the adjoint nodes are evaluated again over the *old* forward values but
   with the updated parameters (so ``grad_x = W'·(p − y)`` for the bigram:
   old ``p``, new ``W``), and ``E`` takes its update from that gradient.

``sgd_wrong_order[k]`` is the state after k such steps; ``k = 0`` is the
spec's own model.

>>> import symgpt
>>> from symgpt.core.numeric import round_decimals
>>> d = symgpt.load("bigram")
>>> t = WrongOrderTrace(d, steps=2)
>>> round_decimals(t.ball(1, "loss", 128), 4), d.value("sgd[1].loss", decimals=4)
('0.8792', '0.8894')
"""
from __future__ import annotations

from flint import ctx

from ..core.markup import exact_text
from ..core.numeric import Evaluator, certify, prec_for_digits, to_flint
from ..engine.names import Ref, base
from .train import Shown, learnable, max_prec, precision, rounding, step_arg


def _first(d, name: str) -> bool:
    """Parameters updated before E's gradient is taken: everything but E."""
    return base(d.graph.nodes[name].group) != "E"


class WrongOrderTrace(Shown):
    """States of SGD with the wrong update order, at any precision.

    >>> import symgpt
    >>> symgpt.load("bigram").trace("sgd_wrong_order")
    <Trace sgd_wrong_order of bigram: 20 steps (states sgd_wrong_order[0]..sgd_wrong_order[20]), 12 parameters, lr 0.5>
    """  # noqa: E501

    optimizer = "sgd_wrong_order"

    def __init__(self, d, steps: int | None = None):
        self.d = d
        self.steps = d.spec.training.steps if steps is None else steps
        self.names = learnable(d)
        self._by_prec: dict[int, list] = {}

    def _step(self, params: dict, prec: int):
        """(loss, p, new params) of one wrong-order step from ``params``."""
        d, lr = self.d, to_flint(self.d.spec.training.lr)
        ev = Evaluator(d.graph, dict(params))
        old = ev.values(prec)
        loss = old[ev.index("loss")]
        p = [old[ev.index(f"p[{v}]")] for v in range(d.spec.V)]
        new = {n: params[n] - lr * old[ev.index("grad_" + n)] for n in self.names if _first(d, n)}
        mixed = list(old)
        with ctx.workprec(prec):
            for i, name in enumerate(ev.names):
                if name in new:
                    mixed[i] = new[name]
                elif name.startswith("grad_"):
                    mixed[i] = ev.fns[i](mixed)
        for n in self.names:
            if n not in new:
                new[n] = params[n] - lr * mixed[ev.index("grad_" + n)]
        return loss, p, new

    def states(self, prec: int) -> list:
        """[(loss, p, params)] for k = 0..steps at ``prec`` bits (memoised)."""
        if prec not in self._by_prec:
            g = self.d.graph
            params = {n: to_flint(g.nodes[n].value) for n in self.names}
            out = []
            with ctx.workprec(prec):
                for k in range(self.steps + 1):
                    loss, p, new = self._step(params, prec)
                    out.append((loss, p, params))
                    params = new
            self._by_prec[prec] = out
        return self._by_prec[prec]

    def _lr(self) -> str:
        return exact_text(self.d.spec.training.lr)

    def ball(self, k: int, ref, prec: int):
        """``loss``, ``p[v]`` or a parameter of state k (a name or its Ref), enclosed at ``prec`` bits."""
        step_arg(self.optimizer, self.steps, k, ref)
        precision(prec, self.d.limits)
        r = ref if isinstance(ref, Ref) else self.d._registry.state(ref, "sgd_wrong_order")
        loss, p, params = self.states(prec)[k]
        if r.part == "loss":
            return loss
        if r.part == "p":
            return p[r.index[0]]
        return params[r.node]

    def value(self, k: int, ref: str, digits=None, decimals=None) -> str:
        """Certified string of a state's ``loss``, ``p[v]`` or parameter (15 significant digits by default).

        >>> import symgpt
        >>> symgpt.load("bigram").trace("sgd_wrong_order").value(1, "loss", decimals=4)
        '0.8792'
        """
        step_arg(self.optimizer, self.steps, k, ref)
        fmt, n = rounding(digits, decimals, self.d.limits)
        return certify(lambda prec: self.ball(k, ref, prec), fmt, what=f"{self.optimizer}[{k}].{ref}",
                       start=prec_for_digits(n + 10), stop=max_prec(self.d.limits)).value
