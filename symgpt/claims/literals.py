"""Figures inside a vector or matrix literal and the literal's name: ``dW = [[…], […]]``, a notebook's
``array([…])`` under the code that printed it, ``\\begin{pmatrix} … \\end{pmatrix}``, a matrix drawn
with bracket pieces."""
from __future__ import annotations

import dataclasses
import re

from .equations import OPTIMIZER_STATE, formula_label, last_clause, stacked_fraction
from .marks import superscript_of
from .symbols import Label, function_label, named, parse_label, plain, run_in

ARROW = re.compile(r"(?:→|\\to|->|⟶|\\rightarrow|\\longrightarrow)\s*\$?\s*$")
OPERATOR_AFTER = re.compile(r"\s*\)?\s*(?:[×*/÷^·+\-−@]|\\times|\\cdot)")
MATRIX_BEGIN = re.compile(r"\\begin\{(?:[pbvBV]?matrix|array)\}(?:\{[^{}]*\})?")    # (an array's column spec)
MATRIX_END = re.compile(r"\\end\{(?:[pbvBV]?matrix|array)\}")


def _rows(pick, pos: list) -> list | None:
    """A printed tensor's place as the whole tensor's: its first index through what the print picked
    (``[[0, 1, 6]]``: row 2 is row 6; ``[2:]``: row 0 is row 2); None beyond the pick.

    >>> _rows([0, 1, 6], [2, 3]), _rows(2, [0, 1]), _rows(None, [1]), _rows([0, 6], [2, 0])
    ([6, 3], [2, 1], [1], None)
    """
    if pick is None:
        return pos
    if isinstance(pick, int):
        return [pos[0] + pick, *pos[1:]]
    return [pick[pos[0]], *pos[1:]] if pos[0] < len(pick) else None


class _Frame:
    """An open bracket: a level of a literal (its element count), or a call/index (transparent)."""
    def __init__(self, kind: str, name=None, levels: int = 1, transparent: bool = False):
        self.kind, self.name, self.transparent = kind, name, transparent     # name: a Label or None
        self.counts = [0] * levels
        self.wide = 0          # a matrix environment's widest row (its last column index)
        self.end = None        # where its last entry on the line ends (NumPy sets entries apart by spaces)
        self.rows = False      # whether a row [ … ] closed in it since its last comma
        self.pick = None       # the rows a printed expression picked (W.grad[[0, 1, 6]])
        self.commas = 0        # its entries set apart by commas so far …
        self.row_starts = []   # … and where a semicolon began a row among them ([a, b; c, d], MATLAB's)


CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])*")
SHOWN_AS = re.compile(r"(?:(?:np|numpy|torch)\.(?:round|array2string|around)|round|"
                      r"\w*(?:fmt|format|show|pretty|rnd)\w*)"
                      r"\(\s*(?P<inner>[A-Za-z_][^()]*?(?:\([^()]*\))?)\s*(?:,[^()]*)?\)|"
                      r"(?P<method>[A-Za-z_][^()]*?)(?:\.(?:round|detach|numpy|tolist|cpu)\([^()]*\))+")
"""An expression a print formats without changing which tensor it is: ``fmt(dE[xs])``, ``np.round(W.grad, 4)``,
``W.grad.detach().numpy().round(4)``."""


def _code(cell: list) -> list:
    """A code block's statements, comments off, several on a line split at ``;`` outside quotes, each formatting
    wrapper of a print taken off (:data:`SHOWN_AS`).

    >>> _code(["dW = G / 2  # mean", "print(fmt(dW)); print(np.round(dE[xs], 4))", "print(W.grad.numpy().round(4))"])
    ['dW = G / 2', 'print(dW)', 'print(dE[xs])', 'print(W.grad)']
    >>> _code(["for t in range(3): W = W - 0.1 * g; print(W)"])     # a loop's body: its prints are the loop's
    ['for t in range(3): W = W - 0.1 * g; print(W)']
    """
    out = []
    for line in cell:
        line = re.sub(r"\s+#.*$", "", line.strip())
        if not line or line.startswith("#"):
            continue
        if re.match(r"(?:for|while|if|elif|else|with|def|try|except)\b.*:", line):
            out.append(line)              # (a loop's or a branch's body on its line: its prints are no cell's own)
            continue
        for part in ([line] if re.search(r"[\"']", line) else line.split(";")):
            part = part.strip()
            if (m := re.fullmatch(r"print\((.*)\)", part)) and (shown := SHOWN_AS.fullmatch(m[1].strip())):
                inner = shown["inner"] or shown["method"]
                part = f"print({inner.strip()})" if CODE_NAME.fullmatch(inner.strip()) else part
            if part:
                out.append(part)
    return out


def _output_name(cell: list) -> str:
    """The name of what a code block shows below it: the one thing it prints, else its last line's expression
    (a notebook's result); '' when it prints several things (each print's output has no name of its own).

    >>> _output_name(["loss.backward()", "print(g.weight.grad[:4])  # dW"]), _output_name(["x = f()", "x.grad"])
    ('g.weight.grad[:4]', 'x.grad')
    >>> _output_name(["print(a)", "print(b)"]), _output_name(["print(f'{p:.4f}')"])
    ('', '')
    """
    code = _code(cell)                 # ('opt.state[W]["exp_avg"]   # m': its comment off)
    prints = [m[1].strip() for x in code if (m := re.fullmatch(r"print\((.*)\)", x))]
    if prints:
        return prints[0] if len(prints) == 1 and (CODE_NAME.fullmatch(prints[0]) or PICKED.fullmatch(prints[0])) \
            else ""
    return code[-1] if code and (CODE_NAME.fullmatch(code[-1]) or PICKED.fullmatch(code[-1])) else ""


def _printed_names(cell: list) -> list:
    """The names of what a code block's prints show, in order, when every print is of one expression
    (``print(W_O.grad)``, ``print(W_2.grad[[0, 1, 2, 6]])``): a tensor its output prints (``tensor(``) takes
    the next one.

    >>> _printed_names(["loss.backward()", "print(E.grad[0])", "print(W_2.grad[[0, 1, 2, 6]])"])
    ['E.grad[0]', 'W_2.grad[[0, 1, 2, 6]]']
    >>> _printed_names(["print(a)", "print(f'{p:.4f}')"]), _printed_names(["print(torch.cat([q, k]))", "att[0]"])
    ([], ['', 'att[0]'])
    """
    code = _code(cell)
    prints = [m[1].strip() for x in code if (m := re.fullmatch(r"print\((.*)\)", x))]
    if prints and code and not code[-1].startswith("print(") and (CODE_NAME.fullmatch(code[-1]) or
                                                                   PICKED.fullmatch(code[-1])):
        return [x if CODE_NAME.fullmatch(x) or PICKED.fullmatch(x) else "" for x in prints] + [code[-1]]
        #      (print(torch.cat(…)) then att[0]: a notebook shows the last expression's value after the prints)
    return prints if len(prints) > 1 and all(CODE_NAME.fullmatch(x) or PICKED.fullmatch(x) for x in prints) else []


SAID_PRINT = re.compile(r"""["'](?:\\n)?\s*([^\W\d][\w.']*)\s*[=:]\s*["']\s*,\s*([A-Za-z_][\w.]*(?:\[[^\]]*\])?)""")
"""A string that labels the variable a print shows after it: ``"rms =", rms_f``."""
SAID_FIELD = re.compile(r"\b([^\W\d][\w.']*)\s*=\s*\{([A-Za-z_][\w.]*(?:\[[^\]]*\])?)[:}]")
"""An f-string's field after its label: ``rms = {rms_f}``, ``loss = {loss:.4f}``."""
F_STRING = re.compile(r"""\bf["']""")


