"""Where a figure stands says what it is: a label read from the document's structure.

A figure's *label* is the name and the indices its place gives it, read before its value is looked at:

* the left side of its equation: ``A[2,1] = 0.3901``, ``p(sat) = 0.2772``, ``W_{0,球} ← … = 0.4157``,
  ``α₃₁ = 32.9%``, ``\\frac{\\partial L}{\\partial z_{球}} = -0.7835``;
* its place in a vector or matrix literal and the literal's name: ``dW = [[…], […]]``, a notebook's
  ``array([…])`` under the code cell ``dW``, ``Q = \\begin{pmatrix} … \\end{pmatrix}``;
* its table: the row's and the column's labels (``第 1 行``, ``t=1``, a token, ``step 3``) and the
  column's name (``loss``, ``p(sat)``), or the table itself as one matrix.

Labels are written as the author writes them; :mod:`symgpt.claims.notation` learns what each name means.

>>> from symgpt.claims.extract import extract
>>> text = "A[2,1] = 0.3901 and p(sat) = 0.2772"
>>> [str(x) for x in labels(text, extract(text), ["the", "sat"]).values()]
['A[2,1]', 'p[tok1]']
"""
from __future__ import annotations

import dataclasses
import re

from .aliases import MEAN, VARIANCE
from .equations import (
    OPERAND_NEXT,
    SIGNED_NEXT,
    after_step,
    continued_label,
    defined_names,
    echoes,
    function_continued,
    function_head,
    function_of,
    last_clause,
    lhs_of,
    of_entry,
    operand_names,
    restated,
    under_gradient,
)
from .extract import decimal_comma, normal_line
from .literals import bare_matrix, literals, stacked_literals, symbol_rows
from .marks import (
    head_mark,
    layer_mentioned,
    lhs_superscript,
    paragraph_above,
    row_mark,
    section_titles,
    sentence_of,
    superscript_of,
)
from .shares import (
    ATTENTION,
    attention_share,
    parallel,
    prose_word,
    quoted_before,
    quoted_token,
    token_colon,
    token_share,
)
from .symbols import SLICE, Label, Words, parse_label, plain
from .tables import cell_label, place_in_cell, stacked_header, table_header, table_label, text_tables, with_power_head

STEPS_AFTER = re.compile(r"\s*(?:(?:AdamW?|SGD|GD)[\s-]*)?(?:steps?|updates?|iterations?|Schritt\w*|étapes?|pasos?|"
                         r"pass[oi]|шаг\w*|krok\w*|stap\w*|bước|langkah|steg)\b", re.I)
"""What follows a count of training steps inside a name: ``1 AdamW-Schritt``, ``2 steps``."""


RMS = re.compile(r"((?i:rms)(?:_?\d|_f)?)")
"""RMSNorm's divisor by name: ``rms``, ``rms2``, ``rms_f``."""
ROW_STATISTIC = re.compile(r"[μσ].*|rms\w*|RMS\w*|ms\w*|var\w*|mean\w*|mu\w*|std|" +
                           "|".join(re.escape(w) for w in (*MEAN, *VARIANCE)))
"""A name of one row's statistic (a norm's mean, variance, mean square, rms): one figure a position, which a
section's title naming that position indexes."""


NORM_ORDINAL = re.compile(r"\b(?:(?P<two>second[oa]?|zweite\w*|deuxième|segund[oa]|втор\w+|drug\w+|tweede)|"
                          r"(?P<one>first|prim[oa]|erste\w*|premi[eè]re?|primer[oa]?|перв\w+|pierwsz\w+|eerste)|"
                          r"(?P<f>final[e]?|finale|letzte\w*|últim[oa]|ultim[oa]|последн\w+))\s+"
                          r"(?:Layer\s*Norm|LN|RMSNorm|norm\w*|normali[sz]\w+)|第(?P<two2>二)个?\s*(?:LayerNorm|LN)|"
                          r"(?<![\w])(?:LN|ln)_?\{?(?P<k>[12f])\}?(?![\w])|"
                          r"(?P<two3>(?:前馈层?|FFN|MLP)之前的?\s*(?:LayerNorm|RMSNorm|LN|归一化)|"
                          r"(?:LayerNorm|RMSNorm|\bnorm(?:ali[sz]\w*)?\b|LN)\s+"
                          r"(?:before|vor|avant|antes del?|prima del?|перед)\s+"
                          r"(?:the\s+|la\s+|le\s+|l'|dem\s+|el\s+)?(?:FFN|MLP|feed[- ]?forward))|"
                          r"(?P<one3>(?:注意力)之前的?\s*(?:LayerNorm|RMSNorm|LN|归一化)|"
                          r"(?:LayerNorm|RMSNorm|\bnorm(?:ali[sz]\w*)?\b|LN)\s+"
                          r"(?:before|vor|avant|antes de|prima di|перед)\s+"
                          r"(?:the\s+|la\s+|l'|der\s+)?(?:attention|Attention|atención|attenzione|вниманием))", re.I)
