"""The wrapper ``env()`` returns: PettingZoo's OrderEnforcingWrapper with direct hot paths.

On a stock wrapper, ``last()`` reads six attributes and the ``agent_iter`` loop two more, each
through two ``__getattr__`` hops; that cost is paid on every step of every training loop. Here
``last``, ``step``, ``agents`` and ``agent_selection`` go to the wrapped env in one hop.
The ``agent_iter`` loop's iterator reads the wrapped env directly too.
Behaviour is unchanged: the same errors before ``reset()``, the same warning after the end.
"""
from __future__ import annotations

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


class OrderEnforcing(OrderEnforcingWrapper):
    def _check_reset(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agents(self):
        if not self._has_reset:
            self._check_reset("agents")
        return self.env.agents

    @property
    def agent_selection(self):
        if not self._has_reset:
            self._check_reset("agent_selection")
        return self.env.agent_selection

    def last(self, observe: bool = True):
        if not self._has_reset:
            self._check_reset("agent_selection")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing iterator (the same checks, in the same order) with one hop
    to the wrapped env instead of a property and a ``super()`` call per step."""

    def __next__(self):
        env = self.env
        inner = env.env
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return inner.agent_selection


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self):
        return _Iterator(self.env, self.max_iter)