def _said_prints(cell: list) -> list:
    """(label, variable) for each print of a code block that labels one variable by a string (``print("rms =",
    rms_f)``, ``print(f"rms = {rms_f}")``), in order: the output line ``rms = […]`` is that variable's.

    >>> _said_prints(['print("rms  =", rms2)', 'print("rms =", rms_f, "\\nh_final =", hf[-1])', 'print(x)'])
    [('rms', 'rms2'), ('rms', 'rms_f'), ('h_final', 'hf[-1]')]
    """
    out = []
    for x in cell:
        for m in SAID_PRINT.finditer(x):
            out.append((m[1], m[2]))
        if F_STRING.search(x):
            out += [(m[1], m[2]) for m in SAID_FIELD.finditer(x)]
    return out


PICKED = re.compile(r"([A-Za-z_]\w*(?:\.\w+)*)(?:\[\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*\]|"
                    r"\[\s*(\d*)\s*:\s*\d*\s*\])?")
"""A printed expression with the rows it picks: ``W.grad[[0, 1, 2, 6]]`` (those rows), ``W.grad[2:5]`` (from 2)."""


TOKEN_ID = re.compile(r"""\w+\.(?:index|get)\(\s*(['"])(.+?)\1\s*\)|\w+\[\s*(['"])(.+?)\3\s*\]|"""
                      r"(?<![\w.])(\d+)(?![\w.])")
"""A token's id in code: ``vocab.index("come")``, ``stoi['cat']``, ``3``."""
ID_LIST = re.compile(r"(?:(?:torch\.(?:tensor|LongTensor)|(?:np|numpy)\.array)\(\s*)?"
                     r"(\[\s*[^\[\]=]+?\s*\])(?:\s*(?:,\s*dtype\s*=\s*[\w.]+\s*)?\))?")
"""A list of token ids in code, bare or as a tensor: ``[0, 2]``, ``torch.tensor([2, 0])``."""


def _token_variables(cell: list, vocab) -> dict:
    """The code variables a cell sets to a token's id: ``entrada, alvo = vocab.index("come"), stoi["peixe"]``
    → {'entrada': 'come', 'alvo': 'peixe'}, so ``E.grad[entrada]`` is come's row.

    >>> code = ['entrada, alvo = vocab.index("come"), vocab.index("peixe")', "ix = 2"]
    >>> _token_variables(code, ["a", "come", "peixe"])
    {'entrada': 'come', 'alvo': 'peixe', 'ix': 'peixe'}

    A list of ids is the rows it picks (``xs, ys = [0, 2], [1, 3]``: ``dE[xs]`` is rows 0 and 2):

    >>> _token_variables(["xs, ys = [0, 2], [1, 3]   # a→b", "idx = torch.tensor([2, 0])"], ["a", "b", "c", "d"])
    {'xs': '[0, 2]', 'ys': '[1, 3]', 'idx': '[2, 0]'}
    """
    out = {}
    for line in cell:
        m = re.fullmatch(r"\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=\s*(.+?)\s*(?:#.*)?", line)
        if not m:
            continue
        lists = ID_LIST.findall(m[2])
        names = [x.strip() for x in m[1].split(",")]
        if lists and len(lists) == len(names) and ID_LIST.sub("", m[2]).strip(" ,()") == "":
            ids = [[t[2] or t[4] or (vocab[int(t[5])] if t[5] and int(t[5]) < len(vocab) else None)
                    for t in TOKEN_ID.finditer(x)] for x in lists]
            out.update({name: f"[{', '.join(str(vocab.index(t)) for t in row)}]" for name, row in zip(names, ids)
                        if row and all(t in vocab for t in row)})
            continue
        names, ids = [x.strip() for x in m[1].split(",")], list(TOKEN_ID.finditer(m[2]))
        if len(ids) != len(names) or TOKEN_ID.sub("", m[2]).strip(" ,()") != "":
            continue
        for name, t in zip(names, ids):
            token = t[2] or t[4] or (vocab[int(t[5])] if t[5] and int(t[5]) < len(vocab) else None)
            if token in vocab:
                out[name] = token
    return out


def _with_tokens(code_name: str, variables: dict) -> str:
    """``E.grad[entrada]`` with the token its variable holds: ``E.grad[come]``.

    >>> _with_tokens("E.grad[entrada]", {"entrada": "come"}), _with_tokens("W[i, j]", {})
    ('E.grad[come]', 'W[i, j]')
    """
    return re.sub(r"\[([^\[\]]*)\]", lambda b: "[" + re.sub(
        r"[A-Za-z_]\w*", lambda w: variables.get(w[0], w[0]), b[1]) + "]", code_name) if variables else code_name


def _tensors_below(lines: list, no: int) -> int:
    """How many tensors the output below a code block's closing fence (line ``no``) prints, up to the next
    fence, or inside the output's own fence right below it (``````text``): a ``tensor(`` each, or a NumPy array
    begun at the line's start (``[[ 0.1 …``; its further rows are indented).

    >>> _tensors_below(["```", "", "```text", "[0.1 0.2]", "[[0.3 0.4]", " [0.5 0.6]]", "```"], 1)
    2
    """
    count, rest = 0, lines[no:]
    gap = next((k for k, x in enumerate(rest) if x.strip()), len(rest))
    if gap < len(rest) and OUTPUT_FENCE.fullmatch(rest[gap].strip()):
        rest = rest[gap + 1:]           # the output in a fence of its own
    for line in rest:
        if line.lstrip().startswith("```"):
            break
        count += len(re.findall(r"(?<![\w.])tensor\(", line)) or bool(re.match(r"(?:array\()?\[", line))
    return count


OUTPUT_FENCE = re.compile(r"```\s*(?:text|output|console|plaintext|txt|out)?")
"""The fence that opens a code block's printed output (``````text``, or bare)."""


def _picked(code_name: str) -> tuple:
    """(the expression without its row pick, the rows an output's rows are, or None): ``W_2.grad[[0, 2, 6]]`` →
    ('W_2.grad', [0, 2, 6]); ``W.grad[2:]`` → ('W.grad', 2) (rows from 2 on).

    >>> _picked("W_2.grad[[0, 1, 2, 6]]"), _picked("W.grad[2:5]"), _picked("W.grad[:4]"), _picked("W[1]")
    (('W_2.grad', [0, 1, 2, 6]), ('W.grad', 2), ('W.grad', 0), ('W[1]', None))
    """
    m = PICKED.fullmatch(code_name or "")
    if not m or m[2] is None and m[3] is None:
        return code_name, None
    return m[1], [int(x) for x in m[2].split(",")] if m[2] is not None else int(m[3] or 0)


NAME_ALONE = re.compile(r"[^\W\d][\w.']*(?:\^\{[^{}]*\})?(?:_\{?\w+\}?)?(?:\^\{[^{}]*\})?")
"""A name with its scripts and nothing else: ``k_1``, ``\\tilde q``, ``W^{(2)}``."""


SLICE_INDEX = re.compile(r"_\{[^{}]*\}|\[[^\[\]]*\]")
"""A subscript or a bracket of indices, in which ``:`` or ``·`` marks a slice (``α_{2,·}``, ``A[2, :]``)."""


