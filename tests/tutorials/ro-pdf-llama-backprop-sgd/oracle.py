"""Independent oracle for ro-pdf-llama-backprop-sgd (does not import symgpt).

A one-layer Llama block (RMSNorm, RoPE with rotate_half, SwiGLU, untied head, no biases)
computed with mpmath at 50 digits: the forward pass, a hand-written backward pass along the
last position, every parameter gradient by central differences at 90 digits (a cross-check of
the hand-written one), one SGD step (lr 0.1) and the new forward pass.

`python oracle.py` prints every KEY.md row's quantity with its value and asserts that the key's
"exact value" and "correct rounding" columns agree with it; it also checks every model figure the
document prints (the DOC_FIGURES list below), the arithmetic behind each planted error, and, when
pdftotext is installed, that each listed figure stands on its line of `pdftotext -layout DOC.pdf -`.
"""
import os
import shutil
import subprocess
import sys
from types import SimpleNamespace

from mpmath import cos, exp, floor, log, mp, mpf, sin, sqrt

mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- the spec, by hand
M = lambda rows: [[mpf(str(v)) for v in r] for r in rows]
VOCAB = ["mama", "gătește", "supă", "caldă", "azi"]
P0 = dict(
    E=M([[0.5, -0.2, 0.3, 0.1], [-0.4, 0.6, 0.2, -0.3], [0.2, 0.3, -0.5, 0.4], [0.1, -0.6, 0.4, 0.2], [-0.3, 0.1, 0.2, 0.5]]),
    W_out=M([[0.3, -0.2, 0.1, 0.4, -0.1], [-0.1, 0.5, 0.2, -0.3, 0.2], [0.2, 0.1, -0.4, 0.3, 0.1], [0.4, -0.3, 0.2, 0.1, -0.2]]),
    W_Q=M([[0.4, -0.2, 0.1, 0.3], [0.2, 0.5, -0.3, 0.1], [-0.1, 0.3, 0.4, -0.2], [0.3, 0.1, 0.2, 0.5]]),
    W_K=M([[0.3, 0.1, -0.2, 0.4], [-0.2, 0.4, 0.3, 0.1], [0.5, -0.1, 0.2, 0.3], [0.1, 0.2, 0.4, -0.3]]),
    W_V=M([[0.2, -0.3, 0.4, 0.1], [0.1, 0.2, -0.1, 0.5], [0.3, 0.4, 0.2, -0.2], [-0.4, 0.1, 0.3, 0.2]]),
    W_O=M([[0.3, 0.1, -0.2, 0.2], [-0.1, 0.4, 0.2, 0.1], [0.2, -0.3, 0.5, 0.1], [0.1, 0.2, 0.1, -0.4]]),
    W_1=M([[0.3, -0.2, 0.4, 0.1, -0.3, 0.2], [0.1, 0.4, -0.1, 0.3, 0.2, -0.2], [-0.2, 0.1, 0.3, -0.4, 0.1, 0.3], [0.4, 0.2, -0.3, 0.2, 0.3, 0.1]]),
    W_3=M([[0.2, 0.3, -0.1, 0.4, 0.1, -0.2], [-0.3, 0.1, 0.2, 0.1, 0.4, 0.3], [0.1, -0.2, 0.4, 0.2, -0.1, 0.3], [0.3, 0.2, 0.1, -0.3, 0.2, 0.4]]),
    W_2=M([[0.2, -0.1, 0.3, 0.1], [0.4, 0.2, -0.2, 0.3], [-0.1, 0.3, 0.2, -0.3], [0.3, -0.2, 0.1, 0.4], [0.1, 0.4, -0.3, 0.2], [-0.2, 0.1, 0.4, 0.3]]),
)
EPS = mpf("1e-5")
LR = mpf("0.1")
INP = [0, 1, 2]          # mama gătește supă
TGT = 3                  # caldă
d, H, dk, dff, V, T = 4, 2, 2, 6, 5, 3
PARAMS = ["E", "W_out", "W_Q", "W_K", "W_V", "W_O", "W_1", "W_3", "W_2"]   # gammas are fixed at 1


def matvec(x, W):
    return [sum(x[i] * W[i][j] for i in range(len(x))) for j in range(len(W[0]))]


def rmsnorm(x):
    ms = sum(v * v for v in x) / len(x)
    rho = sqrt(ms + EPS)
    return ms, rho, [v / rho for v in x]


