"""Kernels written beside their algorithms and compiled on first use (issue 30, item 5):
importing a solver loads no numba, one function gets one compiled dispatcher wherever it
is imported, and an imported kernel's own calls resolve in its own module."""

import subprocess
import sys

import numpy as np

from nashzoo.tree import sampling
from nashzoo.tree.jit import compile_kernels, kernel
from nashzoo.tree.sampling import next_uniform, rng_state


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
    # (`next_uniform` is this module's global, as in a solver module: imported inside the
    # test it was a closure over the plain function, and the test passed only where an
    # earlier test in the process had compiled the sampling module)
    @kernel
    def draws(state, n):
        out = np.empty(n)
        for i in range(n):
            out[i] = next_uniform(state)
        return out

    namespace = {"draws": draws, "np": np}
    draws.__globals__.update(namespace)  # the test module stands in for a solver module
    compile_kernels(draws.__globals__)
    compiled = draws.__globals__["draws"]
    assert type(compiled).__name__ == "CPUDispatcher"
    # the same dispatcher serves the sampling module itself
    assert draws.__globals__["next_uniform"] is vars(sampling)["next_uniform"]
    a, b = compiled(rng_state(5), 4), compiled(rng_state(5), 4)
    assert np.array_equal(a, b) and ((a >= 0) & (a < 1)).all() and len(set(a)) == 4


def test_kernel_tables_stay_read_only_when_replaced_or_unpickled():
    # Numba types a read-only array apart from a writeable one, so tables reaching a kernel
    # both ways compiled it twice: a card abstraction's tree (built by dataclasses.replace)
    # and anything a multiprocessing worker unpickles (protocols below 5 restore arrays
    # writeable) came writeable where compile_game's trees are read-only.
    import pickle

    import numba

    import nashzoo
    from nashzoo.abstraction.betting import betting_tree
    from nashzoo.abstraction.holdem import _finish
    from nashzoo.abstraction.small import abstract_tree
    from nashzoo.tree import compile_game
    from nashzoo.tree.views import views_of

    leduc = nashzoo.make_game("nashzoo/leduc_holdem-v0")
    tree = compile_game(leduc)
    abstract = abstract_tree(leduc, "iso").tree
    tables = {
        "tree": tree,
        "abstraction": abstract,
        "views": views_of(tree),
        "betting": betting_tree(nashzoo.make_game("nashzoo/limit_holdem-v0")),
        # a computed bucket table arrives as int64 and is stored as int32 (a new array)
        "buckets": _finish("ehs", (2, 2, 2, 2), *(np.array([0, 1, 1]),) * 3, np.array([5])),
    }
    for name, obj in tables.items():
        for protocol in (None, 4, 5):
            again = obj if protocol is None else pickle.loads(pickle.dumps(obj, protocol))
            arrays = [v for v in vars(again).values() if isinstance(v, np.ndarray)]
            assert arrays, name
            assert not any(a.flags.writeable for a in arrays), (name, protocol)
    assert tables["buckets"].preflop.dtype == np.int32
    unpickled = pickle.loads(pickle.dumps(tree))
    assert (
        numba.typeof(unpickled.arrays) == numba.typeof(abstract.arrays) == numba.typeof(tree.arrays)
    )