def _ellipsis(m) -> str:
    """A subscript's or bracket's slice marks as ``∶`` (a ratio sign), which no clause splits at and no product
    reads."""
    return re.sub(r"(?<=[{\[,])\s*(?::|·|⋅)\s*(?=[,}\]])", "∶", m[0])


def _literal_name(before: str, code_name: str, vocab, heading: str = "", n=None) -> Label | None:
    """The label a literal's own line gives it (``dW = [[``, ``E[1]new = (``), or a notebook cell's.

    >>> from symgpt.claims.symbols import Words
    >>> v = Words([], {"b_1", "b_2"}, {"b_1", "b_2"})
    >>> str(_literal_name("b_1 = (0.1, 0.2) et b_2 = ", "", v)), str(_literal_name("f = r W + b_2 = ", "", v))
    ('b_2', 'f')
    >>> str(_literal_name("q_3 = (0.6, −0.6), k_1 = ", "", v)), str(_literal_name("A = softmax(S) V = ", "", v))
    ('k[1]', 'A')
    >>> str(_literal_name(r"$\\tilde q = (−0,16;\\ 1,22)$ και $\\tilde k = ", "", v))     # Greek 'and'; k̃
    'k̃'
    >>> str(_literal_name("By hand for the last position: o₂ = 0.3·v₀ + 0.7·v₁ = ", "", v))
    'o[2]'
    >>> str(_literal_name("ln_f.γ = (1,05; 0,95) ve ln_f.β = ", "", v)), str(_literal_name("b_1 = np.array(", "X", v))
    ('ln_f.β', 'b_1')
    >>> str(_literal_name(r"$E = \\begin{bmatrix} 0.1 \\end{bmatrix} \\quad (3\\times 2) \\qquad b_1 = ", "", v))
    'b_1'
    >>> str(_literal_name("Ufunguo ni rahisi kwa sababu $h_1 = (0.6, 1.2)$: $k_1 = ", "", v))
    'k[1]'
    >>> str(_literal_name("Head 1: α_{2,·} = ", "", v)), str(_literal_name("A[2, :] = ", "", v))    # a whole row
    ('α[2,None]', 'A[2,None]')
    >>> str(_literal_name("z(1) = ", "", Words(["a", "b"], {"E", "W", "z"}, {"E", "W"})))   # a bigram's, after a step
    'sgd[1].z'
    >>> t = Words([], {"E", "A", "K"}, {"E"})       # a transformer: ^{(2)} is a head or a layer, no step
    >>> str(_literal_name("голова 2: $k^{(2)}_2 = ", "", t))
    'k[2]'
    """
    if (code := re.search(r"([A-Za-z_][\w.]*)\s*=\s*(?:\w+\.)*(?:array|tensor)\(\s*$", before)):
        return named(code[1], vocab, heading)      # W_Q = np.array([[…]]) in the code itself: W_Q
    if re.search(r"(?:array|tensor)\(\s*$", before):
        state = OPTIMIZER_STATE.search(code_name or "")
        if state:                      # opt.state[W]["exp_avg"]: the first moment of W, entry by entry
            return Label("m" if state[2] == "exp_avg" else "v", of=state[1])
        return named(code_name, vocab) if code_name else None
    if not re.search(r"(?:=|≈|:|：|＝|←)\s*$", plain(before)):
        return None
    parts = re.split(r"=|≈|:|←", last_clause(SLICE_INDEX.sub(_ellipsis, plain(before))))
    beside = re.search(r"(?:[(\[][^()\[\]]*\d[^()\[\]]*[)\]]|end\{[pbvBV]?matrix\})\s*"
                       r"(?:[,;，；]|\b(?:and|et|und|y|e|ve|en|i|oraz|и|và|dan|og|"
                       r"och|a)\b|和|与|及|और|[^\W\d_]{2,4}(?=\s))?\s*"       # (and in any language: και, та, és)
                       r"([^\W\d][\w.\u0300-\u036f]*(?:\^\{[^{}]*\})?(?:_\{?\w+\}?)?(?:\^\{[^{}]*\})?"
                       r"(?:\[[^\[\]]{1,16}\])?)\s*$",      # (`E[zit] = …` after `E[kat] = […]` en: E[zit])
                       re.sub(r"(?<![A-Za-z])\\?q?quad(?![A-Za-z])|\\[,;:! ]", " ", parts[-2])) \
        if len(parts) >= 3 else None      # b_1 = (…) et b_2 = (…): the second literal is b_2's (\qquad too)
    if beside:
        return named(beside[1], vocab, heading)
    last = parts[-2].strip().strip("$").strip() if len(parts) >= 3 else ""
    if last and re.search(r"[)\]]\s*\$?\s*$", parts[-3]) and NAME_ALONE.fullmatch(last) and \
            (lab := named(last, vocab, heading)) is not None:
        return lab                     # 'h_1 = (0.6, 1.2): k_1 = (…)': the name after the last literal, k_1
    grad = PROBS_MINUS_Y.fullmatch(parts[-2].replace(" ", "").strip("$")) if len(parts) >= 2 else None
    if grad is not None:               # π − y = (…), ŷ⁽¹⁾ − y⁽¹⁾ = (…): the logits' gradient (of another example's,
        k = int(grad["k"] or "1")      # another example's: example[k − 1]'s)
        return Label("∂L/∂z", state=f"example[{k - 1}]" if k > 1 else "") if k else Label("another example")
    head = parts[0]
    for part in parts[1:-1]:           # 'By hand for the last position: o₂ = 0.33·v₀ + … = (…)': o₂, not position
        layered = any(x.startswith("l1.") for x in getattr(vocab, "names", ()))
        scripts = r"_(?:\{[^{}]*\}|\w)|\^\{\[\d\]\}" if layered else r"[_^](?:\{[^{}]*\}|\w)"   # (f^{[1]}_2: a layer)
        quotient = re.fullmatch(r"\s*∂\s*\S+?\s*/\s*∂\s*\S+\s*", part)     # δ = ∂E/∂h_4 = (…): a gradient's name
        if re.search(r"\d|[+×*/·]", re.sub(scripts, "", part)) and not quotient or \
                not re.fullmatch(r"\s*\S+\s*", part) and not quotient:
            break                      # (its scripts' digits aside: 'голова 2: $s^{(2)}_2 = …' names s^{(2)}_2;
            #                            with layers, a superscript may be a layer's or a head's: no name)
        qualified = part is parts[1] and re.match(r"[^=≈:←]*:", last_clause(plain(before)))
        if qualified and (weight := _norm_weight(head, part)) is not None:
            head = weight              # LN_2: γ = (…): the second norm's γ, gamma2
        elif (re.search(r"\s\S", head.strip()) or qualified) and named(part, vocab, heading) is not None:
            head = part                # (Kopf 1: q = (…): q, the name its qualifier's colon is followed by)
    if getattr(vocab, "stepped", False) and (call := re.fullmatch(r"\s*([^\W\d_]\w*)\((\d)\)\s*", head)):
        head = f"{call[1]}^{{({call[2]})}}"      # a bigram's 'z(1) = [ … ]', 'W(1) = [[ … ]]': after step 1
    lab = named(head, vocab, heading)
    if lab is None and (fn := function_label(head.strip(), vocab)) is not None and fn.fn in ("exp", "log"):
        return fn                      # exp(z) = (0.9015, 1.1077, …): exp of z's entries, in order
    if lab is not None and head is parts[0] and not lab.state and \
            re.match(r"[^=≈:←]*←", last_clause(plain(before))):
        run = run_in(n) if n is not None else "sgd"                      # (n: a figure of the line, its section)
        lab = dataclasses.replace(lab, state=f"{run}[1]")    # e ← e − η·g = (…): after the step
    return formula_label(lab, parts[1:-1], vocab)


