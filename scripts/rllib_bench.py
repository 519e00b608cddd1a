"""Scaling benchmark of the RLlib backend: env steps/s and learner steps/s against env runners,
and the same run on a two-node Ray cluster simulated on this machine.

    python scripts/rllib_bench.py --game peacekeepers --runners 0 1 2 --rounds 3
    python scripts/rllib_bench.py --game zaka --runners 2 --two-node --rounds 3

Per configuration: build the algorithm (the game's training config with ``--set`` overrides),
one warm-up iteration, then ``--iterations`` timed ones; from PPO's per-iteration timers
(train/rllib.py ``per_iteration_timers``):

- sample env steps/s: env steps of the iteration / time of the parallel sampling phase
  (all env runners together, the driver waiting for them);
- learner steps/s: env steps of the iteration / time of the learner update (n_epochs passes);
- overall steps/s: env steps / whole iteration (sampling + update + weight sync).

Configurations alternate within each round (local runners 0, 1, 2, ..., then the two-node
cluster), each on its own fresh Ray, and the table gives the median over rounds with the
1-minute load average read before each measurement. The two-node cluster is
``ray.cluster_utils.Cluster`` with two nodes of ``--node-cpus`` CPUs each on this machine: the
env runners are spread over both nodes (their node ids are printed), the learner runs in the
driver. Numbers are printed, never asserted (benchmarks are not tests).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path


def load1() -> float:
    return os.getloadavg()[0]


def measure(game: str, runners: int, iterations: int, overrides: dict, cluster: bool = False,
            node_cpus: int = 1, log=print) -> dict:
    """Start Ray (local or a two-node Cluster), build the algorithm, time its iterations."""
    import ray

    from tabletop_arena import envs
    from tabletop_arena.train.config import load_config
    from tabletop_arena.train.ppo import policy_kwargs
    from tabletop_arena.train.rllib import algorithm_config, per_iteration_timers

    game_id = envs.resolve(game)
    section = {**overrides.pop("rllib", {}), "num_env_runners": runners}   # --set rllib.KEY=VALUE: parse_overrides
    cfg = load_config(None, {**overrides, "rllib": section}, game=game_id)
    kwargs = policy_kwargs(envs.make_game(game_id, **cfg.env_options), cfg)
    import torch
    torch.set_num_threads(cfg.torch_threads)  # as train_rllib: the driver samples (0 runners) and learns
    cl = None
    t_start = time.time()
    if cluster:
        from ray.cluster_utils import Cluster
        cl = Cluster(initialize_head=True, head_node_args={"num_cpus": node_cpus, "object_store_memory": 80 * 2**20,
                                                           "include_dashboard": False})
        cl.add_node(num_cpus=node_cpus, object_store_memory=80 * 2**20)
        ray.init(address=cl.address, log_to_driver=False)
    else:
        ray.init(num_cpus=max(os.cpu_count() or 1, runners + 1), object_store_memory=100 * 2**20,
                 include_dashboard=False, log_to_driver=False)
    algo = None
    try:
        algo = algorithm_config(game_id, cfg, kwargs, 0.0).build_algo()
        startup = time.time() - t_start
        per_iteration_timers(algo)
        nodes = []
        if runners:
            nodes = algo.env_runner_group.foreach_env_runner(
                lambda er: ray.get_runtime_context().get_node_id()[:8], local_env_runner=False)
        algo.train()  # warm-up: actors, connectors, first episodes
        rows = []
        for _ in range(iterations):
            before = load1()
            t0 = time.perf_counter()
            result = algo.train()
            wall = time.perf_counter() - t0
            timers = result["timers"]
            steps = int(result["env_runners"]["num_env_steps_sampled"])
            rows.append({"steps": steps, "wall": wall, "sample": float(timers["env_runner_sampling_timer"]),
                         "learn": float(timers["learner_update_timer"]), "sync": float(timers["synch_weights"]),
                         "load": before})
        def med(k):
            return statistics.median(r[k] for r in rows)
        steps = med("steps")
        out = {"game": game_id, "runners": runners, "cluster": cluster, "batch": steps,
               "sample_sps": steps / med("sample"), "learn_sps": steps / med("learn"),
               "overall_sps": steps / med("wall"), "sample_s": med("sample"), "learn_s": med("learn"),
               "sync_s": med("sync"), "load": med("load"), "startup_s": startup, "nodes": nodes,
               "cluster_nodes": len([n for n in ray.nodes() if n["Alive"]])}
        log(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in out.items()}))
        return out
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
        if cl is not None:
            cl.shutdown()


def main(argv=None) -> int:
    from tabletop_arena.train.config import parse_overrides

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="peacekeepers")
    p.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2], help="num_env_runners to compare")
    p.add_argument("--two-node", action="store_true", help="add a run on a two-node Cluster (same runners as the last)")
    p.add_argument("--node-cpus", type=int, default=1, help="CPUs of each simulated node")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--iterations", type=int, default=3, help="timed iterations per configuration")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="training config overrides")
    p.add_argument("--out", help="write all measurements as JSON here")
    args = p.parse_args(argv)
    overrides = {"progress": False, "bc_games": 0, **parse_overrides(args.set)}
    configs = [(r, False) for r in args.runners] + ([(args.runners[-1], True)] if args.two_node else [])
    results: dict = {c: [] for c in configs}
    for rnd in range(args.rounds):
        for runners, cluster in configs:
            print(f"round {rnd + 1}: runners={runners} {'two-node cluster' if cluster else 'local'}", flush=True)
            results[(runners, cluster)].append(measure(args.game, runners, args.iterations, dict(overrides),
                                                       cluster=cluster, node_cpus=args.node_cpus))
    print(f"\n{args.game}: median over {args.rounds} rounds of {args.iterations} iterations "
          f"(overrides {overrides}); load = 1-min load average before each iteration")
    print("| setup | env runners | batch | sample env steps/s | learner steps/s | overall steps/s "
          "| sample s | learn s | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (runners, cluster), rs in results.items():
        def m(k, rs=rs):
            return statistics.median(r[k] for r in rs)
        lo = min(r["load"] for r in rs)
        hi = max(r["load"] for r in rs)
        setup = f"2 nodes x {args.node_cpus} CPU" if cluster else "1 node"
        print(f"| {setup} | {runners} | {m('batch'):.0f} | {m('sample_sps'):.0f} | {m('learn_sps'):.0f} | "
              f"{m('overall_sps'):.0f} | {m('sample_s'):.2f} | {m('learn_s'):.2f} | {lo:.1f}-{hi:.1f} |")
    if args.out:
        Path(args.out).write_text(json.dumps({f"{r}_{'cluster' if c else 'local'}": v
                                              for (r, c), v in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