"""A norm named by its place in the block: 'the second LayerNorm', 'Seconda LayerNorm', LN_2, ln_f, 'the LayerNorm
before the FFN', '前馈层之前的 RMSNorm'."""


SHARE_OPERAND = re.compile(r"\s*%?\s*\$?\s*(?:[×*/÷+·−-]|\\times|\\cdot|\\div)\s*\$?\s*[\d(]")
"""What follows a figure that is an operand, not a token's share: ``0.3723 / 0.8462``, ``0.37 + 0.24`` (not an
italic's closing star: ``*0.623* and``)."""


def norm_ordinal(name: str, before: str) -> str | None:
    """A norm statistic's name as the nearest norm named before it says (``σ²`` after 'Seconda LayerNorm':
    var2; ``μ`` after 'LN_1': mu1; after 'the final norm': mu_f); None when none is named or it is no statistic.

    >>> norm_ordinal("σ²", "Seconda LayerNorm: la media è µ = 0,48, la varianza "), norm_ordinal("μ", "LN_f: ")
    ('var2', 'mu_f')
    >>> norm_ordinal("σ²", "the variance "), norm_ordinal("var2", "second LayerNorm: ")
    (None, None)
    >>> norm_ordinal("ms", "八、前馈层之前的 RMSNorm"), norm_ordinal("μ", "The norm before the attention")
    ('ms2', 'mu1')
    """
    kind = "mu" if name in MEAN or name.lower() in ("mu", "mean", "µ") else \
        "var" if name in VARIANCE or name in ("σ^2", "var") else "ms" if name.lower() in ("ms", "mean_sq") else None
    m = ([None] + list(NORM_ORDINAL.finditer(before)))[-1]
    if kind is None or m is None:
        return None
    k = "2" if m["two"] or m["two2"] or m["two3"] else "1" if m["one"] or m["one3"] else "_f" if m["f"] else \
        ("_f" if m["k"].lower() == "f" else m["k"])
    return f"{kind}{k}"


def token_of(lab, vocab) -> str | None:
    """The token a token's label names (None: another label, or an index beyond the vocabulary).

    >>> token_of(Label("token", (("tok", 1),)), ["a", "to"]), token_of(Label("token", (7,)), ["a"])
    ('to', None)
    """
    if lab is None or lab.name != "token" or not lab.index or not isinstance(lab.index[0], tuple):
        return None
    k = lab.index[0][1]
    return vocab[k] if isinstance(k, int) and 0 <= k < len(vocab) else None


DRAWN_BY = re.compile(r"\w\s*\([^()#]*?\b(top_?k|top_?p|temperature)\s*=\s*(\d+(?:\.\d+)?)")
"""A call that draws with a sampling setting as its keyword (``probs(logits, top_k=2)``)."""


SAMPLER_NAMED = re.compile(r"\s*(?:[#>*-]\s*)?(top[-_ ]?[kp])\b[^0-9{\[(]{0,12}[{\[(:=]", re.I)
"""A printed line led by the distribution it shows: ``top-k {'die': 0.3726, …}``, ``top_p: [0.41 0.33]``."""


def drawn_by(lines: list, line: int, above: int = 6) -> str | None:
    """The sampling setting the code just above a printed output draws with (``top_k=2``), else None: its shares
    are that distribution's, whatever the section's other prints are.

    >>> drawn_by(["p = probs(logits, top_k=2)   # temperature = 1", "print(p)", "{'y': 0.5843}"], 3)
    'top_k=2'
    >>> drawn_by(["At T = 0.8 the shares are", "{'y': 0.5}"], 2) is None
    True
    >>> drawn_by(["p = probs(logits, top_p=0.75)", "top-p {'a': 0.4}", "top-k {'a': 0.5}"], 3)
    'top_k'

    """
    own = SAMPLER_NAMED.match(lines[line - 1]) if 0 < line <= len(lines) else None
    if own:                           # 'top-k {…}': the line's own lead names its distribution
        return re.sub(r"[-_ ]", "_", own[1].lower())
    for text in reversed(lines[max(0, line - 1 - above):line - 1]):
        m = DRAWN_BY.search(text.split("#")[0])
        if m:
            return f"{m[1].replace('_', '')}={m[2]}".replace("topk", "top_k").replace("topp", "top_p")
    return None