def _rectangular(f) -> bool:
    """Whether a literal's rows, as its semicolons set them, are all as long (``[a, b; c, d]``)."""
    starts = [0] + f.row_starts + [f.counts[0] + 1]
    return len({b - a for a, b in zip(starts, starts[1:])}) == 1


def _batch_first(name) -> bool:
    """Whether a printed name's [0] picks a batch's example, not a row: an activation's name (x, att, logits),
    not a parameter's (W[0], E[0])."""
    return not re.fullmatch(r"(?:W|E|b|w)(?:_\w+)?|\w*weight|\w*bias|wte|wpe", name.name)


def _norm_weight(norm: str, weight: str) -> str | None:
    """The parameter a norm's name and its weight's name say together (``LN_2`` and ``γ``: gamma2; ``ln_f`` and
    ``β``: beta_f), or None.

    >>> _norm_weight("LN_{2}", " γ "), _norm_weight("ln_f", "bias"), _norm_weight("LN_{2}", "q")
    ('gamma2', 'beta_f', None)
    """
    m = re.fullmatch(r"\s*(?:LN|ln|LayerNorm|RMSNorm|norm)\s*_?\{?(\d|f)\}?\s*", norm)
    w = weight.strip()
    kind = "gamma" if w in ("γ", "gamma", "g", "weight", "scale", "w") else "beta" if w in ("β", "beta", "b", "bias",
                                                                                         "shift") else None
    if m is None or kind is None:
        return None
    return f"{kind}_f" if m[1] == "f" else f"{kind}{m[1]}"


PROBS_MINUS_Y = re.compile(r"(?:ŷ|p|π|q|probs?|\\hat\{y\}|\\hat\{\\mathbf\{y\}\})(?:\^?\{?\((?P<k>\d)\)\}?)?"
                           r"-(?:y|onehot|\\mathbf\{y\})(?:\^?\{?\(\d\)\}?|\(\w+\))?")
"""A vector named by the softmax's gradient at the logits (``π − y``, ``ŷ⁽¹⁾ − y⁽¹⁾``), of the example k names."""
STACKED_ROW = re.compile(r"\s*(?:(?P<name>[^\W\d][\w.']*(?:_\{[^{}]*\}|_\w+)?)\s*[=:]\s*)?[\[⎡⎢⎣│|]\[?"
                         r"(?P<body>[^\[\]⎡⎤⎢⎥⎣⎦│|=]+)\]?[\]⎤⎥⎦│|]\s*(?P<label>[^\s\d.,+\-−]\S{0,15})?\s*$")
"""A row of a matrix drawn in text, one row per line, named on one of its rows (``k = [ 0.1  -0.5 ]  dog``)."""
PROMPT = re.compile(r"\s*(?:>>>|In\s*\[\d*\]:)\s*(?:print\()?\s*([A-Za-z_][\w.]*(?:\[[^\]]*\])*)\)?\s*$")
"""An interpreter's prompt whose output follows: ``>>> dlogits``, ``In [3]: print(p)``."""
PROMPT_START = re.compile(r"\s*(?:>>>|In\s*\[\d*\]:)")
PROMPT_LAST = re.compile(r"^(\s*(?:>>>|In\s*\[\d*\]:)).*;\s*(?=[A-Za-z_][\w.]*(?:\[[^\]]*\])*\s*$)")
"""A prompt's statements before the expression it shows: ``>>> probs = logits.softmax(-1); probs``."""


def stacked_literals(lines: list, numbers: list, vocab) -> dict:
    """figure index → (name, (row, column)) for a matrix drawn one row per line in brackets, its name written
    before one of its rows (the middle one, as a hand-drawn ``v = [ … ]`` stands), each row the same count of
    figures; row labels after the rows (``dog``) are left to the places.

    >>> from symgpt.claims.extract import extract
    >>> text = "      [ 0.1  0.2 ]  <s>\\n  v = [ 0.3  -0.4 ]  b\\n      [ 0.5  0.6 ]  c"
    >>> sorted((str(lab), pos) for lab, pos in stacked_literals(text.split("\\n"), extract(text), []).values())[:4:3]
    [('v', (0, 0)), ('v', (1, 1))]
    >>> text = "ms = [0.5514 0.0957]\\nh = [ 1.4713  0.2682 -0.0345 ]"      # two vectors, each its own name
    >>> sorted((str(lab), pos) for lab, pos in stacked_literals(text.split("\\n"), extract(text), []).values())[:3]
    [('h', (0,)), ('h', (1,)), ('h', (2,))]
    >>> sorted((str(lab), pos) for lab, pos in stacked_literals(text.split("\\n"), extract(text), []).values())[3:]
    [('ms', (0,)), ('ms', (1,))]
    >>> text = ">>> dlogits\\n[ 0.4628   0.0648  -0.8888 ]"
    >>> sorted((str(lab), pos) for lab, pos in stacked_literals(text.split("\\n"), extract(text), []).values())
    [('dlogits', (0,)), ('dlogits', (1,)), ('dlogits', (2,))]
    """
    at: dict = {}
    for n in numbers:
        if n.kind != "integer" or n.text.lstrip("-−").isdigit():
            at.setdefault(n.line, []).append(n)
    out: dict = {}
    run: list = []
    fence, cell, said = False, [], []         # (a code block's prints that label their variables, for its output)
    for no, line in enumerate([*lines, ""], 1):
        if line.lstrip().startswith("```"):
            said = _said_prints(cell) if fence else said
            fence, cell = not fence, []
        elif fence:
            cell.append(line)
        m = STACKED_ROW.fullmatch(line) if no <= len(lines) else None
        figs = [n for n in at.get(no, []) if m and m.start("body") <= n.col < m.end("body")]
        ok = bool(m and figs and re.fullmatch(r"[\s\d.,+\-−eE]*", m["body"].replace("−", "-")))
        if ok and (not run or len(figs) == len(run[-1][1])):
            run.append((m, figs))
            continue
        names = [r["name"] for r, _ in run if r["name"]]
        var = next((k for k, (a, _) in enumerate(said) if names and a == names[0]), None)
        if var is not None and len(names) == 1:
            names = [said.pop(var)[1]]               # 'rms = […]' printed by print("rms =", rms_f): rms_f's
        first = no - len(run)                        # the run's first line, counted from 1
        prompt = PROMPT.fullmatch(lines[first - 2]) if run and not names and first >= 2 else None
        names += [prompt[1]] if prompt else []
        if run and len(names) == 1 and (len(run) >= 2 or prompt or len(run[0][1]) >= 2 and
                                        not re.search(r",", run[0][0]["body"])) and \
                (head := named(names[0], vocab)) is not None:
            for i, (_, row) in enumerate(run):
                for j, n in enumerate(row):
                    out[n.index] = (head, (i, j) if len(run) > 1 else (j,))
        run = [(m, figs)] if ok else []             # (this line's figures: the next run's first row)
    return out


