"""Weights files in the safetensors format, read as the exact binary rationals their floats are.

The format (https://huggingface.co/docs/safetensors): 8 bytes, the little-endian length N of a JSON header; the
header, ``{name: {"dtype": "F32", "shape": [r, c], "data_offsets": [begin, end]}, "__metadata__": {…}}``; then the
data, each tensor's bytes little-endian and C-ordered at its offsets.  It holds no code, so reading one runs
nothing (unlike a pickle).  This reader checks every field before it slices a byte, so a truncated or hostile file
is one :class:`InputError` naming the file and the tensor.

A float is a binary rational m·2^e: :func:`exact` gives it as a Fraction without rounding (never through a
decimal), so a checkpoint's weights enter the exact engine as what the float model computed with.

>>> import tempfile, pathlib, numpy as np
>>> p = pathlib.Path(tempfile.mkdtemp()) / "w.safetensors"
>>> write(p, {"E": np.array([[0.1, -2.0]], dtype=np.float32)})
>>> t = read(p)
>>> t["E"].dtype, t["E"].shape, exact(t["E"])[0][0]
(dtype('float32'), (1, 2), Fraction(13421773, 134217728))
"""
from __future__ import annotations

import functools
import json
import math
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import InputError
from .files import read_bytes

MAX_WEIGHTS_BYTES = 1 << 31
"""A weights file is read only up to this size (2 GiB: GPT-2 small in float32 is 0.5 GB)."""

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "bfloat16"}
"""The float types a weights file may hold, by the format's names (numpy's spellings; bfloat16 is ml_dtypes')."""


@functools.cache
def numpy_dtype(kind: str) -> np.dtype:
    """The numpy dtype of one of :data:`DTYPES`.  ml_dtypes (numpy has no bfloat16) is imported only for BF16:
    its import takes most of a second, and loading a spec needs none of it.

    >>> numpy_dtype("F32"), numpy_dtype("BF16").name
    (dtype('float32'), 'bfloat16')
    """
    if kind == "BF16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(DTYPES[kind])


def read(path, max_bytes: int = MAX_WEIGHTS_BYTES) -> dict:
    """{name: a numpy array of the file's own dtype} of a safetensors file; InputError on anything malformed.

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "x.safetensors"; _ = bad.write_bytes(b"\\x10\\x00")
    >>> read(bad)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    symgpt.core.errors.InputError: ...x.safetensors: not a safetensors file: 2 bytes,
    shorter than its 8-byte header length
    """
    path = Path(path)
    data = read_bytes(path, "weights", max_bytes)
    bad = lambda why: InputError(f"{path}: not a safetensors file: {why}")
    if len(data) < 8:
        raise bad(f"{len(data)} bytes, shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise bad(f"its header claims {n} bytes, but the file has {len(data) - 8} after the length")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except RecursionError:
        raise bad("its header nests too deeply") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise bad(f"its header is not JSON ({str(e).splitlines()[0][:80]})") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        where = f"{path}: tensor {name!r}"
        if not isinstance(info, dict) or set(info) - {"dtype", "shape", "data_offsets"}:
            raise InputError(f"{where}: expected dtype, shape and data_offsets, got {str(info)[:80]}")
        dtype = numpy_dtype(info["dtype"]) if isinstance(info.get("dtype"), str) and info["dtype"] in DTYPES else None
        if dtype is None:
            raise InputError(f"{where}: dtype {info.get('dtype')!r} is not one of {', '.join(DTYPES)} "
                             f"(weights are floats)")
        shape, offs = info.get("shape"), info.get("data_offsets")
        if (not isinstance(shape, list) or not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0
                                                   for k in shape) or len(shape) > 4 or any(k > 2**40 for k in shape)):
            raise InputError(f"{where}: shape {shape!r} is not a list of at most 4 sizes")
        if (not isinstance(offs, list) or len(offs) != 2 or not all(isinstance(k, int) for k in offs)
                or not 0 <= offs[0] <= offs[1] <= len(body)):
            raise InputError(f"{where}: data_offsets {offs!r} do not lie within the {len(body)} data bytes")
        size = math.prod(shape) * dtype.itemsize
        if offs[1] - offs[0] != size:
            raise InputError(f"{where}: {offs[1] - offs[0]} bytes for a {dtype.name} tensor of shape "
                             f"{tuple(shape)}, which needs {size}")
        out[name] = np.frombuffer(body[offs[0]:offs[1]], dtype=dtype).reshape(shape)
    return out


def write(path, tensors: dict, metadata: dict | None = None) -> None:
    """Write ``{name: numpy float array}`` as a safetensors file (dtypes F64, F32, F16, BF16), names sorted.

    The caller writes to a temporary path and moves it into place (a run's outputs appear together or not at all).
    """
    names = sorted(tensors)
    header, offset, blobs = {}, 0, []
    for name in names:
        a = np.ascontiguousarray(tensors[name])
        kind = next((k for k in DTYPES if a.dtype == numpy_dtype(k)), None)   # BF16 last: ml_dtypes only then
        if kind is None:
            raise TypeError(f"{name}: dtype {a.dtype} cannot be written (one of {', '.join(DTYPES)})")
        blob = a.astype(numpy_dtype(kind), copy=False).tobytes()
        header[name] = {"dtype": kind, "shape": list(a.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)                                          # the data starts 8-aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)


def exact(a: np.ndarray) -> list:
    """The entries of a float array as exact Fractions (nested lists in the array's shape).

    NaN and ±∞ are refused: ValueError names the first such entry.

    >>> exact(np.array([0.5, 0.1]))
    [Fraction(1, 2), Fraction(3602879701896397, 36028797018963968)]
    >>> exact(np.array([1.0, np.inf]))
    Traceback (most recent call last):
    ...
    ValueError: entry [1] is inf
    """
    wide = np.asarray(a, dtype=np.float64)          # every F32, F16 and BF16 value is a float64 exactly
    bad = ~np.isfinite(wide)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"entry {list(at)} is {wide[at]}")
    return _nested(wide.tolist())


def _nested(x):
    return [_nested(v) for v in x] if isinstance(x, list) else Fraction(x)
