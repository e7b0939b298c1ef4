"""Information-set Monte Carlo tree search: MT-ISMCTS, A-ISMCTS and Nash-ISMCTS.

``docs/explanation/nash-ismcts.md`` is the specification. The pieces, bottom up:

* :mod:`~nashzoo.agents.ismcts.interval`: the exact L1-ball extremum of the
  epsilon-mechanism;
* :mod:`~nashzoo.agents.ismcts.tables`: what a search knows besides the rules (P, V, V_c,
  H, V_w over every view), from networks, an oracle, or nothing;
* :mod:`~nashzoo.agents.ismcts.kernel` and :mod:`~nashzoo.agents.ismcts.search`: the
  compiled search and its driver (:class:`SearchConfig`, :class:`Search`);
* :mod:`~nashzoo.agents.ismcts.agent`: :class:`ISMCTSAgent`, the PolicyAgent;
* :mod:`~nashzoo.agents.ismcts.rules`: MT-ISMCTS over the rules for games too big to
  compile (:class:`RulesSearch`, :class:`RulesISMCTSAgent`);
* :mod:`~nashzoo.agents.ismcts.knowledge` and :mod:`~nashzoo.agents.ismcts.rules_nash`:
  A-ISMCTS and Nash-ISMCTS over the rules, asking P, V, V_c, H, V_w view by view
  (networks evaluated at search time, in batches: :class:`RulesNashSearch`);
  :mod:`~nashzoo.agents.ismcts.rules_agent`: the search and its prior P as agents
  (:class:`RulesNashAgent`); :mod:`~nashzoo.agents.ismcts.rules_train` trains their
  networks by self-play (torch extra), playing the games of
  :mod:`~nashzoo.agents.ismcts.rules_selfplay`.

The worlds a search may imagine come from :mod:`nashzoo.tree.views` (and, state by
state, from the rules: :mod:`nashzoo.games.hidden`).
"""

from nashzoo.agents.ismcts.agent import ISMCTSAgent
from nashzoo.agents.ismcts.interval import ball_interval, ball_max, ball_min
from nashzoo.agents.ismcts.knowledge import (
    Knowledge,
    NetworkKnowledge,
    TablesKnowledge,
    UninformedKnowledge,
)
from nashzoo.agents.ismcts.rules import RulesISMCTSAgent, RulesSearch, RulesSearchResult
from nashzoo.agents.ismcts.rules_agent import RulesNashAgent
from nashzoo.agents.ismcts.rules_nash import RulesNashSearch, run_searches
from nashzoo.agents.ismcts.search import Search, SearchConfig, SearchResult
from nashzoo.agents.ismcts.tables import SearchTables

__all__ = [
    "ISMCTSAgent",
    "Knowledge",
    "NetworkKnowledge",
    "TablesKnowledge",
    "UninformedKnowledge",
    "RulesNashAgent",
    "RulesNashSearch",
    "run_searches",
    "RulesISMCTSAgent",
    "RulesSearch",
    "RulesSearchResult",
    "Search",
    "SearchConfig",
    "SearchResult",
    "SearchTables",
    "ball_max",
    "ball_min",
    "ball_interval",
]
