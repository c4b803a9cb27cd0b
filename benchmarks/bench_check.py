"""``symgpt check`` on the two source documents, scored against the hand-written claims files.

    python benchmarks/bench_check.py [--seeds DIR] [--show-misses]

For each source document (../shared/seeds/ beside the clone, or --seeds) it
extracts and matches every figure with no claims file, then aligns the
figures with the hand-written claims (derivations/NAME.claims.toml, in
document order, by printed text) and reports:

* recall: hand-written claims whose figure was matched (or judged wrong) as
  the same quantity: the same reference, the same exact value over the same
  names, or the same formula in the parameters (:func:`identical`: ``lr`` is
  ``(W[0,2] - sgd[1].W[0,2]) / grad_W[0,2]`` by SGD's rule, ``grad_z[鱼]`` is
  ``p[鱼] - 1`` by its definition).  A mere equal value is not: ``Q[1,0]`` for
  ``H0[1,0]*W_Q[0,0] + H0[1,1]*W_Q[1,0]``, ``W[0,鱼]`` for ``adamw.weight_decay`` (both 0.1),
  ``0.1*grad_W[0,2]`` for ``lr*grad_W[0,2]``;
* precision: of the aligned figures matched to one quantity, how many are that claim's;
* wrong-figure recall: of the claims verify judges wrong, how many check judged wrong;
* false alarms: figures judged wrong that verify judges correct (or that no claim covers).

Targets (issue 15): recall ≥ 90%, wrong-figure recall ≥ 95%, ≤ 2 false alarms per document.
Exit status 0 when every target holds, 1 otherwise, 2 when the seeds are missing.
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
import time
import weakref
from pathlib import Path

import sympy
from flint import fmpq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import symgpt  # noqa: E402
from symgpt.claims.candidates import Candidate, _same_value  # noqa: E402
from symgpt.claims.claims import judge_all, read_claims  # noqa: E402
from symgpt.claims.extract import extract, read_document  # noqa: E402
from symgpt.claims.match import Matcher  # noqa: E402
from symgpt.claims.refs import bind, parse, unparse  # noqa: E402
from symgpt.training.first_step import rule  # noqa: E402

DOCS = (("000_bb71734f6ca496a6.txt", "tiny-transformer"), ("004_22821fb5315e141e.txt", "bigram"))
TARGETS = {"recall": 0.90, "wrong_recall": 0.95, "false_alarms": 2}


def norm(ref: str) -> str:
    """A reference without spaces and redundant brackets around names."""
    s = ref.replace(" ", "")
    return re.sub(r"\(([\w.]+(?:\[[^\]]*\])?)\)", r"\1", s)


def names(ref: str) -> set:
    return set(re.findall(r"[A-Za-z_][\w.]*(?=\[|\b)", re.sub(r"\[[^\]]*\]", "[]", ref)))


EQUIVALENT = ((re.compile(r"\bsgd\[0\]\."), ""), (re.compile(r"softmax_T\(1,\s*([^)]+)\)"), r"p[\1]"))


def canonical(d, ref: str) -> str:
    """A reference with the spellings of one quantity made one: sgd[0].loss is loss, softmax_T(1, t) is p[t],
    and a node defined as another node (X[0,0] := E[我,0], h_final[0] := LN2[1,0]) is that node."""
    s = norm(ref)
    for rx, by in EQUIVALENT:
        s = rx.sub(by, s)
    try:
        e = d.definition(s)
        if e.is_Symbol:
            return _tokens(d, str(e))
    except Exception:  # noqa: BLE001 - not a single node
        pass
    return _tokens(d, s)


def _tokens(d, ref: str) -> str:
    """Token indices as ids: E[我,0] → E[2,0]."""
    vocab = list(d.spec.vocab)

    def index(m):                     # a number is a position, as the engine reads it
        parts = [str(vocab.index(p)) if p in vocab and not p.isdigit() else p for p in m[1].split(",")]
        return "[" + ",".join(parts) + "]"
    return re.sub(r"\[([^\]]*)\]", index, ref)


def _leaf(d, name: str):
    """A name as SymPy: a first-step state by its update rule (symgpt.training.first_step), else a symbol."""
    step = rule(d, name)
    return step if step is not None else sympy.Symbol(_tokens(d, name))


def formula(d, tree):
    """A parsed reference as SymPy over the quantities' names (token ids), the first step expanded."""
    kind = tree[0]
    if kind == "num":
        return sympy.Rational(tree[1].numerator, tree[1].denominator)
    if kind == "name":
        return _leaf(d, tree[1])
    if kind == "neg":
        return -formula(d, tree[1])
    if kind in ("add", "sub", "mul", "div", "pow"):
        a, b = formula(d, tree[1]), formula(d, tree[2])
        return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "pow": a ** b}[kind]
    return sympy.Symbol(_tokens(d, norm(unparse(tree))))        # a function of its arguments: opaque