CONTINUED_SUM = re.compile(r"\s*(?:[+−]|-(?=\s*\d))\s*\d")
"""A line that goes on with the sum the line above began (``+ 0,4791 (…) = (0,5417; −0,3498)`` under
``o_3 = 0,2539 (…) + 0,2671 (…)``): its literal is the name's that began it."""
BRACKET_PIECES = re.compile(r"[\uf8e0-\uf8ff⎛⎜⎝⎞⎟⎠⎡⎢⎣⎤⎥⎦]")
"""The pieces a PDF draws a tall bracket with (the Symbol font's private glyphs, or Unicode's)."""
DEBRIS = re.compile(r"[\s()\[\]{}|.,;_^0-9]*")
"""A line between a PDF matrix's rows that holds no figure: its bracket pieces, a superscript's debris."""
EMPTY_CELL = re.compile(r"[-−]?∞|[—–-]|[-−]?\\infty")


ROW_LABEL = re.compile(r"[^\W\d_](?:[₀-₉]{1,2}|\d{1,2}|_\{?\d{1,2}\}?)")
"""A matrix row's name set at its left (``x1``, ``x₂``, ``h_3``), which pdftotext keeps beside the row's cells."""


def _cells(text: str, col0: int = 0) -> list | None:
    """The cells of a row printed without brackets, as (column, text), or None when it holds a word: figures,
    −∞ and — (masked entries); bracket pieces and a closing full stop dropped."""
    text = re.sub(r"^(\s*)[\[(](?=[-−\d])|(?<=\d)[\])](?=\s*[.,]?\s*$)", lambda m: m[1] + " " if m[1] is not None
                  else " ", BRACKET_PIECES.sub(" ", text))     # [−0,000216 −0,000207]: a row in its own brackets
    cells = [(col0 + m.start(), m[0]) for m in re.finditer(r"\S+", text)]
    while cells and cells[-1][1] in (".", ",", ")", "]"):
        cells.pop()
    while cells and cells[0][1] in ("(", "["):
        cells.pop(0)
    if len(cells) > 2 and ROW_LABEL.fullmatch(cells[0][1]):
        cells.pop(0)                  # x₁  0.3000  0.9000: the row's own name beside the matrix
    ok = all(EMPTY_CELL.fullmatch(t) or re.fullmatch(r"[-−]?\d+(?:[.,]\d+)?[.,]?", t) for _, t in cells)
    return cells if cells and ok else None


SYMBOL_CELLS = re.compile(r"\s*((?:[^\W\d_](?:_?\{?\d{1,2}(?:,\d{1,2})?\}?|\d{2})\s+){2,6})(?:[=≈]\s*)?"
                          r"((?:[-−]?\d+[.,]\d+\s*){2,6})[,.;]?\s*")
"""A row of a matrix of symbols set beside the row of figures it equals (``s21   s22     −0.3573   0.2629``)."""


def symbol_rows(lines: list, numbers: list, vocab) -> dict:
    """figure index → the label of the symbol in the same place of a matrix of symbols printed beside the matrix
    of its figures (a PDF's ``[s11 s12; s21 s22] = [0.37 −0.36; −0.36 0.26]``, read row by row): each figure is
    its symbol's entry, as written.

    >>> from symgpt.claims.extract import extract
    >>> text = "    s11   s12        0.3706    −0.3573\\n    s21   s22        −0.3573   0.2629"
    >>> sorted(str(lab) for lab in symbol_rows(text.split("\\n"), extract(text), []).values())
    ['s[1,1]', 's[1,2]', 's[2,1]', 's[2,2]']
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, []).append(n)
    out: dict = {}
    for no, line in enumerate(lines, 1):
        m = SYMBOL_CELLS.fullmatch(line)
        figs = [n for n in at.get(no, []) if n.kind == "decimal" and n.col >= (m.start(2) if m else 0)]
        symbols = m[1].split() if m else []
        if not m or len(symbols) != len(figs):
            continue
        for sym, n in zip(symbols, figs):
            digits = re.sub(r"[_{}]", "", sym[1:])
            lab = parse_label(f"{sym[0]}_{{{digits[0]},{digits[1:]}}}" if "," not in digits and len(digits) == 2
                              else f"{sym[0]}_{{{digits}}}", vocab)
            if lab is not None and len(lab.index) == 2:
                out[n.index] = lab
    return out


def bare_matrix(lines: list, numbers: list, vocab) -> dict:
    """figure index → (name, (row, column)) for a matrix a PDF lays out as rows of figures with no brackets the
    text keeps, its name on the middle row (``(e_{ij}) =  0,3460   0,3244   −∞  .`` between the rows above and
    below it, bracket pieces on the lines between): each row the same count of cells, masked ones counted.
    Two matrices set side by side (``K = ( … ),  V = ( … ).``) share their rows: each row's cells are split as
    the named row's are, in order.

    >>> from symgpt.claims.extract import extract
    >>> text = "        0.196   −∞\\n\\uf8ec   \\uf8f7\\n  S =  0.346   0.324 .\\n        -0.092   0.010"
    >>> sorted((str(lab), pos) for lab, pos in bare_matrix(text.split("\\n"), extract(text), []).values())
    [('S', (0, 0)), ('S', (1, 0)), ('S', (1, 1)), ('S', (2, 0)), ('S', (2, 1))]
    >>> text = "    0.1   0.2        0.5   0.6\\nK =  0.3   0.4 ,  V^{(1)} =  0.7   0.8 ."
    >>> sorted((str(lab), pos) for lab, pos in bare_matrix(text.split("\\n"), extract(text), []).values())[-3:]
    [('V', (0, 1)), ('V', (1, 0)), ('V', (1, 1))]
    >>> text = "       x1    0.3000 0.9000\\nX = x2  = 1.3415 0.7403  .\\n       x3    0.7039 −0.0161"
    >>> sorted((str(lab), pos) for lab, pos in bare_matrix(text.split("\\n"), extract(text), []).values())[-2:]
    [('X', (2, 0)), ('X', (2, 1))]
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, []).append(n)
    out: dict = {}
    for no, line in enumerate(lines, 1):
        parts = _named_rows(line) if at.get(no) else []
        if not parts or any(len(cells) < 2 for _, cells in parts):
            continue
        counts = [len(cells) for _, cells in parts]
        rows = {no: [c for _, cells in parts for c in cells]} | _rows_around(lines, no, at)
        if len(rows) < 2 or {len(c) for c in rows.values()} != {sum(counts)}:
            continue
        _name_matrices(parts, rows, at, vocab, out)
    for no in at:
        if (vector := _column_vector(lines, no, at, vocab)) is not None:
            out.update({k: v for k, v in vector.items() if k not in out})
    for no, line in enumerate(lines, 1):
        names = _names_only(line) if not at.get(no) else []
        if not names:
            continue            # Q = ⎜ ⎟ ,  K = ⎜ ⎟ ,  V = ⎜ ⎟ .: an even count of rows, the names between two
        rows = _rows_around(lines, no, at, gap=True)
        above, below = sorted(k for k in rows if k < no), sorted(k for k in rows if k > no)
        if len(above) != len(below):       # the name in the middle of an even count: as many rows each side (the
            keep = min(len(above), len(below))     # rows beyond are the matrix above's, set right against it)
            rows = {k: rows[k] for k in (above[len(above) - keep:] if keep else []) + below[:keep]}
        edges = [col for _, col in names[1:]] + [10 ** 6]
        split = {k: [sum(1 for c, _ in cells if lo <= c < hi) for lo, hi in zip([0] + edges[:-1], edges)]
                 for k, cells in rows.items()}
        if len(rows) < 2 or len({tuple(v) for v in split.values()}) != 1 or 0 in next(iter(split.values())):
            continue
        counts = next(iter(split.values()))
        _name_matrices([(before, None) for before, _ in names], rows, at, vocab, out, counts)
    return out


