"""Where-strings of a claims file, in the reader's language.

A claim's ``where`` says where the source document prints a figure, in the
source's own words (``§4.3 表 4-4 第 2 行``).  The English document's errata
need them in English: :func:`translate` rewrites one deterministically with a
small table of rules, one rule per wording the claims files use.  A vocabulary
token stays as it is, marked as a token (「你」); a passage quoted from the
source (「…」) keeps its figures and formulas, and the words no rule covers
become an ellipsis.

>>> translate("§4.3 表 4-4 第 2 行", "en")
'§4.3 Table 4-4 row 2'
>>> translate("§10.3 表 10-1 你 (目标) 行 p 列", "en", ["你"])
'§10.3 Table 10-1 「你」 (target) row p column'
>>> translate("§4.3 表 4-4 第 2 行", "zh")
'§4.3 表 4-4 第 2 行'
"""
from __future__ import annotations

import re

SOURCE_LANG = "zh"

# Patterns first (they fix word order); then words, longest first.  Each
# replacement is padded with spaces where Chinese writes none; whitespace is
# tidied at the end.
PATTERNS = [
    (r"本文结构 第 (\d+) 项", r"outline, item \1"),
    (r"挑出 (\S+) 的第 (\d+) 行", r"pick row \2 of \1"),
    (r"第 (\d+) 步的损失就从 (\S+) 变成 (\S+)", r"the loss at step \1 goes from \2 to \3"),
    (r"词表\[", r"vocabulary["),
    (r"残差\+", r"residual+"),
    (r"第 (\d+) 个位置", r"position \1"),
    (r"第 (\d+) 项系数", r" coefficient of term \1 "),
    (r"第 (\d+) 项积", r" product of term \1 "),
    (r"第 (\d+) 项", r" term \1 "),
    (r"第 (\d+) 行", r" row \1 "),
    (r"第 (\d+) 列", r" column \1 "),
    (r"第 (\d+) 个", r" entry \1 "),
    (r"第 (\d+) 题", r" question \1 "),
    (r"表 (\d+-\d+)", r"Table \1"),
    (r"√ 下的 (\S+)", r"the \1 under √"),
    (r"包含 (\d+) 个 token 的词表", r"a vocabulary of \1 tokens"),
    (r"除以 (.+) 之前", r"before dividing by \1"),
    (r"对 (\S+) 的损失", r"for a loss of \1"),
    (r"保留概率最高的 (\d+) 个 token", r"keep the \1 most probable tokens"),
    (r"(\d+) 词词表", r"\1-word vocabulary"),
    (r"只是把 ([\d.]+) 亿个参数缩到了 (\d+) 个", r"merely shrinks \1 × 10⁸ parameters to \2"),
    (r"把 (\d+) 次（生产里是 ([\d.]+) 亿次）前向", r"\1 forward passes (\2 × 10⁸ in production)"),
    (r"(\d+) 个参数全部更新后重新前向", r"all \1 parameters updated, then a new forward pass"),
    (r"那要算 (\d+) 次前向", r"that takes \1 forward passes"),
    (r"从 (\d+) 个参数到 ([\d.]+) 亿", r"from \1 parameters to \2 × 10⁸"),
    (r"参数从 (\d+) 个变成千万级", r"parameters go from \1 to tens of millions"),
    (r"比瞎猜的 (\S+) 好一点点", r"slightly better than a blind guess, \1"),
    (r"从 (\S+) 涨到 (\S+)", r"rises from \1 to \2"),
    (r"按参数现值收 (\S+) 的“税”", r"a “tax” of \1 on the parameter's current value"),
    (r"大 (\d+) 倍", r"\1 times larger"),
    (r"（(\d+) 个词）", r" (\1 words)"),
    (r"(\d+) 次前向", r"\1 forward passes"),
    (r"(\d+) 次反向", r"\1 backward pass"),
    (r"(\d+) 个参数的", r"\1-parameter "),
    (r"([\d.]+) 亿", r"\1 × 10⁸"),
    (r" 的 ", r"'s "),
    (r"的下标", r"'s index"),
    (r"的展开", r" expanded"),
]