def _expanded(d, e, params: set):
    """One level of the graph's definitions put in for every node e reads.  Parameters stay symbols, and
    so does a node defined as a number (grad_E[猫,0] = 0 for a row no input uses, PE[0,0] = sin 0): put in,
    it would make E[猫,0] and sgd[1].E[猫,0], or X[0,0] and H0[0,0], one formula."""
    subs = {}
    for x in e.free_symbols:
        name = str(x)
        if name.partition("[")[0] in params or "." in name or "(" in name:
            continue
        try:
            definition = d.definition(name)
        except Exception:  # noqa: BLE001 - not a graph node (lr, a size): itself
            continue
        if definition.free_symbols:
            subs[x] = definition
    return e.xreplace(subs) if subs else e


FORMULAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # derivation → ref → formula


def _formula(d, ref: str):
    known = FORMULAS.setdefault(d, {})
    if ref not in known:
        known[ref] = formula(d, parse(ref))
    return known[ref]


def identical(d, mine: str, theirs: str, depth: int = 3) -> bool:
    """The same formula in the parameters, after the first step's update rules and up to ``depth`` levels
    of the graph's definitions; not when the formula is a constant (every dead ReLU is 0, and so is a
    gradient that does not reach its row: the same number, not the same quantity).

    >>> d = symgpt.load("bigram")
    >>> identical(d, "lr", "(W[0,2] - sgd[1].W[0,2]) / grad_W[0,2]"), identical(d, "grad_z[鱼]", "p[鱼] - 1")
    (True, True)
    >>> identical(d, "W[0,鱼]", "adamw.weight_decay"), identical(d, "grad_z[吃]", "x[0]")
    (False, False)
    >>> identical(d, "E[猫,0]", "sgd[1].E[猫,0]"), identical(d, "lr", "(E[猫,0] - sgd[1].E[猫,0]) / grad_E[猫,0]")
    (False, False)
    """
    try:
        a, b = _formula(d, mine), _formula(d, theirs)
        for ref in (mine, theirs):             # both are numbers here: (E − sgd[1].E)/grad_E is 0/0 on a dead row
            ball = bind(parse(ref), d).ball(64)
            if not isinstance(ball, fmpq) and not ball.is_finite():
                return False
    except Exception:  # noqa: BLE001 - a reference this spec cannot read, or cannot evaluate (0/0)
        return False
    params = set(d.spec.params)
    ours, theirs_ = [a], [b]                  # each side at 0, 1, … levels of definitions
    for _ in range(depth):
        ours.append(_expanded(d, ours[-1], params))
        theirs_.append(_expanded(d, theirs_[-1], params))
    return any(x.free_symbols and sympy.cancel(sympy.expand(x - y)) == 0 for x in ours for y in theirs_)


def same_quantity(d, mine: str, theirs: str, cache: dict) -> bool:
    if norm(mine) == norm(theirs) or canonical(d, mine) == canonical(d, theirs):
        return True
    if identical(d, mine, theirs):
        return True
    if names(mine) != names(theirs):
        return False
    try:
        a = cache.setdefault(mine, Candidate(mine, "", q=bind(parse(mine), d)))
        b = cache.setdefault(theirs, Candidate(theirs, "", q=bind(parse(theirs), d)))
        return _same_value(a, b)
    except Exception:  # noqa: BLE001 - a reference this spec cannot bind is not the same
        return False