def _column_vector(lines: list, no: int, at: dict, vocab) -> dict | None:
    """figure index → (name, (row,)) for a column vector a PDF lays out one entry a line, its name on the line of
    one entry (``v = ⎢0,3776⎥``) or set as a fraction over the lines around it (``∂J`` ⏎ ``= ⎢0,3776⎥ .`` ⏎
    ``∂u``), bracket pieces between; None unless at least two more lines above or below hold one figure each,
    level with it, and nothing else to the right of the name.

    >>> from symgpt.claims.extract import extract
    >>> text = ("          0,2857\\n        ⎢      ⎥\\n   ∂J   ⎢      ⎥\\n      = ⎢0,3776⎥ .\\n   ∂u   ⎢      ⎥\\n"
    ...        "        ⎣0,1382⎦\\n          0,0724")
    >>> at = {}
    >>> for n in extract(text): at.setdefault(n.line, []).append(n)
    >>> sorted((str(lab), pos) for lab, pos in _column_vector(text.split("\\n"), 4, at, []).values())
    [('∂L/∂u', (0,)), ('∂L/∂u', (1,)), ('∂L/∂u', (2,)), ('∂L/∂u', (3,))]
    >>> text = "a[0]  =  0.0452\\na[1]  =  0.0560\\na[2]  =  -0.0997"       # three equations, each its own name
    >>> at = {}
    >>> for n in extract(text): at.setdefault(n.line, []).append(n)
    >>> _column_vector(text.split("\\n"), 1, at, []) is None
    True
    """
    figs = [n for n in at.get(no, []) if n.kind != "integer"]
    if len(figs) != 1 or len(at[no]) != 1:
        return None
    f = figs[0]
    clean = [BRACKET_PIECES.sub(" ", x) for x in lines]
    own = clean[no - 1]
    if not re.fullmatch(r"[\d.,]*[\s.,;]*", own[f.col + len(f.text):]):
        return None
    said = re.fullmatch(r"\s*(\S(?:.*\S)?)?\s*=\s*", own[:f.col])
    if said is None:
        return None
    name = f"{said[1]} =" if said[1] else stacked_fraction(clean, no, f.col)
    if not name:
        return None
    rows = {no: f}
    left = f.col - 3                       # (the fraction's lines hold its parts to the left: not the vector's)
    for step in (-1, 1):
        k = no + step
        while 1 <= k <= len(lines) and lines[k - 1].strip():
            right = clean[k - 1][left:] if len(clean[k - 1]) > left else ""
            here = at.get(k, [])
            if len(here) == 1 and abs(here[0].col - f.col) <= 4 and \
                    re.fullmatch(r"\s*[-−+]?\d[\d.,]*\s*[.,;]?\s*", right) and "=" not in clean[k - 1][:here[0].col]:
                #   (not a line of its own equation, 'dW_Q[0,3]   =   0.0560' under 'dW_Q[0,0]   =   0.0452')
                rows[k] = here[0]
            elif right.strip() or here:
                break
            k += step
    if len(rows) < 3:
        return None
    head = _literal_name(name, "", vocab)
    if head is None:
        return None
    return {n.index: (head, (i,)) for i, (_, n) in enumerate(sorted(rows.items()))}


def _rows_around(lines: list, no: int, at: dict, gap: bool = False) -> dict:
    """{line: its cells} for the rows of figures above and below line ``no`` up to an empty line, over the
    lines between that hold only a bracket's pieces; with ``gap``, over one empty line right beside ``no`` where a
    row follows it and the other side has rows but this one none (a PDF's text may set a 2 × 2 matrix's name a line
    apart from its first row)."""
    sides = {step: _side(lines, no + step, step, at) for step in (-1, 1)}
    for step in (-1, 1):
        k = no + step           # (one side empty, the other not: a blank line may stand between the name and a row)
        if gap and not sides[step] and sides[-step] and 1 <= k + step <= len(lines) and lines[k - 1] == "" and \
                at.get(k + step) and _cells(lines[k + step - 1]) is not None:
            sides[step] = _side(lines, k + step, step, at)
    return sides[-1] | sides[1]


def _side(lines: list, k: int, step: int, at: dict) -> dict:
    """{line: its cells} for the rows of figures from line ``k`` on, one way (``step``), up to an empty line."""
    rows = {}
    while 1 <= k <= len(lines) and lines[k - 1] != "":
        cells = _cells(lines[k - 1])
        if cells is not None and at.get(k):
            rows[k] = cells
        elif not DEBRIS.fullmatch(BRACKET_PIECES.sub(" ", lines[k - 1])):
            break
        k += step
    return rows


MATRIX_NAME = re.compile(r"((?:∂[\wℒ𝓛]*/∂|∇_?)?[^\W\d_][\w^{}()\u0300-\u036f'′]*)\s*=")
"""A matrix's name before its '=' on a line of names alone: ``Q``, ``W̄_{V}`` (a bar), ``∂L/∂W_{V}``."""


def _names_only(line: str) -> list:
    """A line that names matrices set side by side and holds none of their cells (``Q = ⎜ ⎟ ,  K = ⎜ ⎟ .``, the
    middle of an even count of rows): [(the text up to each name's '=', the column of its name)], else [].

    >>> [(b.split()[-2], c) for b, c in _names_only(" Q = \uf8ec   \uf8f7 ,    K = \uf8ec   \uf8f7 .")]
    [('Q', 1), ('K', 16)]
    >>> _names_only("so Q = the queries")
    []
    """
    plainer = BRACKET_PIECES.sub(" ", line)
    marks = list(re.finditer(MATRIX_NAME, plainer))
    if not marks or not DEBRIS.fullmatch(re.sub(MATRIX_NAME, " ", plainer)):
        return []
    out, start = [], 0
    for m in marks:
        out.append((plainer[start:m.end()], m.start()))
        start = m.end()
    return out


def _name_matrices(parts: list, rows: dict, at: dict, vocab, out: dict, counts: list | None = None) -> None:
    """Each matrix's figures, named by its part of the named row: row i of the block, column j of its cells."""
    counts = counts or [len(cells) for _, cells in parts]
    for m, (before, _) in enumerate(parts):
        before = re.sub(r"(?<![^\s,;])\(([^()]*)\)\s*=$", r"\1 =", before.rstrip())   # (e_{ij}) = …: e's
        before = re.sub(r"_\{?[a-z]{1,2}\}?(?=\s*=$)", "", before)            # (its running indices off)
        before = re.sub(rf"(=\s*){ROW_LABEL.pattern}\s*=$", r"\1", before.rstrip())   # X = x₂ = …: X's row 2
        head = _literal_name(before, "", vocab)
        if head is None:
            continue
        if (sup := superscript_of(plain(before))):
            head = dataclasses.replace(head, sup=sup)
        lo = sum(counts[:m])
        for i, k in enumerate(sorted(rows)):
            for n in at[k]:
                j = next((j for j, (c, t) in enumerate(rows[k]) if c <= n.col < c + len(t)), None)
                if j is not None and lo <= j < lo + counts[m] and n.kind in ("decimal", "integer", "percent"):
                    out[n.index] = (head, (i, j - lo))


