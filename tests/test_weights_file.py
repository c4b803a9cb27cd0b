"""weights.file: a safetensors file beside a spec, read by symgpt itself, every field checked.

Independent references: the safetensors library writes the files (its numpy API), and the exact value of a float
is Python's own Fraction(float); hostile files each give one error naming the spec, the key and the tensor.
"""
from __future__ import annotations

import json
import struct
from fractions import Fraction

import numpy as np
import pytest

from symgpt.core.errors import InputError
from symgpt.engine.spec import load_spec

import hostile
from conftest import SEED, write_spec

safetensors_numpy = pytest.importorskip("safetensors.numpy")

HEAD = """[model]
kind = "transformer"
vocab = ["a", "b", "c"]
d = 2
heads = 1
d_ff = 2
layers = {layers}
ln_eps = 1e-5

[data]
input = ["a", "b"]
target = "c"

[weights]
file = "w.safetensors"
"""


def _weights(layers: int, dtype=np.float32, seed=0) -> dict:
    rng = np.random.default_rng(seed)
    t = {"E": rng.normal(size=(3, 2)).astype(dtype)}
    for l in range(layers):
        p = "" if layers == 1 else f"l{l}."
        t |= {p + k: rng.normal(size=(2, 2)) for k in ("W_Q", "W_K", "W_V", "W_1", "W_2")}
        t |= {p + k: rng.normal(size=2) for k in ("b_1", "b_2")}
    return {k: np.asarray(v, dtype=dtype) for k, v in t.items()}


@pytest.mark.parametrize("layers,dtype", [(1, np.float32), (2, np.float64), (1, np.float16)])
def test_a_file_written_by_safetensors_loads_as_exact_binary_rationals(tmp_path, layers, dtype):
    t = _weights(layers, dtype)
    safetensors_numpy.save_file(t, str(tmp_path / "w.safetensors"))
    s = load_spec(write_spec(tmp_path, HEAD.format(layers=layers)))
    p = "" if layers == 1 else "l1."
    assert s.params["E"][2][1] == Fraction(float(t["E"][2, 1]))
    assert s.params[p + "W_2"][0][1] == Fraction(float(t[p + "W_2"][0, 1]))
    assert s.params[p + "gamma1"] == [1, 1]            # left out of the file: the op's default
    # the raw tree keeps no second copy of a block's weights, only where they came from
    assert all(v == "(weights.file)" for v in s.raw["layer"][layers - 1].values())


def test_a_bfloat16_tensor_loads_as_the_rationals_its_bits_are(tmp_path):
    """BF16 (read with ml_dtypes' type, imported only for it): sign, 8 exponent bits (bias 127), 7 significand
    bits, worked by hand: 0x3DCD = 2⁻⁴·205/128, the smallest subnormal 2⁻¹³³, the largest 255·2¹²⁰, −0."""
    bits = [0x3DCD, 0xC000, 0x3F80, 0x0001, 0x7F7F, 0x8000]
    rest = {k: v for k, v in _weights(1).items() if k != "E"}
    header, blobs, offset = {}, [], 0
    for name, kind, shape, blob in [("E", "BF16", [3, 2], struct.pack("<6H", *bits))] + \
            [(k, "F32", list(v.shape), v.astype("<f4").tobytes()) for k, v in rest.items()]:
        header[name] = {"dtype": kind, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    _raw(tmp_path / "w.safetensors", header, b"".join(blobs))
    s = load_spec(write_spec(tmp_path, HEAD.format(layers=1)))
    assert s.params["E"] == [[Fraction(205, 2048), -2], [1, Fraction(1, 2 ** 133)], [255 * 2 ** 120, 0]]
    assert s.params["W_Q"][1][0] == Fraction(float(rest["W_Q"][1, 0]))


def _raw(path, header: dict, data: bytes = b"", n: int | None = None):
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if n is None else n) + text + data)


