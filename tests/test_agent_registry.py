"""One table of agent kinds (issue 44): ``agents.registry.AGENT_KINDS`` builds every kind, and the
command line's help, ``arena serve``'s checks, the training config's ``opponent_mix`` check and the
docs are derived from it (they were seven hand-written lists that disagreed: the config refused
``puct``, ``rollout`` and ``vlook`` opponents, the help wrote the specs three ways)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tabletop_arena import envs
from tabletop_arena.agents import registry
from tabletop_arena.agents.registry import AGENT_KINDS, AgentKind, AgentSpecError, make_agent
from tabletop_arena.agents.shipped import agent_kind, shipped_agents


def spec_cases() -> list[tuple[str, str, dict]]:
    """(spec, game id, options) of every kind for every game it applies to: N = 2 for a count,
    REF each shipped agent of the game that plays that kind of checkpoint."""
    cases = []
    for game in envs.names():
        for kind in AGENT_KINDS.values():
            if not kind.available(game):
                continue
            head = kind.name + (":2" if kind.count else "")
            if kind.checkpoint is None:
                cases.append((head, game, {}))
                continue
            for name, entry in shipped_agents().items():
                if entry.get("game") == game and agent_kind(entry) == kind.checkpoint:
                    cases.append((f"{head}:{name}", game, dict(entry.get("options") or {})))
    return cases


CASES = spec_cases()


def test_the_cases_cover_every_kind_and_game():
    assert {spec.split(":")[0] for spec, _, _ in CASES} == set(AGENT_KINDS)
    assert {game for _, game, _ in CASES} == set(envs.names())


@pytest.mark.parametrize("spec,game,options", CASES, ids=[f"{s}-{g}" for s, g, _ in CASES])
def test_every_kind_builds_for_every_game_where_it_applies(spec, game, options):
    if AGENT_KINDS[spec.split(":")[0]].needs_torch:
        pytest.importorskip("torch")
    agent = make_agent(spec, game, seed=0, options=options)
    assert agent.spec == agent.name == spec


def test_kinds_without_torch_build_without_importing_it():
    """``needs_torch`` is true of the kind: the others build in a process that never loads torch."""
    light = [(k.name + (":2" if k.count else ""), "zaka_v0" if k.available("zaka_v0") else "warbah_v0")
             for k in AGENT_KINDS.values() if not k.needs_torch]
    assert light and all(k.checkpoint is None for k in AGENT_KINDS.values() if not k.needs_torch)
    code = ("import sys\nfrom tabletop_arena.agents import make_agent\n"
            f"for spec, game in {light!r}:\n    make_agent(spec, game, seed=0)\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_old_spec_lists_are_derived_from_the_table():
    assert registry.KINDS == ("random", "heuristic", "mcts[:N]", "ppo:NAME", "ppo:PATH", "puct:N:NAME",
                              "puct:N:PATH", "rollout:N:NAME", "rollout:N:PATH", "hroll[:N]", "vlook:NAME",
                              "vlook:PATH", "vroll:N:NAME", "vroll:N:PATH", "plan:N:NAME", "plan:N:PATH",
                              "hplan[:N]")
    assert registry.agent_names("zaka_v0") == ["random", "heuristic", "mcts", "mcts:N", "ppo:PATH",
                                               "puct:N:PATH", "rollout:N:PATH", "hroll", "hroll:N", "vlook:PATH",
                                               "vroll:N:PATH"]
    for kind in AGENT_KINDS.values():
        assert kind.syntax in registry.KINDS_SHORT


def test_the_cli_help_lists_every_kind_as_the_table_writes_it():
    from tabletop_arena.app.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    texts = {name: sub.choices[name].format_help() for name in ("play", "serve", "eval")}
    for name, text in texts.items():
        flat = " ".join(text.split())
        for kind in AGENT_KINDS.values():
            assert kind.syntax in flat, f"arena {name} --help does not list {kind.syntax}"
            assert " ".join(kind.help.split()[:4]) in flat, f"arena {name} --help lacks {kind.name}'s help"


def test_checkpoint_refs_follow_the_table():
    from tabletop_arena.app.cli_common import checkpoint_ref

    assert checkpoint_ref("ppo:zaka") == ("ppo", "zaka")
    assert checkpoint_ref("PUCT:8:zaka") == ("ppo", "zaka")
    assert checkpoint_ref("rollout:8,k=4,by=random:runs/x.zip") == ("ppo", "runs/x.zip")
    assert checkpoint_ref("vlook:gorgasali") == ("vlook", "gorgasali")
    for spec in ("random", "heuristic", "mcts:5", "ppo:", "puct:5", "snapshot", "nonsense:x"):
        assert checkpoint_ref(spec) is None, spec


def test_opponent_validation_agrees_with_the_table():
    """Every kind the table lets be a training opponent is accepted in ``opponent_mix``, with
    ``snapshot``; puct, rollout and vlook were refused (train/ppo.py preloaded puct and rollout
    opponents all along, and the pool builds any spec through make_agent)."""
    from tabletop_arena.train.config import ConfigError, from_dict

    for kind in AGENT_KINDS.values():
        spec = kind.example
        if kind.not_opponent is None:
            assert from_dict({"opponent_mix": {spec: 1.0}}).opponent_mix == {spec: 1.0}
        else:
            with pytest.raises(ConfigError, match=kind.not_opponent):
                from_dict({"opponent_mix": {spec: 1.0}})
    assert from_dict({"opponent_mix": {"snapshot": 1.0}}).opponent_mix == {"snapshot": 1.0}
    with pytest.raises(ConfigError, match="unknown opponent 'alphazero'"):
        from_dict({"opponent_mix": {"alphazero": 1.0}})


@pytest.fixture
def extra_kind(monkeypatch):
    """A kind registered for one test (``AGENT_KINDS`` restored after it): a search that builds a
    random agent, costs 7 MCTS simulations a unit and may not be a training opponent."""
    monkeypatch.setattr(registry, "AGENT_KINDS", dict(AGENT_KINDS))
    for module in ("tabletop_arena.app.offer", "tabletop_arena.train.config"):
        mod = pytest.importorskip(module)
        monkeypatch.setattr(mod, "AGENT_KINDS", registry.AGENT_KINDS)

    def build(game, arg, spec, seed, trust):
        if not arg.isdigit():
            raise AgentSpecError(f"fakesearch:N needs digits, got {spec!r}")
        return registry.RandomAgent(seed)

    kind = registry.register_kind(AgentKind(
        "fakesearch", "fakesearch[:N]", "a test's search", build, "fakesearch:3", count="optional",
        count_name="units", default_count=5, budget=lambda n, settings, spec: 7 * n, not_opponent="too slow for a test"))
    return kind


def test_a_new_kind_is_one_entry(extra_kind):
    from tabletop_arena.app import offer
    from tabletop_arena.app.cli import build_parser
    from tabletop_arena.train.config import ConfigError, from_dict

    assert make_agent("fakesearch:3", "zaka_v0", seed=0).spec == "fakesearch:3"
    with pytest.raises(AgentSpecError, match="did you mean 'fakesearch:3'"):
        make_agent("fakesaerch:3", "zaka_v0")
    assert "fakesearch" in registry.agent_names("zaka_v0") and "fakesearch:N" in registry.agent_names("zaka_v0")
    assert "fakesearch[:N]" in registry.KINDS and "`fakesearch[:N]`" in registry.specs_markdown()
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert "fakesearch[:N] (a test's search)" in " ".join(sub.choices["play"].format_help().split())
    allowed = offer.AgentAllowList(max_budget=400)
    assert allowed.check("fakesearch:57", "zaka_v0") == "fakesearch:57"     # 399 <= 400
    with pytest.raises(offer.RequestError, match="asks for 406 MCTS simulations"):
        allowed.check("fakesearch:58", "zaka_v0")
    assert allowed.check("fakesearch", "zaka_v0") == "fakesearch"           # its default: 5 units, 35
    with pytest.raises(ConfigError, match="too slow for a test"):
        from_dict({"opponent_mix": {"fakesearch:3": 1.0}})
    with pytest.raises(ValueError, match="registered already"):
        registry.register_kind(extra_kind)


def test_register_kind_refuses_an_inconsistent_entry():
    def build(game, arg, spec, seed, trust):
        raise AssertionError("not built")

    for bad in (AgentKind("Bad", "Bad", "x", build, "Bad"),                       # not lower case
                AgentKind("snapshot", "snapshot", "x", build, "snapshot"),        # opponent_mix's own
                AgentKind("s", "s[:N]", "x", build, "s:1", count="optional"),      # a count, no budget
                AgentKind("d", "d[:N]", "x", build, "d:1", count="optional",       # no default N
                          budget=lambda n, settings, spec: n),
                AgentKind("e", "e:N:REF", "x", build, "e:1:zaka", count="required", checkpoint="ppo",
                          default_count=3, budget=lambda n, settings, spec: n),   # a default for a required N
                AgentKind("c", "c:REF", "x", build, "c:zaka")):                    # REF, no checkpoint
        with pytest.raises(ValueError):
            registry.register_kind(bad)
    assert set(AGENT_KINDS) == {"random", "heuristic", "mcts", "ppo", "puct", "rollout", "hroll", "vlook", "vroll",
                                "plan", "hplan"}
