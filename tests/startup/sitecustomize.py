"""Start-up hook of the processes the tests start, under `make test` and `make coverage`
(their PYTHONPATH names this folder): numba compiles there untraced and in a roomy frame,
and is logged, as in the pytest processes (``numba_compile.py``, beside this file)."""

import numba_compile

numba_compile.install_on_import()
