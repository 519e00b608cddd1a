"""envs.core.wrappers.OrderEnforcing: PettingZoo's order checks with one-hop hot paths."""
import numpy as np
import pytest
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from tabletop_arena import envs


def test_same_errors_before_reset_as_the_stock_wrapper():
    env = envs.make("zaka_v0")
    assert isinstance(env, OrderEnforcingWrapper)
    for name in ("agents", "agent_selection"):
        with pytest.raises(AttributeError):
            getattr(env, name)
    with pytest.raises(AttributeError):
        env.last()
    stock = OrderEnforcingWrapper(envs.make_raw("zaka_v0"))
    assert _error_of(lambda: env.step(0)) is _error_of(lambda: stock.step(0)) is not None


def _error_of(call):
    """The class of the exception ``call()`` raises (None if it raises none)."""
    try:
        call()
    except Exception as exc:  # whichever error the stock wrapper raises: compared, not assumed
        return type(exc)
    return None


def test_loop_matches_the_raw_env_and_warns_after_the_end(caplog):
    env, raw = envs.make("zaka_v0"), envs.make_raw("zaka_v0")
    env.reset(seed=3)
    raw.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        assert agent == raw.agent_selection == env.agent_selection
        obs, rew, term, trunc, info = env.last()
        robs, rrew, rterm, rtrunc, _ = raw.last()
        assert np.array_equal(obs["observation"], robs["observation"]) and rew == rrew
        assert (term, trunc) == (rterm, rtrunc)
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        raw.step(a)
    assert env.agents == [] == raw.agents
    env.step(None)
    assert "step() called after all agents are terminated" in caplog.text


def test_agent_iter_keeps_the_stock_checks():
    """The one-hop ``agent_iter`` iterator: the stock wrapper's errors before reset, its
    assertion when a loop forgets to step, its ``max_iter`` and the same agent sequence."""
    env = envs.make("zaka_v0")
    stock = OrderEnforcingWrapper(envs.make_raw("zaka_v0"))
    assert _error_of(env.agent_iter) is _error_of(stock.agent_iter) is not None
    for e in (env, stock):
        e.reset(seed=5)
    for e in (env, stock):
        it = iter(e.agent_iter())
        assert next(it) == e.agent_selection
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)
    seqs = []
    for e in (env, stock):
        e.reset(seed=5)
        seq, rng = [], np.random.default_rng(1)
        for agent in e.agent_iter(max_iter=7):  # stops after 7 names, as the stock one does
            seq.append(agent)
            obs = e.last()[0]
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        seqs.append(seq)
    assert len(seqs[0]) == 7 and seqs[0] == seqs[1]
