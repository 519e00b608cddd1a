"""The wrapper ``env()`` returns: PettingZoo's OrderEnforcingWrapper with a direct ``last()``.

PettingZoo's ``AECEnv.last`` reads six attributes; called on a wrapper, each read goes through
two ``__getattr__`` hops. That cost is paid on every step of every training loop, so ``last`` is
forwarded to the wrapped env in one call. Behaviour is unchanged: before ``reset()`` it raises the
same AttributeError the stock wrapper raises for ``agent_selection``.
"""
from __future__ import annotations

from pettingzoo.utils.wrappers import OrderEnforcingWrapper


class OrderEnforcing(OrderEnforcingWrapper):
    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)