OPTIMIZER_CALL = re.compile(r"(?<![\w])(Adam\w*|SGD)\s*\((?:[^()]|\([^()]*\))*$")
"""The open call of an optimizer's constructor before a figure (``torch.optim.AdamW(params, lr=1e-3, eps=``)."""


def optimizer_setting(lab, n):
    """A keyword's figure inside an optimizer's constructor is that optimizer's setting (``AdamW(…, eps=1e-8)`` is
    AdamW's ε, not the norm's, whatever ``eps`` names elsewhere); None otherwise.

    >>> from symgpt.claims.extract import extract
    >>> n = extract("opt = torch.optim.AdamW(ps, lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)")[3]
    >>> optimizer_setting(Label("eps"), n).ref, optimizer_setting(Label("eps"), extract("eps=1e-5")[0])
    ('adamw.eps', None)
    """
    call = OPTIMIZER_CALL.search(n.line_text[:n.col])
    key = re.search(r"(\w+)\s*=\s*$", n.line_text[:n.col])
    if call is None or key is None or key[1] != lab.name:
        return None
    if call[1].lower().startswith("adam") and key[1] in ("lr", "eps", "weight_decay"):
        return Label(lab.name, ref=f"adamw.{key[1]}")
    return Label(lab.name, ref="lr") if key[1] == "lr" else None


FUNCTION_ARGUMENT = re.compile(r"(?<![^\W\d_])(?:cos|sin|tanh|tan|exp|ln|log)\s*\(?\s*$")
"""An integer that is a function's argument (``cos 2``): inside its clause's formula, no end of the clause."""


