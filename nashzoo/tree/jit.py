"""Compiled loops written beside their algorithms, compiled on first use.

A solver module writes its loop as plain Python marked :func:`kernel` and calls
:func:`compile_kernels` before its first run: numba then compiles (or loads from its
cache) every marked function of the module, and the module's names point at the compiled
versions. So importing a solver (which building any agent does) never loads numba, and a
reader finds the algorithm in the solver's own module::

    @kernel
    def cfr_run(n_iters, tree, sigma, ...):
        ...

    def _compiled() -> None:
        compile_kernels(globals())

A kernel may call any marked function or numba dispatcher of its module's namespace,
imported ones included (``from nashzoo.tree.kernels import forward_reach``); each
function gets one compiled dispatcher, shared by every module that imports it.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from types import FunctionType
from typing import Any, TypeVar

import numpy as np

__all__ = ["kernel", "compile_kernels", "use_user_cache", "ReadOnlyTables"]

_F = TypeVar("_F", bound=Callable[..., Any])
_MARK = "__nashzoo_kernel__"
_DISPATCHERS: dict[Any, Any] = {}


def use_user_cache() -> None:
    """Cache compiled kernels in the user's cache directory
    (:func:`nashzoo.extras.use_numba_user_cache`)."""
    from nashzoo.extras import use_numba_user_cache

    use_numba_user_cache()


def kernel(fn: _F | None = None, *, nogil: bool = False) -> Any:
    """Mark ``fn`` to be compiled by :func:`compile_kernels` (returns it unchanged);
    ``@kernel(nogil=True)`` compiles it to release the GIL while it runs, so that threads
    run it side by side (on arrays they share or own)."""

    def mark(f: _F) -> _F:
        setattr(f, _MARK, {"nogil": True} if nogil else {})
        return f

    return mark if fn is None else mark(fn)


def compile_kernels(namespace: MutableMapping[str, Any], **dispatchers: Any) -> None:
    """Compile every :func:`kernel` of ``namespace`` (a module's ``globals()``) with
    ``numba.njit(cache=True)`` and rebind its names to the compiled functions, after
    adding ``dispatchers`` (compiled functions the kernels call that the module does not
    import). An imported kernel's own module is compiled too (its calls resolve there).
    Runs once per module; later calls return at once."""
    if namespace.get("__nashzoo_compiled__"):
        return
    from numba import njit

    use_user_cache()
    namespace["__nashzoo_compiled__"] = True
    namespace.update(dispatchers)
    for name, obj in list(namespace.items()):
        if isinstance(obj, FunctionType) and getattr(obj, _MARK, None) is not None:
            # an imported kernel calls what its own module names: compile that one too
            compile_kernels(obj.__globals__)
            if obj not in _DISPATCHERS:
                _DISPATCHERS[obj] = njit(cache=True, **getattr(obj, _MARK))(obj)
            namespace[name] = _DISPATCHERS[obj]


class ReadOnlyTables:
    """Base of a frozen dataclass of arrays that kernels only read: every array attribute
    (and every array in a tuple attribute, such as a cached named tuple of them) is made
    read-only when the object is built, by ``dataclasses.replace`` too, and again when it
    is unpickled (protocols below 5, which multiprocessing uses, restore arrays
    writeable).

    Numba types a read-only array apart from a writeable one: the same tables reaching a
    kernel both ways (built in one process, unpickled in a worker) compiled it twice, and
    on a cold cache a large kernel takes tens of seconds to compile."""

    def __post_init__(self) -> None:
        _freeze(vars(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        _freeze(state)
        self.__dict__.update(state)


def _freeze(attributes: dict[str, Any]) -> None:
    for value in attributes.values():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, np.ndarray):
                item.setflags(write=False)
