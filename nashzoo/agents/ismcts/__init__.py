"""Information-set Monte Carlo tree search: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS.

``docs/explanation/nash-ismcts.md`` is the specification. The pieces, bottom up:

* :mod:`~nashzoo.agents.ismcts.config`: the settings (:class:`SearchConfig`) and what a
  search returns (:class:`SearchResult`);
* :mod:`~nashzoo.agents.ismcts.interval`: the exact L1-ball extremum of the
  epsilon-mechanism;
* :mod:`~nashzoo.agents.ismcts.knowledge` and :mod:`~nashzoo.agents.ismcts.tables`: what a
  search knows besides the rules (P, V, V_c, H, V_w), asked view by view (networks
  evaluated at search time, in batches) or tabulated over every view of a small game;
* :mod:`~nashzoo.agents.ismcts.search`: the one search, :class:`ISMCTSSearch`, over any
  state of any two-player game; :mod:`~nashzoo.agents.ismcts.kernel` and
  :mod:`~nashzoo.agents.ismcts.compiled` are its compiled fast path, taken where the
  knowledge is tables of a compiled game;
* :mod:`~nashzoo.agents.ismcts.agent`: :class:`ISMCTSAgent`, the search as a PolicyAgent;
  :mod:`~nashzoo.agents.ismcts.prior`: its prior P alone, without search;
* :mod:`~nashzoo.agents.ismcts.train` trains the networks by self-play on any game
  (torch extra): the network tabulated over every view where the game compiles (its fast
  path, the games of :mod:`~nashzoo.agents.ismcts.selfplay`), evaluated at search time
  elsewhere (:mod:`~nashzoo.agents.ismcts.selfplay_large`), with the loss of
  :mod:`~nashzoo.agents.ismcts.losses`.

The worlds a search may imagine come from :mod:`nashzoo.tree.views` (and, state by
state, from the rules: :mod:`nashzoo.games.hidden`).
"""

from nashzoo.agents.ismcts.agent import ISMCTSAgent
from nashzoo.agents.ismcts.compiled import CompiledSearch
from nashzoo.agents.ismcts.config import SearchConfig, SearchResult
from nashzoo.agents.ismcts.interval import ball_interval, ball_max, ball_min
from nashzoo.agents.ismcts.knowledge import (
    Knowledge,
    NetworkKnowledge,
    TablesKnowledge,
    UninformedKnowledge,
)
from nashzoo.agents.ismcts.search import ISMCTSSearch, run_searches
from nashzoo.agents.ismcts.tables import SearchTables

__all__ = [
    "ISMCTSAgent",
    "ISMCTSSearch",
    "CompiledSearch",
    "Knowledge",
    "NetworkKnowledge",
    "TablesKnowledge",
    "UninformedKnowledge",
    "run_searches",
    "SearchConfig",
    "SearchResult",
    "SearchTables",
    "ball_max",
    "ball_min",
    "ball_interval",
]
