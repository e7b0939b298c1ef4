"""Testing tools: :func:`check_env` for env conformance, and in
:mod:`nashzoo.testing.hostile` a zoo of misbehaving agents for harness tests."""

from nashzoo.testing.check_env import EnvCheckReport, check_env

__all__ = ["check_env", "EnvCheckReport"]