def labels(text: str, numbers: list, vocab, names=(), params=(), sequence=(), made_by=None, reads=None,
           checkpoint=None, batch=False) -> dict:
    """figure index → its :class:`Label`, for the figures whose place names them (``names``: the model's
    own names, which keep an underscore and digits whole; ``params`` those of its parameters; ``sequence``
    the input's tokens; ``made_by``: each parameter's name → the one tensor its op makes, so that a formula
    names its result, :func:`formula_label`; ``reads``: each weight's name → the tensor it multiplies, so that
    a formula names its operand, :func:`operand_names`; ``checkpoint``: the parameters under a checkpoint's names,
    :class:`symgpt.claims.checkpoint_names.CheckpointNames`; ``batch``: the spec trains on a mini-batch)."""
    comma = decimal_comma(text)
    lines = [normal_line(x, comma) for x in re.split(r"\r\n|\r|\n", text)]
    vocab = Words(vocab, names, params, sequence, made_by, reads, checkpoint, batch)
    out: dict = {}
    stacked = stacked_literals(lines, numbers, vocab)
    out.update(symbol_rows(lines, numbers, vocab))     # [s11 s12; s21 s22] = [0.37 −0.36; …]: each its symbol's
    layered = any(x.startswith("l1.") for x in vocab.names)     # (a superscript on a literal's name: its block)
    bare = bare_matrix(lines, numbers, vocab)
    written = {k: v for k, v in literals(lines, numbers, vocab).items()       # (a row in brackets of its own is
               if k not in bare or not v[0].name.startswith("literal@")}    # its named matrix's, not a vector)
    for k, (head, pos) in (bare | written | stacked).items():
        if k in out:
            continue
        n = numbers[k]
        after = n.line_text[n.col + len(n.text):]
        if k not in stacked and OPERAND_NEXT.match(after) and not SIGNED_NEXT.match(after) or \
                re.search(r"[\w)]\s*(?:[+\-−×*/·]|\\times|\\cdot)\s*\(?\s*$", n.line_text[:n.col]):
            continue                   # [0.25, 0.2136 − 1, …], (0.2 − 0.4161, …): an operand, not the entry
        if layered and len(head.sup) == 1 and not head.index and not head.of:
            head = Label(head.name, (head.sup[0],), state=head.state, fn=head.fn)  # W_{Q}^{(2)} = [ … ]: block 2's
        out[k] = Label(head.name, sliced(head.index, pos), head.of, head.state, sup=head.sup,
                       fn=head.fn)     # exp(z) = (…): exp of each entry
    text_cells = text_tables(lines, numbers, vocab)
    optimizer, last_named = [], ""           # the optimizer the text spoke of last, line by line
    for line in lines:
        said = re.findall(r"adam|\bsgd\b", line, re.I)
        last_named = said[-1].lower() if said else last_named
        optimizer.append(last_named)
    on_line: dict = {}
    for n in numbers:
        on_line.setdefault(n.line, []).append(n)
    for n in numbers:
        said = optimizer[n.line - 1] if n.line - 1 < len(optimizer) else ""
        cell = with_power_head(cell_label(*text_cells[n.index], vocab, n.heading, said), text_cells[n.index][1]) \
            if n.index in text_cells else None
        if cell is not None and n.index not in out:
            out[n.index] = cell
        anonymous = n.index in out and out[n.index].name.startswith("literal@")
        if anonymous and not n.column and (lab := cell) is not None and \
                lab.index and not lab.state and not lab.of and not lab.fn and not lab.ref:
            head = head_mark(text_cells[n.index][1], True)      # 'q(2)_t  (cabeça 2)': head 2's
            out[n.index] = dataclasses.replace(lab, index=lab.index + out[n.index].index,
                                               head=head if head is not None else lab.head)
            continue       # ('t  q_t  …' over '2  (0,5129; 0,5898)  …': the cell's row and column name the vector)
        anonymous = anonymous and n.column
        if n.index not in out or anonymous:    # (a vector in a table's cell: the cell's labels name it)
            lab = table_label(n, lines, vocab, said)
            if lab is not None:
                top, header = table_header(lines, n.line)
                k, count = place_in_cell(n, on_line[n.line], [] if stacked_header(lines, top, n.line) else header)
                out[n.index] = lab if count < 2 else dataclasses.replace(lab, index=lab.index + (("at", k),))
    ends: dict = {}
    last = None
    sections = section_titles(lines, numbers)
    by_line: dict = {}
    for n in numbers:
        by_line.setdefault(n.line, []).append(n)
    for n in numbers:
        lab = lhs_of(n, vocab, ends.get(n.line, 0), lines) if n.index not in out else None
        word = token_of(lab, vocab)
        if word is not None and re.search(rf"(?<![\w\"“«'‘「]){re.escape(word)}\s*$", n.line_text[:n.col]):
            lab = None        # 'which sum to 3.2847', 'from 2.8803 to 1.8861': the relation's word ('to' a token too)
        word = token_of(lab, vocab)
        if word is not None and re.fullmatch(r"[A-Za-z]", word) and \
                re.search(rf"(?<![\w\"“«'‘「]){word}\s*=\s*\$?\s*$", n.line_text[:n.col]):
            lab = None        # 'h = 1e-5' where a character-level vocabulary has 'h': a symbol of a formula
        if lab is not None and not lab.index and not lab.state and not lab.fn and n.index not in out and \
                (fn := function_of(n, last)) is not None and \
                re.search(r"[:：]\s*\$?\s*\\?(?:exp|e\s*\^|√|sqrt|ln|log|Φ|Phi)\W*$", n.line_text[:last.col]):
            lab = fn          # 'softmax：e^{−0.3005} = 0.7405': e to that power, not the word before the colon
            #                   (but 'L = −ln 0.1234 = …' names L)
        if lab is None and n.index not in out:
            lab = continued_label(n, lines, vocab)
        if lab is not None:
            lab = of_entry(lab, n, lines, vocab)
        if lab is None and n.index not in out:
            lab = after_step(n, last) or restated(n, last)
        if lab is not None and not NORM_ORDINAL.search(n.heading or "") and \
                (which := norm_ordinal(lab.name, sentence_of(lines, n))) is not None:
            lab = dataclasses.replace(lab, name=which)   # 'Seconda LayerNorm: … la varianza σ² = …': var2
            #     (not under a heading on the second norm: its section reads σ² so by its figures)
        elif lab is not None and len(NORM_ORDINAL.findall(n.heading or "")) == 1 and \
                (which := norm_ordinal(lab.name, n.heading)) is not None:
            lab = dataclasses.replace(lab, name=which)   # '八、前馈层之前的 RMSNorm': ms = … is the second norm's
        if lab is not None and not lab.index and lab.name != "token":
            row = row_mark(n.line_text[:n.col]) or \
                (row_mark(sections.get(n.index, ""), anywhere=True) if ROW_STATISTIC.fullmatch(lab.name) else None)
            lab = dataclasses.replace(lab, index=(row,)) if row is not None else lab   # 第 2 行：σ²＝…
            #     (under a section on position 2 only a row's statistic, μ or σ², not silu: a unit's, of row 2)
        if lab is None and n.index not in out:
            lab = function_of(n, last) or function_head(n, by_line.get(n.line, ())) or \
                function_continued(n, lines, by_line)
        if (lab is None or lab.name in ("probability", "prob") and not lab.index or prose_word(lab, vocab)) and \
                n.index not in out and n.kind in ("percent", "decimal"):
            share = attention_share if ATTENTION.search(" ".join((sentence_of(lines, n), n.line_text,
                                                                 sections.get(n.index, "")))) else \
                token_share                 # in an attention paragraph: the weight on that token's position
            #                                 (its sentence begun on a line above: 'gives 0.47% of its attention
            #                                  to "birds", ⏎ 25.37% to "sing"')
            said = (n.kind == "percent" or quoted_before(n, vocab)) and not SHARE_OPERAND.match(
                n.line_text[n.col + len(n.text):])   # ('*katten* får 0.3723 / 0.8462 = 0.4400': p, divided)
            above = (paragraph_above(lines, n.line), lines[n.line] if n.line < len(lines) else "") \
                if share is attention_share else ()
            mine = share(n, vocab, ends.get(n.line, 0), *above) if said else None
            if mine is None and n.chain and n.operands and n.kind == "decimal":   # '“em” …: 0,2797 / 0,9 = 0,3108'
                first = n.operands[0] if not isinstance(n.operands[0], int) else numbers[n.operands[0]]
                token = quoted_token(first.line_text[:first.col], vocab) if first.line == n.line else None
                mine = Label("token", (("tok", vocab.index(token)),)) if token is not None else None
            lab = mine or lab                # ('"I" with 0.2621', '"tea" … with probability 0.6225%': the token's)
        last = n
        if not (n.kind == "integer" and (re.match(r"\s*(?:→|->|,|\)|\]|\})", n.line_text[n.col + len(n.text):]) or
                                         STEPS_AFTER.match(n.line_text[n.col + len(n.text):]) or
                                         FUNCTION_ARGUMENT.search(n.line_text[:n.col]))):
            ends[n.line] = n.col + len(n.text)     # (not an index inside a name: s(3→3) = …'s 3s; nor a count
            #                                          of steps in one: 'Verlust nach 1 AdamW-Schritt: …'; nor a
            #                                          function's argument: 'q̃_{3,3} = q_{3,3} cos 2 − … = …')
        if lab is not None and (setting := optimizer_setting(lab, n)) is not None:
            lab = setting
        if lab is not None:
            out[n.index] = lab
    out.update(echoes(numbers, out))
    if vocab.checkpoint:                 # c_proj.weight.grad[1, 2] after model.h[0].attn.c_proj…: attn's
        for n in numbers:
            lab = out.get(n.index)
            if lab is None or not lab.index or not all(isinstance(k, int) for k in lab.index):
                continue
            at = ",".join(map(str, lab.index))
            full = vocab.checkpoint.nearest(lab.name, lines, n.line)
            ours = vocab.checkpoint.read(f"{full}[{at}]") if full is not None else \
                vocab.checkpoint.read(f"{lab.name}[{at}]") if n.column or n.index in text_cells or \
                re.search(r"\.(?:weight|bias)(?:\.grad)?$", lab.name) else None
            #      (a module's tensor named in prose, `k_proj.weight.grad[1, 0]`: stored as its module keeps it)
            #      (a table's cells under a caption ∂L/∂W_{attn}[i, c]: the fused matrix's entries, as x·W has them)
            if ours is not None:
                out[n.index] = dataclasses.replace(parse_label(ours, vocab), state=lab.state)
    out.update({n.index: twin for n in numbers if n.kind == "decimal" and (lab := out.get(n.index)) is not None and
                lab.name == "token" and (twin := parallel(n, by_line.get(n.line, ()), out, lab)) is not None})
    heads, sups = {}, {}
    for n in numbers:
        lab = out.get(n.index)
        if lab is not None:
            header = table_header(lines, n.line)[1] if n.column else []
            marks = (sentence_of(lines, n), n.line_text[:n.col], paragraph_above(lines, n.line), n.table,
                     header[0] if header else "", sections.get(n.index, ""))
            heads[n.index] = next((h for k, t in enumerate(marks) if (h := head_mark(t, k > 0)) is not None), None)
            #   (its sentence, wrapped from above: the last head named before it; its line before it (not '… head 1,
            #    … head 2 의 몫입니다. q_{3,1} = …'), its paragraph above, its caption, its table's corner 'head 0',
            #    its section: one head only, or none)
            own = lhs_superscript(n.line_text[:n.col]) if any(isinstance(k, tuple) and k[0] == "at"
                                                                for k in lab.index) else None
            clause = last_clause(n.line_text[:n.col])
            head_side = re.split(r"=|\\approx", clause)[0]
            if own is None and head_side != clause and re.search(
                    rf"(?<![^\W\d_]){re.escape(lab.name)}", plain(head_side)):
                own = superscript_of(head_side[-80:] + " =") or None
                #     (o^{(2)}_{3,1} &= 0{,}405·0{,}866 + … = −0{,}183: its left side's, however long the chain)
            sups[n.index] = own if own is not None else \
                next((m for t in (n.line_text[:n.col], n.row if n.column else "", n.column,
                                  header[0] if header else "")
                      if (m := superscript_of(t))), ())      # (its row's name far to the left; its table's corner:
            #                                                    s^{[1,2]})
            if layered and not sups[n.index] and (n.column or n.index in text_cells):
                sups[n.index] = layer_mentioned(n.row)     # | W2[3,2] (l2) | …: the row's block, named in words
    for n in numbers:                  # a list of tokens' values under 'dL/dz_v = p_v − y_v': the gradient's
        lab = out.get(n.index)
        token = lab.index if lab is not None and lab.name == "token" and not lab.state else \
            token_colon(n, vocab) if lab is None else None
        if token and n.kind == "decimal" and "=" not in n.line_text and under_gradient(lines, n.line):
            out[n.index] = Label("∂L/∂z", token)
    defined = defined_names(lines)      # δ_j = ŷ_j − y_j: δ is the logits' gradient in this document
    operand = operand_names(lines, numbers, vocab)     # z = x · W₁ + b₁: x is what W₁ multiplies, here
    out = {k: dataclasses.replace(lab, name=operand[sections.get(k, ""), lab.name])
           if (sections.get(k, ""), lab.name) in operand and not lab.state and not lab.of else lab
           for k, lab in out.items()}
    out = {k: dataclasses.replace(lab, name=RMS.fullmatch(lab.name)[1].replace("rms", "ms", 1).lower(), fn="sqrt+eps")
           if RMS.fullmatch(lab.name) and not lab.fn else lab
           for k, lab in out.items()}  # rms: √(mean of squares + ε), RMSNorm's divisor (rms2, rms_f: the second's,
    #                                    the final norm's)
    for n in numbers:                  # a token's share printed under a call that draws with top_k=2: that call's
        lab = out.get(n.index)
        if lab is not None and lab.name == "token" and (call := drawn_by(lines, n.line)) is not None:
            sections[n.index] = f"{sections.get(n.index, '')} › {call}"
    return {k: dataclasses.replace(lab, name=defined.get(lab.name, lab.name), section=sections.get(k, ""),
                                   head=lab.head if lab.head is not None else heads.get(k), sup=sups.get(k) or lab.sup)
            for k, lab in out.items() if (numbers[k].kind != "integer" or lab.inner is not None) and SLICE not in
            lab.index}     # (a slice no literal's place filled: no one entry)


def sliced(index: tuple, pos) -> tuple:
    """A literal's place in a name's indices: its slices (``W_{:,4}``) filled in order, the rest after them.

    >>> sliced((SLICE, 4), (2,)), sliced((3,), (0, 1)), SLICE in sliced((2, SLICE), (0, 1))
    ((('at', 2), 4), (3, ('at', 0), ('at', 1)), True)
    """
    places = [("at", i) for i in pos]
    if SLICE in index and index.count(SLICE) != len(places):
        return index                   # (A[2,:] = [[…], […]]: a literal deeper than its slices, no entry each)
    out = tuple(places.pop(0) if k == SLICE and places else k for k in index)
    return out + tuple(places)
