"""Kernels written beside their algorithms and compiled on first use (issue 30, item 5):
importing a solver loads no numba, one function gets one compiled dispatcher wherever it
is imported, and an imported kernel's own calls resolve in its own module."""

import subprocess
import sys

import numpy as np

from nashzoo.tree.jit import compile_kernels, kernel


def test_a_solver_module_compiles_on_its_first_run_not_on_import():
    code = (
        "import sys\n"
        "import nashzoo.agents.cfr.cfr as m\n"
        "before = 'numba' in sys.modules\n"
        "from nashzoo.games import KuhnPokerGame\n"
        "s = m.CFRPlusSolver(KuhnPokerGame()).iterate(10)\n"
        "print(before, 'numba' in sys.modules, type(m.cfr_run).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "CPUDispatcher"]


def test_an_imported_kernel_is_compiled_once_with_its_own_module():
    from nashzoo.tree import sampling
    from nashzoo.tree.sampling import next_uniform, rng_state

    @kernel
    def draws(state, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = next_uniform(state)
        return out

    namespace = {"draws": draws, "next_uniform": next_uniform, "np": np}
    draws.__globals__.update(namespace)  # the test module stands in for a solver module
    compile_kernels(draws.__globals__)
    compiled = draws.__globals__["draws"]
    assert type(compiled).__name__ == "CPUDispatcher"
    # the same dispatcher serves the sampling module itself
    assert draws.__globals__["next_uniform"] is vars(sampling)["next_uniform"]
    a, b = compiled(rng_state(5), 4), compiled(rng_state(5), 4)
    assert np.array_equal(a, b) and ((a >= 0) & (a < 1)).all() and len(set(a)) == 4
