"""Neural Fictitious Self-Play (torch extra): :class:`NFSP`, :class:`NFSPConfig`,
:class:`NFSPAgent`."""

from nashzoo.agents.nfsp.config import NFSPConfig
from nashzoo.agents.nfsp.nfsp import NFSP, NFSPAgent

__all__ = ["NFSP", "NFSPAgent", "NFSPConfig"]