WORDS = {
    "页首": "page top", "标签行": "label line", "统计卡": "stat card", "词表大小": "vocabulary size",
    "嵌入维度": "embedding width", "注意力头数": "attention heads", "层数": "layers",
    "词表中的字符": "characters in the vocabulary", "长度": "length", "全部": "all",
    "个标量参数": "scalar parameters", "个参数": "parameters", "合计": "in total", "矩阵": "matrix",
    "行数": "rows", "列数": "columns", "标题": "title", "参数数": "parameter count",
    "形状": "shape", "第一个": "first", "第二个": "second", "注释": "comment", "注": "note",
    "正文": "text", "表头": "header", "位置编码": "positional encoding", "位置": "position",
    "代入数字": "numbers substituted", "代入": "substituting", "公式": "formula", "说明": "remark",
    "当": "when", "对于": "for", "对": "for", "再除以": "then dividing by", "第一项积": "first product",
    "第二项积": "second product", "第一项平方": "first term squared", "第二项平方": "second term squared",
    "第一项": "first term", "第二项": "second term", "结果": "result", "分子": "numerator",
    "归一化分母": "normalising denominator", "分母": "denominator", "看自己": "goes to itself",
    "注意力看": "of the attention goes to", "看": "looks at", "含义": "meaning", "权重在": "weight on",
    "我们设": "we set", "输出字符": "output character", "输出形状": "output shape", "输出": "output",
    "输入": "input", "第二行": "second line", "第三行": "third line", "残差": "residual",
    "目标": "target", "默认": "default", "百分比列": "percent column", "梯度列": "gradient column",
    "概率分布可视化": "probability chart", "条形图": "bar", "标注": "label", "预测": "prediction",
    "重新归一化为": "renormalised to", "前两个累计": "the first two add up to",
    "加上第三个达到": "with the third it reaches", "假设采样返回": "suppose sampling returns",
    "监督信号": "supervision signal", "这里": "here", "直觉": "intuition", "负梯度": "negative gradient",
    "取教学用的大学习率": "take the large teaching learning rate", "取": "take", "学习率": "learning rate",
    "新": "new", "旧": "old", "升高了": "up by", "分词": "tokenizer", "核心数值": "key figures",
    "嵌入": "embedding", "自注意力": "self-attention", "本文迷你模型": "this mini model",
    "总参数": "total parameters", "关键观察": "key observation", "增量": "increment", "减量": "decrement",
    "导语": "lead", "引言": "introduction", "一个": "a", "语言模型": "language model",
    "向量维度": "vector width", "参数": "parameters", "前向表": "forward table", "查行": "row lookup",
    "手算结果": "result by hand", "打分": "scores", "变概率": "to probabilities", "粗体": "bold",
    "正确答案的概率只有": "the right answer's probability is only", "损失降了": "the loss drops by",
    "损失降幅": "loss drop", "损失": "loss", "这": "these",
    "猫和鱼的嵌入行梯度为": "the embedding-row gradients of 猫 and 鱼 are",
    "分量": "component", "验证脚本": "check script", "验证": "check", "数值梯度": "numerical gradient",
    "解析梯度": "analytic gradient", "梯度检验表": "gradient-check table", "迭代表": "iteration table",
    "步数": "step", "更新后": "after the update", "旧值": "old value", "新值": "new value", "左": "left",
    "右": "right", "超参": "hyper-parameters", "一阶矩": "first moment", "二阶矩": "second moment",
    "偏差修正": "bias correction", "自适应步长": "adaptive step", "权重衰减": "weight decay",
    "数值": "value", "观察": "observation", "同样": "the same", "裸 SGD 这一步只挪": "plain SGD moves only",
    "挪了": "moves", "陷阱段": "pitfall paragraph", "正确顺序": "correct order", "错误顺序": "wrong order",
    "下一级实验": "next experiment", "训练信号": "training signal", "自检清单": "self-check list",
    "词表": "vocabulary", "项": "term", "行": "row", "列": "column", "表": "table", "和": "sum",
    "个": "", "（": " (", "）": ") ", "，": ", ", "、": ", ", "：": ": ",
}

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
_WORD_RE = re.compile("|".join(re.escape(w) for w in sorted(WORDS, key=len, reverse=True)))


