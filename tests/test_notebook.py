"""examples/tour.ipynb runs from top to bottom in a real kernel, and shows the right numbers.

The notebook is stored without outputs; here nbclient executes it in an
IPython kernel started from the running interpreter (a kernelspec written to a
temporary folder, the checkout first on ``PYTHONPATH`` and as the working
directory), fails on any cell's error, and compares a few outputs with
independent values: the 50-digit loss and A[1,0] with the pure-mpmath oracle,
the certified comparisons with their expected truth values.  Marked ``slow``:
it starts a kernel.
"""
from __future__ import annotations

import json
import os
import re
import sys
import tomllib

import nbformat
import pytest

import oracle
from conftest import BIGRAM, ORACLE_DPS, ROOT, SEED, assert_significant, ref_round_significant

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

TOUR = ROOT / "examples" / "tour.ipynb"
pytestmark = pytest.mark.slow


def test_the_tour_is_stored_without_outputs():
    nb = nbformat.read(TOUR, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The tour executed in a kernel of this interpreter, with this checkout's symgpt."""
    kernels = tmp_path_factory.mktemp("kernels")
    spec = kernels / "symgpt-tour"
    spec.mkdir()
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "symgpt tour", "language": "python",
        "env": {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}}))
    km = KernelManager(kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]),
                       kernel_name="symgpt-tour")
    nb = nbformat.read(TOUR, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("print(symgpt.__file__)", metadata={"tags": ["where"]}))
    NotebookClient(nb, km=km, timeout=600, allow_errors=False,
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    return {tag: cell for cell in nb.cells for tag in cell.metadata.get("tags", [])}


def _out(cell, mime="text/plain") -> str:
    for o in cell.outputs:
        if o.output_type == "stream":
            return o.text
        if mime in o.get("data", {}):
            return o.data[mime]
    raise AssertionError(f"no {mime} output in {cell.source!r}: {cell.outputs}")


def test_the_kernel_imports_this_checkout(executed):
    assert _out(executed["where"]).strip() == str(ROOT / "symgpt" / "__init__.py")


def test_the_outputs_are_the_right_numbers(executed):
    f = oracle.transformer_forward(oracle.load_spec(SEED), dps=ORACLE_DPS)
    loss = _out(executed["loss50"]).strip().strip("'")
    assert loss == ref_round_significant(f["loss"], 50)
    a = executed["A"]
    shown = re.search(r"A_\{1,0\} &\\approx (\S+)", _out(a, "text/latex"))[1]
    assert_significant(shown, f["A"][1][0], 12)
    assert "$$" in _out(a, "text/markdown") and "worked line" in _out(a, "text/markdown").lower()
    assert _out(executed["derivation"]).startswith("<Derivation tiny-transformer: transformer V=6 d=2 ")
    assert "text/markdown" in executed["derivation"].outputs[0].data
    assert _out(executed["p_minus_y"]).strip() == "True"
    assert _out(executed["descent"]).strip() == "True"
    target = tomllib.loads(SEED.read_text(encoding="utf-8"))["data"]["target"]
    assert _out(executed["definition"]).strip() == f"p[{target}] - 1"     # the token, not its id
    assert "sgd[1].loss" in _out(executed["trace"], "text/markdown")


def test_the_trace_tables_show_the_specs_report_steps(executed):
    """The bigram's table lists step 0 and the steps its spec's ``report`` names, in order."""
    raw = tomllib.loads(BIGRAM.read_text(encoding="utf-8"))["training"]
    shown = re.findall(r"`sgd\[(\d+)\]\.loss`", _out(executed["bigram_trace"], "text/markdown"))
    assert [int(k) for k in shown] == sorted({0, raw["steps"], *raw["report"]})


def test_the_trace_hint_names_a_variable_the_tour_defines(executed):
    """The hint's ``X.value(k, …)`` is something the tour's cells assign (``sgd = d.trace("sgd")``)."""
    hint = re.search(r"`(\w+)\.value\(k, ", _out(executed["trace"], "text/markdown"))[1]
    assert re.search(rf"^{hint} = d\.trace\(", executed["trace"].source, re.M)
