"""Start-up hook of the processes the tests start, under `make coverage` only (its
PYTHONPATH names this folder): numba compiles there untraced and in a roomy frame, as in
the pytest processes (``numba_compile.py``, beside this file)."""

import numba_compile

numba_compile.install_on_import()