def rope(x, t):
    """Hugging Face rotate_half within each head; d_k = 2 gives one frequency, theta = 1."""
    out = list(x)
    for h in range(H):
        a, b = x[h * dk], x[h * dk + 1]
        out[h * dk] = a * cos(t) - b * sin(t)
        out[h * dk + 1] = b * cos(t) + a * sin(t)
    return out


sig = lambda z: 1 / (1 + exp(-z))
silu = lambda z: z * sig(z)
dsilu = lambda z: sig(z) * (1 + z * (1 - sig(z)))


def forward(P):
    X = [list(P["E"][i]) for i in INP]
    n1 = [rmsnorm(X[t]) for t in range(T)]
    LN1 = [n[2] for n in n1]
    Q = [matvec(LN1[t], P["W_Q"]) for t in range(T)]
    K = [matvec(LN1[t], P["W_K"]) for t in range(T)]
    Vv = [matvec(LN1[t], P["W_V"]) for t in range(T)]
    Qr = [rope(Q[t], t) for t in range(T)]
    Kr = [rope(K[t], t) for t in range(T)]
    S = [[[sum(Qr[t][h * dk + c] * Kr[s][h * dk + c] for c in range(dk)) / sqrt(dk) for s in range(T)]
          for t in range(T)] for h in range(H)]
    A = [[[mpf(0)] * T for _ in range(T)] for _ in range(H)]
    Aden = [[None] * T for _ in range(H)]
    for h in range(H):
        for t in range(T):
            Aden[h][t] = sum(exp(S[h][t][s]) for s in range(t + 1))
            for s in range(t + 1):
                A[h][t][s] = exp(S[h][t][s]) / Aden[h][t]
    Ah = [[sum(A[j // dk][t][s] * Vv[s][j] for s in range(T)) for j in range(d)] for t in range(T)]
    At = [matvec(Ah[t], P["W_O"]) for t in range(T)]
    H1 = [[X[t][j] + At[t][j] for j in range(d)] for t in range(T)]
    n2 = [rmsnorm(H1[t]) for t in range(T)]
    LN2 = [n[2] for n in n2]
    Z = [matvec(LN2[t], P["W_1"]) for t in range(T)]
    U = [matvec(LN2[t], P["W_3"]) for t in range(T)]
    R = [[silu(Z[t][k]) * U[t][k] for k in range(dff)] for t in range(T)]
    F = [matvec(R[t], P["W_2"]) for t in range(T)]
    H2 = [[H1[t][j] + F[t][j] for j in range(d)] for t in range(T)]
    nf = [rmsnorm(H2[t]) for t in range(T)]
    LNf = [n[2] for n in nf]
    hf = LNf[-1]
    logits = matvec(hf, P["W_out"])
    se = sum(exp(z) for z in logits)
    p = [exp(z) / se for z in logits]
    return dict(X=X, ms1=[n[0] for n in n1], LN1=LN1, Q=Q, K=K, V=Vv, Q_rot=Qr, K_rot=Kr, S=S, A=A,
                A_den=Aden, Attn_heads=Ah, Attn=At, H1=H1, ms2=[n[0] for n in n2], rho2=[n[1] for n in n2],
                LN2=LN2, Z=Z, U=U, R=R, F=F, H2=H2, ms_f=[n[0] for n in nf], rho_f=[n[1] for n in nf],
                LN_f=LNf, h_final=hf, logits=logits, sum_exp=se, p=p, loss=-log(p[TGT]))


def rms_back(g, y, rho):
    n = len(g)
    dot = sum(g[i] * y[i] for i in range(n))
    return [(g[j] - y[j] * dot / n) / rho for j in range(n)]


def backward(P, q):
    """Hand-written chain rule; only the last position reaches the loss after the block."""
    zero4 = lambda: [mpf(0)] * d
    zero6 = lambda: [mpf(0)] * dff
    g = {}
    delta = [q["p"][v] - (1 if v == TGT else 0) for v in range(V)]
    g["grad_logits"] = delta
    g["grad_W_out"] = [[q["h_final"][i] * delta[v] for v in range(V)] for i in range(d)]
    ghf = [sum(P["W_out"][i][v] * delta[v] for v in range(V)) for i in range(d)]
    g["grad_h_final"] = ghf
    gH2 = rms_back(ghf, q["LN_f"][2], q["rho_f"][2])
    g["grad_H2"] = [zero4(), zero4(), gH2]
    g["grad_F"] = g["grad_H2"]
    gR = [sum(P["W_2"][k][j] * gH2[j] for j in range(d)) for k in range(dff)]
    g["grad_R"] = [zero6(), zero6(), gR]
    g["grad_W_2"] = [[q["R"][2][k] * gH2[j] for j in range(d)] for k in range(dff)]
    Z, U = q["Z"][2], q["U"][2]
    gU = [gR[k] * silu(Z[k]) for k in range(dff)]
    gZ = [gR[k] * U[k] * dsilu(Z[k]) for k in range(dff)]
    g["grad_U"] = [zero6(), zero6(), gU]
    g["grad_Z"] = [zero6(), zero6(), gZ]
    g["grad_W_1"] = [[q["LN2"][2][i] * gZ[k] for k in range(dff)] for i in range(d)]
    g["grad_W_3"] = [[q["LN2"][2][i] * gU[k] for k in range(dff)] for i in range(d)]
    gLN2 = [sum(P["W_1"][i][k] * gZ[k] + P["W_3"][i][k] * gU[k] for k in range(dff)) for i in range(d)]
    back = rms_back(gLN2, q["LN2"][2], q["rho2"][2])
    gH1 = [gH2[j] + back[j] for j in range(d)]
    g["grad_H1"] = [zero4(), zero4(), gH1]
    g["grad_Attn"] = g["grad_H1"]
    g["grad_W_O"] = [[q["Attn_heads"][2][i] * gH1[j] for j in range(d)] for i in range(d)]
    return g


def copyP(P):
    return {k: [list(r) for r in v] for k, v in P.items()}


def numgrad(P):
    """Central differences at 90 digits for every trainable scalar (error far below 1e-40)."""
    G = {}
    with mp.workdps(90):
        h = mpf("1e-35")
        for name in PARAMS:
            G[name] = []
            for i in range(len(P[name])):
                row = []
                for j in range(len(P[name][0])):
                    Pp = copyP(P); Pp[name][i][j] += h
                    Pm = copyP(P); Pm[name][i][j] -= h
                    row.append((forward(Pp)["loss"] - forward(Pm)["loss"]) / (2 * h))
                G[name].append(row)
    return G


# ---------------------------------------------------------------- compute everything
q0 = forward(P0)
g0 = backward(P0, q0)
G = numgrad(P0)
for name in ["W_out", "W_2", "W_1", "W_3", "W_O"]:
    worst = max(abs(G[name][i][j] - g0["grad_" + name][i][j])
                for i in range(len(G[name])) for j in range(len(G[name][0])))
    assert worst < mpf("1e-40"), (name, worst)
P1 = copyP(P0)
for name in PARAMS:
    for i in range(len(P1[name])):
        for j in range(len(P1[name][0])):
            P1[name][i][j] -= LR * G[name][i][j]
q1 = forward(P1)


class Node:
    def __init__(self, data):
        self.data = data

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        x = self.data
        for i in idx:
            x = x[i]
        return x


def namespace(P, q, grads):
    ns = {k: Node(v) for k, v in P.items()}
    for k, v in q.items():
        ns[k] = Node(v) if isinstance(v, list) else v
    for k, v in grads.items():
        ns[k] = Node(v)
    return ns


grads0 = dict(g0)
for name in PARAMS:
    grads0["grad_" + name] = G[name]
grads0["grad_X"] = [G["E"][i] for i in INP]
NS0 = namespace(P0, q0, grads0)
NS1 = namespace(P1, q1, {})
ENV = dict(NS0)
ENV.update({w: i for i, w in enumerate(VOCAB)})
ENV.update(sqrt=sqrt, exp=exp, log=log, cos=cos, sin=sin, silu=silu, dsilu=dsilu,
           ln_eps=EPS, lr=LR, sgd1=SimpleNamespace(**NS1))


def value(expr):
    return eval(expr.replace("sgd[1].", "sgd1."), {"__builtins__": {}}, ENV)


# ---------------------------------------------------------------- rounding and parsing
def parse_fig(text):
    """'−0,7500' -> (mpf, decimals, percent?)"""
    t = text.strip().replace("−", "-").replace("\u00a0", " ")
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace(",", ".")
    dec = len(t.split(".")[1]) if "." in t else 0
    return mpf(t), dec, pct


def round_half_away(x, dec):
    s = -1 if x < 0 else 1
    return s * floor(abs(x) * mpf(10) ** dec + mpf("0.5")) / mpf(10) ** dec


def fmt(x, dec, pct=False):
    r = round_half_away(x, dec)
    s = str(int(abs(r)))
    if dec:
        ip, _, fp = mp.nstr(abs(r) + mpf(10) ** (-(dec + 5)), dec + 20).partition(".")
        s = ip + "," + fp[:dec]
    neg = r < 0
    return ("−" if neg else "") + s + (" %" if pct else "")


def rounds_to(x, printed):
    val, dec, pct = parse_fig(printed)
    x = x * 100 if pct else x
    return fmt(x, dec, pct) == printed.strip()


# ---------------------------------------------------------------- every figure of the document
# (line of `pdftotext -layout DOC.pdf -`, figure as printed, quantity); planted ones are in KEY.md.
DOC_FIGURES = [
    (34, "0,3123", "sqrt(ms1[0] + ln_eps)"), (35, "0,4031", "sqrt(ms1[1] + ln_eps)"),
    (36, "0,3674", "sqrt(ms1[2] + ln_eps)"),
    (39, "0,2", "X[2,0]"), (39, "0,3", "X[2,1]"), (39, "−0,5", "X[2,2]"), (39, "0,4", "X[2,3]"),
    (47, "0,8437", "Q[2,0]"), (47, "0", "Q[2,1]"), (47, "−0,5171", "Q[2,2]"), (47, "1,0614", "Q[2,3]"),
    (54, "0,5403", "cos(1)"), (54, "0,8415", "sin(1)"), (54, "−0,4161", "cos(2)"), (55, "0,9093", "sin(2)"),
    (58, "−0,3511", "Q_rot[2,0]"), (60, "0,7672", "Q_rot[2,1]"),
    (62, "−0,5171", "Q[2,2]"), (62, "−0,4161", "cos(2)"), (62, "1,0614", "Q[2,3]"), (62, "0,9093", "sin(2)"),
    (64, "−0,9119", "Q_rot[2,3]"),
    (71, "1,1208", "K_rot[0,0]"), (71, "−0,1281", "K_rot[0,1]"),
    (72, "−0,4783", "K_rot[1,0]"), (72, "−0,1940", "K_rot[1,1]"),
    (73, "−0,4303", "K_rot[2,0]"), (73, "−0,8255", "K_rot[2,1]"),
    (80, "−0,3511", "Q_rot[2,0]"), (80, "−0,4783", "K_rot[1,0]"), (80, "0,7672", "Q_rot[2,1]"),
    (80, "−0,1940", "K_rot[1,1]"), (81, "0,0135", "S[0,2,1]"),
    (88, "−0,3477", "S[0,2,0]"), (88, "0,0135", "S[0,2,1]"), (88, "−0,3410", "S[0,2,2]"),
    (88, "0,2905", "A[0,2,0]"), (88, "0,4170", "A[0,2,1]"), (88, "0,2925", "A[0,2,2]"),
    (89, "−0,3937", "S[1,2,0]"), (89, "−0,3581", "S[1,2,1]"), (89, "−0,4363", "S[1,2,2]"),
    (89, "0,3339", "A[1,2,0]"), (89, "0,3460", "A[1,2,1]"),
    (96, "0,0954", "Attn_heads[2,0]"), (96, "0,1167", "Attn_heads[2,1]"),
    (96, "0,1607", "Attn_heads[2,2]"), (96, "0,3459", "Attn_heads[2,3]"),
    (104, "0,8339", "LN2[2,0]"), (104, "1,1088", "LN2[2,1]"), (104, "−1,1193", "LN2[2,2]"), (104, "0,9067", "LN2[2,3]"),
    (115, "0,2027", "silu(Z[2,1])"), (115, "0,7662", "U[2,1]"), (115, "0,1553", "R[2,1]"),
    (120, "0,9476", "Z[2,0]"), (120, "−0,0058", "U[2,0]"), (120, "−0,0040", "R[2,0]"),
    (121, "0,3462", "Z[2,1]"), (121, "0,7662", "U[2,1]"), (121, "0,1553", "R[2,1]"),
    (122, "−0,3851", "Z[2,2]"), (122, "−0,2187", "U[2,2]"), (122, "0,0341", "R[2,2]"),
    (123, "−0,0514", "U[2,3]"), (123, "−0,0398", "R[2,3]"),
    (124, "0,1317", "Z[2,4]"), (124, "0,8202", "U[2,4]"), (124, "0,0576", "R[2,4]"),
    (125, "−0,3001", "Z[2,5]"), (125, "0,1928", "U[2,5]"), (125, "−0,0246", "R[2,5]"),
    (133, "0,3930", "sqrt(ms_f[2] + ln_eps)"),
    (135, "0,8659", "LN_f[2,0]"), (135, "1,1383", "LN_f[2,1]"), (135, "−1,1126", "LN_f[2,2]"), (135, "0,8463", "LN_f[2,3]"),
    (138, "0,4", "W_out[0,3]"), (138, "−0,3", "W_out[1,3]"), (138, "0,3", "W_out[2,3]"), (138, "0,1", "W_out[3,3]"),
    (140, "0,8659", "h_final[0]"), (140, "1,1383", "h_final[1]"), (140, "−1,1126", "h_final[2]"),
    (140, "0,8463", "h_final[3]"), (140, "−0,2443", "logits[3]"),
    (144, "0,2620", "logits[0]"), (144, "0,1995", "p[0]"), (145, "0,0308", "logits[1]"), (145, "0,1583", "p[1]"),
    (146, "0,9286", "logits[2]"), (146, "0,3885", "p[2]"), (147, "−0,2443", "logits[3]"), (147, "0,1202", "p[3]"),
    (148, "−0,1395", "logits[4]"), (148, "0,1335", "p[4]"),
    (151, "0,1202", "p[caldă]"), (153, "0,1202", "p[caldă]"),
    (161, "0,1202", "p[caldă]"), (161, "−0,8798", "grad_logits[3]"),
    (166, "−0,7618", "grad_W_out[0,3]"), (167, "−1,0015", "grad_W_out[1,3]"),
    (169, "0,9788", "grad_W_out[2,3]"), (170, "−0,7446", "grad_W_out[3,3]"),
    (178, "−1,0970", "grad_H2[2,0]"), (178, "0,6431", "grad_H2[2,1]"), (178, "−0,4565", "grad_H2[2,2]"),
    (178, "−0,3425", "grad_H2[2,3]"),
    (190, "−0,1704", "grad_W_2[1,0]"), (190, "0,0999", "grad_W_2[1,1]"), (191, "−0,0631", "grad_W_2[4,0]"),
    (194, "−0,3216", "grad_R[2,1]"), (196, "0,6697", "dsilu(Z[2,1])"),
    (198, "−0,3216", "grad_R[2,1]"), (198, "0,7662", "U[2,1]"), (198, "0,6697", "dsilu(Z[2,1])"),
    (198, "−0,1650", "grad_Z[2,1]"),
    (203, "−0,1376", "grad_W_1[0,1]"), (203, "−0,1830", "grad_W_1[1,1]"), (203, "0,1847", "grad_W_1[2,1]"),
    (203, "−0,1496", "grad_W_1[3,1]"),
    (210, "−1,9057", "grad_H1[2,0]"), (210, "0,6412", "grad_H1[2,1]"),
    (215, "−0,3063", "grad_W_O[2,0]"), (216, "−0,6592", "grad_W_O[3,0]"), (216, "0,2218", "grad_W_O[3,1]"),
    (228, "0,1", "lr"),
    (230, "0,4", "W_out[0,3]"), (230, "0,1", "lr"), (230, "−0,7618", "grad_W_out[0,3]"), (230, "0,4762", "sgd[1].W_out[0,3]"),
    (231, "0,4", "W_2[1,0]"), (231, "0,1", "lr"), (231, "−0,1704", "grad_W_2[1,0]"), (231, "0,4170", "sgd[1].W_2[1,0]"),
    (232, "0,1", "W_O[3,0]"), (232, "0,1", "lr"), (232, "−0,6592", "grad_W_O[3,0]"), (232, "0,1659", "sgd[1].W_O[3,0]"),
    (234, "0,3488", "sgd[1].p[caldă]"), (235, "1,0533", "sgd[1].loss"),
]


def key_tables(path):
    rows = {"planted": [], "correct": []}
    section = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("## Planted"):
            section = "planted"
        elif line.startswith("## Correct"):
            section = "correct"
        elif section and line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[section].append(cells)
    return rows


def unquote(s):
    return s.strip().strip("`")


def pdf_lines():
    pdf = os.path.join(HERE, "DOC.pdf")
    if not (shutil.which("pdftotext") and os.path.exists(pdf)):
        return None
    out = subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True, check=True).stdout
    return out.decode("utf-8").split("\n")


def main():
    failures = []
    lines = pdf_lines()

    def on_line(line, printed):
        if lines is None:
            return True
        return printed in lines[line - 1]

    # 1. every non-planted figure of the document
    for line, printed, expr in DOC_FIGURES:
        x = value(expr)
        if not rounds_to(x, printed):
            failures.append(f"doc line {line}: {printed} is not the rounding of {expr} = {mp.nstr(x, 15)}")
        if not on_line(line, printed):
            failures.append(f"doc line {line}: {printed} not found on that line")

    # 2. the key
    key = key_tables(os.path.join(HERE, "KEY.md"))
    assert len(key["planted"]) == 8, len(key["planted"])
    assert len(key["correct"]) == 10, len(key["correct"])
    print("Planted errors")
    for cells in key["planted"]:
        printed, line, where, exact, correct, kind, quantity = cells
        printed, correct = unquote(printed), unquote(correct)
        line = int(line)
        names = [unquote(n) for n in quantity.split(" or ")]
        xs = [value(n) for n in names]
        for n, x in zip(names[1:], xs[1:]):
            assert abs(x - xs[0]) < mpf("1e-40"), (names[0], n)
        x = xs[0]
        print(f"  line {line:3d}  {printed:>9}  {names[0]:<22} = {mp.nstr(x, 20)}  (correct {correct})")
        digits = exact.rstrip("…").strip()
        nd = len(digits.split(".")[1])
        if abs(x - mpf(digits)) >= mpf(10) ** (-nd):
            failures.append(f"key exact value {exact} disagrees with {names[0]} = {mp.nstr(x, 20)}")
        if not rounds_to(x, correct):
            failures.append(f"key correct rounding {correct} is not the rounding of {names[0]}")
        if rounds_to(x, printed):
            failures.append(f"planted {printed} (line {line}) is in fact correct")
        if not on_line(line, printed):
            failures.append(f"planted {printed} not found on line {line}")

    print("Correct figures")
    for cells in key["correct"]:
        printed, line, where, quantity = cells
        printed, line = unquote(printed), int(line)
        names = [unquote(n) for n in quantity.split(" or ")]
        x = value(names[0])
        print(f"  line {line:3d}  {printed:>9}  {names[0]:<22} = {mp.nstr(x, 20)}")
        if not rounds_to(x, printed):
            failures.append(f"correct figure {printed} is not the rounding of {names[0]}")
        if not on_line(line, printed):
            failures.append(f"correct figure {printed} not found on line {line}")

    # 3. the arithmetic behind each planted error
    r4 = lambda v: fmt(v, 4)
    checks = [
        ("carried q̃_{3,3}", r4(mpf("-0.5171") * mpf("-0.4161") - mpf("1.0614") * mpf("0.9093")) == "−0,7500"),
        ("operands of q̃_{3,3} are the printed roundings",
         [r4(value(e)) for e in ("Q[2,2]", "cos(2)", "Q[2,3]", "sin(2)")] == ["−0,5171", "−0,4161", "1,0614", "0,9093"]),
        ("last-digit slip α", r4(value("A[1,2,2]")) == "0,3200"),
        ("percent slip", fmt(value("A[0,2,1]"), 3) == "0,417"),
        ("digits swapped", sorted("10451") == sorted("10415") and r4(value("Z[2,3]")) == "1,0451"),
        ("carried loss", r4(-log(mpf("0.1202"))) == "2,1186" and r4(value("p[3]")) == "0,1202"),
        ("sign flip", r4(-value("grad_W_2[4,1]")) == "−0,0370"),
        ("transposed W_O", r4(value("grad_W_O[1,2]")) == "−0,1096"),
        ("forgotten term", r4(value("grad_H1[2,0]")) == "−1,9057"),
        ("grad_X is grad_E's row", value("grad_X[2,0]") == value("grad_E[supă,0]")),
        ("gradient at the untouched rows is zero", value("grad_E[caldă,0]") == 0),
        ("new argmax is caldă", max(range(V), key=lambda v: q1["p"][v]) == TGT),
    ]
    for name, ok in checks:
        if not ok:
            failures.append("check failed: " + name)
    print(f"{len(DOC_FIGURES)} document figures, {len(checks)} planted-arithmetic checks"
          + ("" if lines is not None else " (pdftotext not found: line placement not checked)"))
    if failures:
        print("FAILURES:")
        for f in failures:
            print("  " + f)
        sys.exit(1)
    print("all assertions passed")


if __name__ == "__main__":
    main()
