"""Card abstractions: poker games too big to solve, made small enough to solve.

An abstraction maps a player's information state to an abstract information set: its
cards to a *bucket* per round (``identity``, suit isomorphism ``iso``, or buckets of
equal probability by expected hand strength ``ehs``/``ehs2``), with the real betting.
The CFR family then solves the abstract game and the solution plays the real game.

* :mod:`~nashzoo.abstraction.spec`: how an abstraction is written (``"ehs2:169,50,50,50"``);
* :mod:`~nashzoo.abstraction.isomorphism`: the suit-isomorphism index of poker hands;
* :mod:`~nashzoo.abstraction.small`: games that compile (Leduc and kin): the real tree
  with merged information sets, on which every tabular solver runs unchanged;
* :mod:`~nashzoo.abstraction.holdem`: Texas Hold'em's E[HS]/E[HS^2] bucket tables;
* :mod:`~nashzoo.abstraction.features`: hand-strength columns read from Hold'em tensor
  rows, for the networks of learners that read them;
* :mod:`~nashzoo.abstraction.betting`: the betting tree of a limit poker game, which the
  sampled-deal solver (:mod:`nashzoo.agents.cfr.abstract`) walks;
* :mod:`~nashzoo.abstraction.layout`: where each abstract information set of a Hold'em
  abstraction lives (betting decision x buckets), shared by the solver and the policy
  file (:mod:`nashzoo.agents.cfr.abstract_policy`).

The ``how-to/solve-holdem`` page shows the whole path from the command line.
"""

from nashzoo.abstraction.spec import AbstractionSpec, parse_abstraction

__all__ = ["AbstractionSpec", "parse_abstraction"]
