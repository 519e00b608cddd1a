"""The wrapper ``env()`` returns: PettingZoo's OrderEnforcingWrapper with direct hot paths.

On a stock wrapper, ``last()`` reads six attributes and the ``agent_iter`` loop two more, each
through two ``__getattr__`` hops; that cost is paid on every step of every training loop. Here
``last``, ``step``, ``agents`` and ``agent_selection`` go to the wrapped env in one hop.
Behaviour is unchanged: the same errors before ``reset()``, the same warning after the end.
"""
from __future__ import annotations

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper


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
