"""Information-set Monte Carlo tree search (issue 12; in progress).

So far: :mod:`nashzoo.agents.ismcts.interval`, the exact L1-ball extremum of
Nash-ISMCTS's epsilon-mechanism (``../shared/NASH_ISMCTS.md`` section 3). The worlds a
search may imagine come from :mod:`nashzoo.games.worlds`.
"""

from nashzoo.agents.ismcts.interval import ball_interval, ball_max, ball_min

__all__ = ["ball_max", "ball_min", "ball_interval"]