def score(doc: Path, spec: str, show: bool = False) -> dict:
    d = symgpt.load(spec)
    t = time.perf_counter()
    results = Matcher(d).match(extract(read_document(doc)))
    seconds = time.perf_counter() - t
    cf = read_claims(ROOT / "derivations" / f"{spec}.claims.toml")
    verdicts = judge_all(cf, d)
    a = [r.number.text.replace("−", "-").lstrip("+") for r in results]
    b = [c.printed.replace("−", "-").lstrip("+") for c in cf.claims]
    pairs = {}
    for blk in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(blk.size):
            pairs[blk.b + k] = blk.a + k
    cache: dict = {}
    same = matched_aligned = wrong_found = 0
    misses = []
    wrong_claims = [i for i, v in enumerate(verdicts) if not v.ok]
    for j, c in enumerate(cf.claims):
        r = results[pairs[j]] if j in pairs else None
        if r is not None and r.verdict in ("matched", "wrong") and r.ref:
            matched_aligned += r.verdict == "matched"
            if same_quantity(d, r.ref, c.ref, cache):
                same += 1
                continue
        misses.append((c, r))
    for j in wrong_claims:
        r = results[pairs[j]] if j in pairs else None
        wrong_found += r is not None and r.verdict == "wrong"
    hand_wrong_rows = {pairs[j] for j in wrong_claims if j in pairs}
    alarms = [r for i, r in enumerate(results) if r.verdict == "wrong" and i not in hand_wrong_rows]
    precision_hits = sum(1 for j, c in enumerate(cf.claims) if j in pairs and results[pairs[j]].verdict == "matched"
                         and same_quantity(d, results[pairs[j]].ref, c.ref, cache))
    if show:
        for c, r in misses:
            got = f"{r.verdict} {r.ref} {r.candidates[:3]}" if r else "not extracted"
            print(f"  miss {c.printed:>9} {c.ref:<28} {c.where[:40]:<40} → {got}")
        for r in alarms:
            print(f"  alarm line {r.number.line} {r.number.text} {r.ref} {r.cause}")
    return dict(doc=doc.name, spec=spec, figures=len(results), claims=len(cf.claims), aligned=len(pairs),
                recall=same / len(cf.claims), precision=precision_hits / max(1, matched_aligned),
                wrong=len(wrong_claims), wrong_found=wrong_found,
                wrong_recall=wrong_found / max(1, len(wrong_claims)), false_alarms=len(alarms), seconds=seconds,
                verdicts={v: sum(r.verdict == v for r in results) for v in ("matched", "ambiguous", "unmatched",
                                                                           "wrong")})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=Path, default=ROOT.parent / "shared" / "seeds")
    ap.add_argument("--show-misses", action="store_true", help="list every claim not matched and every false alarm")
    args = ap.parse_args()
    if not args.seeds.is_dir():
        print(f"error: --seeds: no directory {args.seeds} (the source documents)", file=sys.stderr)
        return 2
    ok = True
    print(f"{'document':<28} {'spec':<17} {'figures':>7} {'claims':>6} {'recall':>7} {'precision':>9} "
          f"{'wrong found':>11} {'alarms':>6} {'seconds':>7}")
    for name, spec in DOCS:
        s = score(args.seeds / name, spec, args.show_misses)
        print(f"{s['doc']:<28} {s['spec']:<17} {s['figures']:>7} {s['claims']:>6} {s['recall']:>7.1%} "
              f"{s['precision']:>9.1%} {s['wrong_found']:>5}/{s['wrong']:<5} {s['false_alarms']:>6} "
              f"{s['seconds']:>7.1f}   {s['verdicts']}")
        for key, target in TARGETS.items():
            good = s[key] <= target if key == "false_alarms" else s[key] >= target
            ok &= good
            shown = s[key] if key == "false_alarms" else f"{s[key]:.1%}"
            print(f"  [{'PASS' if good else 'FAIL'}] {key} {shown} (target {'≤' if key == 'false_alarms' else '≥'} "
                  f"{target if key == 'false_alarms' else f'{target:.0%}'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