def test_hostile_weights_files_are_one_clear_error(tmp_path):
    spec = write_spec(tmp_path, HEAD.format(layers=1))
    w = tmp_path / "w.safetensors"
    f32 = np.zeros(6, np.float32).tobytes()
    cases = [
        (lambda: w.write_bytes(b"\x01"), "shorter than its 8-byte header length"),
        (lambda: _raw(w, {}, n=10**12), "its header claims"),
        (lambda: w.write_bytes(struct.pack("<Q", 3) + b"[1]"), "not a JSON object"),
        (lambda: w.write_bytes(struct.pack("<Q", 3) + b"{1:"), "not JSON"),
        (lambda: _raw(w, {"E": {"dtype": "I64", "shape": [3, 2], "data_offsets": [0, 48]}}, b"\0" * 48),
         "dtype 'I64' is not one of"),
        (lambda: _raw(w, {"E": {"dtype": "F32", "shape": [3, 2], "data_offsets": [0, 240]}}, f32),
         "do not lie within"),
        (lambda: _raw(w, {"E": {"dtype": "F32", "shape": [3, 3], "data_offsets": [0, 24]}}, f32), "which needs 36"),
        (lambda: _raw(w, {"E": {"dtype": "F32", "shape": [3, 2], "data_offsets": [0, 24], "x": 1}}, f32),
         "expected dtype, shape and data_offsets"),
        (lambda: safetensors_numpy.save_file(_weights(1) | {"l7.W_Q": np.zeros((2, 2), np.float32)}, str(w)),
         "tensor 'l7.W_Q' is no parameter of this spec"),
        (lambda: safetensors_numpy.save_file({k: (v if k != "W_1" else np.full((2, 2), np.nan, np.float32))
                                              for k, v in _weights(1).items()}, str(w)), "weights must be finite"),
        (lambda: safetensors_numpy.save_file({k: v for k, v in _weights(1).items() if k != "W_1"}, str(w)),
         "layer[0].W_1: missing"),
        (lambda: safetensors_numpy.save_file(_weights(1) | {"E": np.zeros((2, 2), np.float32)}, str(w)),
         "weights.E: expected a 3×2 matrix"),
        (lambda: _raw(w, {"E": {"dtype": ["F32"], "shape": [3, 2], "data_offsets": [0, 24]}}, f32), "is not one of"),
        (lambda: w.write_bytes(struct.pack("<Q", 200000) + b"[" * 100000 + b"]" * 100000), "nests too deeply"),
        (lambda: _raw(w, {"E": {"dtype": "F32", "shape": [0, 2**70], "data_offsets": [0, 0]}}), "is not a list of"),
        (lambda: safetensors_numpy.save_file(_weights(1) | {"file": np.zeros(2, np.float32)}, str(w)),
         "tensor 'file' is no parameter"),
        (lambda: (w.unlink(), w.mkdir()), "expected a weights file, got a directory"),
    ]
    for make, said in cases:
        if w.is_dir():
            w.rmdir()
        make()
        with pytest.raises(InputError) as e:
            load_spec(spec)
        msg = str(e.value)
        assert said in msg and str(spec) in msg and "\n" not in msg, (said, msg)
        o = hostile.render(str(spec), "--format", "md", "--out", str(tmp_path / "out"))
        assert o.code == 2 and said in o.err and "Traceback" not in o.err and not (tmp_path / "out").exists()


def test_a_tensor_given_twice_and_a_missing_file(tmp_path):
    safetensors_numpy.save_file(_weights(1), str(tmp_path / "w.safetensors"))
    twice = HEAD.format(layers=1).replace('file = "w.safetensors"\n',
                                          'file = "w.safetensors"\nE = [[0, 0], [0, 0], [0, 0]]\n')
    with pytest.raises(InputError, match=r"weights\.E: given twice"):
        load_spec(write_spec(tmp_path, twice, "twice.toml"))
    gone = HEAD.format(layers=1).replace("w.safetensors", "gone.safetensors")
    with pytest.raises(InputError, match=r"weights\.file: .*gone\.safetensors: no such weights file"):
        load_spec(write_spec(tmp_path, gone, "gone.toml"))
    bad = SEED.read_text(encoding="utf-8").replace("[weights]\n", "[weights]\nfile = 3\n")
    with pytest.raises(InputError, match=r"weights\.file: expected the name of a \.safetensors file"):
        load_spec(write_spec(tmp_path, bad, "bad.toml"))


def test_a_weights_file_with_too_few_layer_tables(tmp_path):
    safetensors_numpy.save_file(_weights(2), str(tmp_path / "w.safetensors"))
    text = HEAD.format(layers=2) + "\n[[layer]]\n"
    with pytest.raises(InputError, match=r"layer: expected 2 \[\[layer\]\] tables .*, got 1"):
        load_spec(write_spec(tmp_path, text))