def cjk_left(text: str, vocab=()) -> list:
    """The runs of Chinese script left in ``text`` once the tokens 「tok」 are taken out.

    >>> cjk_left("row 「你」 of 表", ["你"])
    ['表']
    """
    for tok in vocab:
        text = text.replace(f"「{tok}」", "")
    return _CJK.findall(text)


def translate(text: str, lang: str, vocab=()) -> str:
    """``text`` (a where-string in the source's language) in ``lang``.

    The source's language returns it unchanged.  Tokens of ``vocab`` stay,
    marked 「tok」; a quoted passage becomes “…”, its uncovered words “…”.

    >>> translate("§5.5 第 1 行 「归一化分母 = 2.175 + 2.614 = 4.789」", "en")
    '§5.5 row 1 “normalising denominator = 2.175 + 2.614 = 4.789”'
    >>> translate("§11.1 「输出字符 ← 词表[3] = 「爱」」", "en", ["爱"])
    '§11.1 “output character ← vocabulary[3] = 「爱」”'
    """
    if lang == SOURCE_LANG:
        return text
    if lang != "en":
        raise ValueError(f"where-strings translate to en only, not {lang!r}")
    out = []
    for quoted, part in _split_quotes(text):
        if quoted and part in vocab:
            out.append(f"「{part}」")
        elif quoted:
            out.append("“" + _words(part, vocab, elide=True) + "”")
        else:
            out.append(_words(part, vocab, elide=False))
    return _tidy("".join(out))


def _words(text: str, vocab, elide: bool) -> str:
    """The rules on plain text; nested 「tok」 quotes kept; tokens marked."""
    pieces = []
    for quoted, part in _split_quotes(text):
        if quoted:
            pieces.append(f"「{part}」" if part in vocab else "“" + _words(part, vocab, elide) + "”")
            continue
        for pat, rep in PATTERNS:
            part = re.sub(pat, rep, part)
        part = _WORD_RE.sub(lambda m: f" {WORDS[m.group()]} " if WORDS[m.group()].strip() else "", part)
        part, toks = _hide_tokens(part, vocab)
        if elide:
            part = _CJK.sub("…", part)
        pieces.append(re.sub("\x00(\\d+)\x00", lambda m: f"「{toks[int(m[1])]}」", part))
    return "".join(pieces)


def _hide_tokens(text: str, vocab) -> tuple:
    """Chinese-script vocabulary tokens replaced by numbered placeholders (shown later as 「tok」)."""
    toks = sorted((t for t in vocab if _CJK.search(t)), key=len, reverse=True)
    if not toks:
        return text, []
    found = []

    def hide(m):
        found.append(m.group())
        return f"\x00{len(found) - 1}\x00"
    return re.sub("|".join(re.escape(t) for t in toks), hide, text), found


def _split_quotes(text: str) -> list:
    """[(quoted?, text)]: the top-level 「…」 passages and the text between them."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "「":
            if depth == 0:
                out.append((False, cur))
                cur = ""
            else:
                cur += ch
            depth += 1
        elif ch == "」" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append((True, cur))
                cur = ""
            else:
                cur += ch
        else:
            cur += ch
    out.append((depth > 0, cur))
    return [(q, t) for q, t in out if t or q]


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([),;:'])", r"\1", text)
    text = re.sub(r"([(“])\s+", r"\1", text)
    text = re.sub(r"\s+”", "”", text)
    return text