NEXT_NAME = re.compile(r"\s*[)\]]?\s*[,;.]?\s*[^\s=]{1,24}(?:\s+[^\s=]{1,24})?\s*")
"""What stands between one matrix's last cell and the next one's '=': a closing mark and a short name."""


def _named_rows(line: str) -> list:
    """A matrix's named row as (the text before its cells, ending in '=', its cells) for each matrix set on the
    line (``K = ( 0.1  0.2 ),  V = ( 0.3  0.4 ).``: two); [] when a '=' is followed by anything but cells and a
    closing mark before the next name.

    >>> [len(cells) for _, cells in _named_rows("K = ( 0.1  0.2 ),  V^{(1)} = ( 0.3  0.4 ).")]
    [2, 2]
    >>> _named_rows("K = 0.3 0.4 and then some words = 0.1 0.2"), len(_named_rows("S =  ( 0.346   0.324 )"))
    ([], 1)
    """
    out, start = [], 0
    eqs = [m.end() for m in re.finditer("=", line)]
    for a, b in zip(eqs, [*eqs[1:], len(line) + 1]):
        seg = line[a:b - 1] if b <= len(line) else line[a:]
        tokens = list(re.finditer(r"\S+", BRACKET_PIECES.sub(" ", seg)))
        first = 1 if tokens and tokens[0][0] in ("(", "[") else 0      # S = ( 0.346  0.324 ): its brackets
        k = first
        while k < len(tokens) and _cells(tokens[k][0]) is not None:
            k += 1
        if k == first:
            continue                   # 'S = QKᵀ/√d = …': a name's formula, no cells yet
        cells = [(a + t.start(), t[0]) for t in tokens[first:k]]
        rest = seg[tokens[k].start():] if k < len(tokens) else ""
        if b <= len(line) and not NEXT_NAME.fullmatch(rest):
            return []                  # (between two matrices: a closing mark and the next one's name only)
        if b > len(line) and not re.fullmatch(r"[\s.,;)\]]*", BRACKET_PIECES.sub(" ", rest)):
            return []
        out.append((line[start:a], cells))
        start = a + (tokens[k - 1].end() if k else 0)
    return out


def literals(lines: list, numbers: list, vocab) -> dict:
    """figure index → (the literal's name, the figure's position in it) for figures inside a vector or
    matrix literal: ``[a, b]``, ``[[a, b], [c, d]]`` over several lines, ``array([…])`` (named by the
    expression its notebook cell ends with), ``\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}``.

    >>> from symgpt.claims.extract import extract
    >>> text = "```\\ndW\\n```\\n```\\narray([[ 0.1,  0.2],\\n       [ 0.3, -0.4]])\\n```"
    >>> sorted((str(lab), pos) for lab, pos in literals(text.split("\\n"), extract(text), []).values())
    [('dW', (0, 0)), ('dW', (0, 1)), ('dW', (1, 0)), ('dW', (1, 1))]
    """
    at: dict = {}
    for n in numbers:
        at.setdefault(n.line, {})[n.col] = n
    seen: dict = {}            # figure index → (root frame, [(frame, count at the figure)])
    stack: list = []
    code_name, fence, cell = "", False, []
    queue: list = []           # the names of a cell's several prints, for its output's tensors in order
    said: list = []            # (label, variable) of a cell's prints that label their variable: print("rms =", rms_f)
    variables: dict = {}       # code variables that hold a token's id (entrada = vocab.index("come"))
    pick = None                # the rows the named output shows (W.grad[[0, 1, 6]]: its rows 0, 1, 6)
    suspended = None           # a literal still open when another is written beside it on its line
    for no, line in enumerate(lines, 1):
        line = LATEX_SPACE.sub(lambda m: " " * len(m[0]), line)    # (1{,}4411\,;\ -0{,}0961): two entries
        if line.lstrip().startswith("```"):
            if fence:
                variables.update(_token_variables(cell, vocab))
                code_name, queue = _output_name(cell), _printed_names(cell)
                said = _said_prints(cell)
                code_name, queue = _with_tokens(code_name, variables), [_with_tokens(x, variables) for x in queue]
                code_name, pick = _picked(code_name)
                if len(queue) != _tensors_below(lines, no):
                    queue = []                 # a print that shows no tensor (print(step)): no name is sure
            cell, fence, stack = [], not fence, []
            continue
        prompt = PROMPT.fullmatch(PROMPT_LAST.sub(r"\1", line)) if not fence or not stack else None
        if prompt:                     # '>>> model.wpe.weight.grad': the value below is that expression's,
            code_name, pick = _picked(prompt[1])      # in a transcript's own fence too (not the next print's:
            queue = []                                # a cell's last expression, shown after its prints)
        elif fence and not stack and PROMPT_START.match(line):
            code_name, pick = "", None                # '>>> loss.backward()': what follows is no one's
        if fence and not stack:
            cell.append(line)
        if not line.strip():
            if not (stack and no < len(lines) and re.match(r"\s+\[\[", lines[no])):
                stack, suspended = [], None     # (not inside a 3-D tensor's print: its blocks an empty line apart)
            continue
        figs, i, named_root = at.get(no, {}), 0, None
        first = next(iter(figs.values())) if figs else None
        heading = first.heading if figs else ""
        while i < len(line):
            if i in figs:
                n = figs[i]
                levels = [f for f in stack if not f.transparent]
                top = stack[-1] if stack and stack[-1].kind in "[(" and not stack[-1].transparent else None
                if top is not None and top.end is not None and not line[top.end:i].strip():
                    top.counts[0] += 1           # [ -0.16  0.24  0.37 ]: entries set apart by spaces alone
                if top is not None:
                    top.end = i + len(n.text)
                if levels and not stack[-1].transparent:
                    seen[n.index] = (levels[0], [(f, tuple(f.counts)) for f in levels])
                i += max(1, len(n.text))
                continue
            m = MATRIX_BEGIN.match(line, i)
            if m:
                root = not any(not f.transparent for f in stack)
                before = line[:i]
                if not before.strip() and no > 1 and re.search(r"[=≈]\s*$", plain(lines[no - 2])):
                    before = lines[no - 2]       # \frac{∂ℒ}{∂ℓ} = ⏎ \begin{bmatrix}: the name ends the line above
                name = _literal_name(before, code_name, vocab, heading, first) if root else None
                if name is not None and (sup := superscript_of(plain(before))):
                    name = dataclasses.replace(name, sup=sup)      # S^{(1)} = ⏎ \begin{bmatrix}: head 1's
                stack.append(_Frame("M", name, 2))
                i = m.end()
                continue
            m = MATRIX_END.match(line, i)
            if m and stack and stack[-1].kind == "M":
                stack.pop()
                i = m.end()
                continue
            ch = line[i]
            if ch in "[()]" and (line[i - 1:i] == "\\" and line[i - 2:i] != "\\\\" or
                                 re.search(r"\\(?:left|right|big|Big|bigg|Bigg)$", line[:i])):
                i += 1                 # \[ … \] and \( … \): LaTeX's math delimiters, no literal (nor \left[)
                continue
            if ch in "[(":
                call = re.search(r"(?<![\\\w])[A-Za-z_\u4e00-\u9fff][\w.]*$", line[:i])   # not \to [
                if call and call[0].strip() in ("array", "tensor", "np.array", "torch.tensor") and ch == "(":
                    if queue and not fence and not stack:
                        code_name, pick = _picked(queue.pop(0))      # the next print's tensor
                    stack.append(_Frame("(", transparent=True))
                elif call or (ch == "(" and re.search(r"(?:exp|ln|log|sqrt|√)\s*$", line[:i])):
                    stack.append(_Frame(ch, transparent=True))       # exp(…), p(sat), W[0, 1]
                elif ch == "(" and re.search(r"=|[^\W\d_]{3,}", line[i + 1:line.find(")", i) % (len(line) + 1)]):
                    stack.append(_Frame(ch, transparent=True))       # (z = −1.2785, where silu' = 0): prose
                elif ch == "(" and re.search(r"[(,]\s*[A-Za-z_]\w*=$", line[:i]):
                    stack.append(_Frame(ch, transparent=True))       # AdamW(…, betas=(0.9, 0.95)): a setting
                elif queue and fence and not stack and i == 0 and ch == "[":
                    code_name, pick = _picked(queue.pop(0))          # print(dh) ⏎ [0.037 0.4097]: the next
                    stack.append(_Frame(ch, named(code_name, vocab, heading)))   # print's array, NumPy's
                    stack[-1].pick = pick                            # (print(dE[xs]): the rows xs names)
                else:
                    root = not any(not f.transparent for f in stack)
                    side = SIDE.search(line[:i]) if not root and ch == "[" and suspended is None else None
                    if side:           # W_1 = [[…],    b_1 = […]: b_1 is a literal of its own, W_1 goes on below
                        suspended, stack, root = stack, [], True
                    label = re.fullmatch(r"\s*([^\W\d][\w.']*)\s*[=:]\s*", line[:i]) if root else None
                    var = next((k for k, (a, _) in enumerate(said) if label and a == label[1]), None)
                    before = f"{said.pop(var)[1]} = " if var is not None else line[:i]   # (the printed variable)
                    name = (named(side[1], vocab, heading) if side else
                            _literal_name(before, code_name, vocab, heading, first)) \
                        if root else None
                    frac = stacked_fraction(lines, no, i) if root and name is None else None
                    if frac is not None:       # ∂L ⏎ = (…) ⏎ ∂z: a PDF's fraction
                        name = _literal_name(frac, code_name, vocab, heading)
                    elif root and name is None and no >= 2 and lines[no - 2].strip() and (
                            re.match(r"\s*=", line) or CONTINUED_SUM.match(line) and "=" in lines[no - 2] or
                            not line[:i].strip() and
                            re.search(r"(?:≈|\\approx)\s*$", lines[no - 2])):     # (not a printout's 'dW_2 =')
                        name = _literal_name(lines[no - 2].rstrip() + " " + line[:i].lstrip(), code_name, vocab,
                                             heading)    # f = ReLU(z) W_2 + b_2 ⏎ = … = (0.625, 0.120): f; and
                        #                                  '\frac{∂L}{∂ℓ} \approx' ⏎ '(0,16; 0,10; …)': ∂L/∂ℓ
                    if root and name is None and named_root is not None and ARROW.search(line[:i]):
                        name = Label(named_root.name, named_root.index, named_root.of, "sgd[1]")  # E[1]: […] → […]
                    if root and name is not None and not name.sup and not side and \
                            (sup := superscript_of(last_clause(plain(before)))):
                        name = dataclasses.replace(name, sup=sup)      # W_{Q}^{(2)} = [ … ]: layer 2's (or head 2's)
                    if root and name is not None:
                        named_root = name
                    if not root and stack[-1].kind == "[" and ch == "[" and stack[-1].rows:
                        stack[-1].counts[0] += 1    # [[0.1 0.2] [0.3 0.4]]: NumPy's rows, no comma between
                    stack.append(_Frame(ch, name))
                    stack[-1].pick = pick if root and name is not None and not side and \
                        re.search(r"(?:array|tensor)\(\s*$", line[:i]) else None    # (the cell's output)
            elif ch in ")]" and stack and stack[-1].kind in "([":
                done = stack.pop()
                if stack and stack[-1].kind == "[" and not done.transparent:
                    stack[-1].rows = True
                if not done.transparent and not any(not f.transparent for f in stack) and \
                        OPERATOR_AFTER.match(line, i + 1):
                    done.name = None           # (0.3, −0.1) − 0.5 × (…): an operand, not what the line defines
            elif (ch in ",|∣" or ch == ";" and line[i - 1:i] != "\\") and stack and not stack[-1].transparent and \
                    (ch not in "|∣" or stack[-1].kind in "(["):
                #      (0,1101; 0,3398) with decimal commas; not LaTeX's space \;  ( a, b | c, d ): two heads' halves
                if ch == ";" and stack[-1].commas:
                    stack[-1].row_starts.append(stack[-1].counts[0] + 1)   # [0.6, −0.3; 0.2, 0.5]: a new row
                stack[-1].commas += ch == ","
                stack[-1].counts[0] += 1
                stack[-1].end, stack[-1].rows = None, False
            elif ch == "#" and any(not f.transparent for f in stack) and line[i + 1:i + 2] in (" ", "") and \
                    line[i - 1:i] in (" ", "\t"):
                break                          # [[0.2, -0.1], [0.4, 0.25],   # o, gato: a comment's commas
            elif ch == "&" and stack and stack[-1].kind == "M":
                stack[-1].counts[1] += 1
                stack[-1].wide = max(stack[-1].wide, stack[-1].counts[1])
            elif line.startswith("\\\\", i) and stack and stack[-1].kind == "M":
                stack[-1].counts = [stack[-1].counts[0] + 1, 0]
                i += 2
                continue
            i += 1
        if suspended is not None and not any(not f.transparent for f in stack):
            stack, suspended = suspended, None     # the literal beside is closed: the first one goes on
    out = {}
    for k, (root, frames) in seen.items():
        pos: list = []
        for f, counts in frames:
            if f.kind == "(" and f.counts[0] == 0:
                continue                 # (−0.2): brackets around one number, not a vector
            if f.row_starts and _rectangular(f):
                starts = [0] + f.row_starts             # MATLAB's [a, b; c, d]: row and column
                r = max(k for k, at in enumerate(starts) if at <= counts[0])
                counts = [r, counts[0] - starts[r]]
            if f.kind == "M" and (f.counts[0] == 0 or f.wide == 0):
                counts = counts[1:] if f.counts[0] == 0 else counts[:1]   # one row or one column: a vector
            pos += list(counts)
        if pos and (frames[0][0].counts != [0] or frames[0][0].kind == "M" or len(pos) > 1):
            pos = _rows(root.pick, pos)
            if pos:
                name = root.name or Label(f"literal@{id(root)}")
                if len(pos) >= 2 and name.index == (0,) and name.name and root.transparent is False and \
                        frames[0][0].kind == "[" and _batch_first(name):
                    name = dataclasses.replace(name, index=())   # att[0] ⏎ tensor([[[…]]]): the batch's one example
                out[k] = (name, tuple(pos))
    return out


LATEX_SPACE = re.compile(r"(?<!\\)\\[,;:!](?![A-Za-z])|(?<!\\)\\ ")
"""LaTeX's spacing commands (``\\,``, ``\\;``, ``\\ ``): space, no separator between a literal's entries."""
SIDE = re.compile(r"[\])],?\s{2,}([A-Za-z_\u0370-\u03ff][\w']*)\s*(?:=|:)\s*$")
"""A literal's name written beside another literal still open on its line: ``…0.6],      b_1 = ``."""

