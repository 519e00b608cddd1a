"""Value lookahead over the heuristic: the heuristic's move, except where a learned value says
another move leads somewhere better (``vlook:REF``).

One step of approximate policy iteration (``train/value_lookahead.py`` fits the value and picks the
decisions it is trusted at): at a decision of an *accepted* phase the agent applies each legal move
to ``samples`` determinizations of its view (the same ones for every move: common random numbers),
scores each result with the value network from its own seat (a finished game scores its return),
and plays the best mean unless it beats the heuristic's move by no more than ``delta``. Everywhere
else (and where only one move is legal) it plays the heuristic's move. The accepted phases are the
ones where the training run's validation games showed the lookahead beating the heuristic; on
Gorgasali that is the loot placement (docs/training-notes.md, G7).

Checkpoint (``value.pt``, ``torch.save`` of a dict, read back with ``weights_only``): ``format``
(``FORMAT``), ``meta`` (game id and options, the feature layout, the network sizes, the accepted
phases, ``samples``, ``delta``, the training config and metrics) and ``state_dict``.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..envs import resolve
from ..envs.core.errors import ArenaError
from .base import BaseAgent, SharesBaseGenerator
from .heuristics import make_heuristic

FORMAT = "tabletop-arena-value-lookahead/1"


class ValueCheckpointError(ArenaError):
    """A value checkpoint that cannot be read, or was fitted on another game or variant."""


def board_shape(game) -> tuple[int, tuple[int, int, int]] | None:
    """(offset, (C, H, W)) of the observation's board piece, or None (``agents.ppo.board_piece``)."""
    from .ppo import board_piece
    return board_piece(game.observation_layout)


def features(obs: np.ndarray, board: tuple[int, tuple[int, int, int]] | None, pool: int) -> np.ndarray:
    """The value network's input: the flat observation with its board piece (if any) averaged over
    ``pool`` x ``pool`` cells (a 20x20 map of 21 planes: 525 numbers instead of 8400)."""
    if board is None or pool <= 1:
        return obs.astype(np.float32, copy=False)
    off, (c, h, w) = board
    planes = obs[off:off + c * h * w].reshape(c, h // pool, pool, w // pool, pool).mean(axis=(2, 4))
    return np.concatenate([obs[:off], planes.ravel(), obs[off + c * h * w:]]).astype(np.float32)


def feature_size(game, pool: int) -> int:
    board = board_shape(game)
    size = int(game.observation_size)
    if board is None or pool <= 1:
        return size
    _, (c, h, w) = board
    return size - c * h * w + c * (h // pool) * (w // pool)


def check_pool(game, pool: int) -> None:
    board = board_shape(game)
    if board is not None and pool > 1:
        _, (_, h, w) = board
        if h % pool or w % pool:
            raise ValueError(f"feature_pool {pool} must divide the board's {h}x{w}")


def value_net(inputs: int, hidden: int, dropout: float):
    import torch
    return torch.nn.Sequential(
        torch.nn.Dropout(dropout), torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
        torch.nn.Dropout(dropout), torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, 1), torch.nn.Tanh())


def save_value(net, path: str | os.PathLike, meta: dict[str, Any]) -> None:
    import torch
    tmp = f"{path}.tmp"
    torch.save({"format": FORMAT, "meta": meta, "state_dict": net.state_dict()}, tmp)
    os.replace(tmp, path)


def load_value(path: str | os.PathLike, game=None):
    """(network in eval mode, meta) from a ``value.pt``; ``game`` (optional) must match its meta."""
    import torch
    path = str(path)
    if not os.path.isfile(path):
        raise ValueCheckpointError(f"value checkpoint not found: {path}")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:   # a truncated or foreign file: one clear error, whatever torch raised
        raise ValueCheckpointError(f"corrupt value checkpoint {path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT or not isinstance(blob.get("meta"), dict):
        raise ValueCheckpointError(f"{path} is not a value-lookahead checkpoint (format {FORMAT})")
    meta = blob["meta"]
    try:
        inputs, hidden, dropout = int(meta["inputs"]), int(meta["hidden"]), float(meta["dropout"])
        with torch.device("meta"):   # the described network's shapes, no memory: sizes in the
            want = value_net(inputs, hidden, dropout).state_dict()   # metadata cannot allocate
        state = blob["state_dict"]
        if not isinstance(state, dict) or set(state) != set(want) or any(
                not isinstance(state[k], torch.Tensor) or state[k].shape != v.shape for k, v in want.items()):
            raise ValueError(f"its weights do not fit the network of its metadata ({inputs} inputs, "
                             f"{hidden} hidden)")
        net = value_net(inputs, hidden, dropout)
        net.load_state_dict(state)
    except Exception as exc:
        raise ValueCheckpointError(f"corrupt value checkpoint {path}: {type(exc).__name__}: {exc}") from None
    net.eval()
    if game is not None:
        check_fits(meta, game, path)
    return net, meta


def check_fits(meta: dict, game, path: str) -> None:
    gid = resolve(game.name)
    if meta.get("game") != gid:
        raise ValueCheckpointError(f"{path} was fitted on {meta.get('game')!r}, not {gid!r}")
    want = dict(meta.get("options") or {})
    have = {k: game.options().get(k) for k in want}
    if want != have:
        raise ValueCheckpointError(f"{path} was fitted on the variant {want}, this game is {have}")
    if feature_size(game, int(meta["pool"])) != int(meta["inputs"]):
        raise ValueCheckpointError(f"{path}: its input size {meta['inputs']} does not fit this game's "
                                   "observation (another layout version)")


class ValueLookaheadAgent(SharesBaseGenerator, BaseAgent):
    """The game's heuristic, with a learned value's one-step lookahead at the accepted phases."""

    needs_state = True

    def __init__(self, path: str | os.PathLike | None, game, seed: int | None = None, *, net=None,
                 meta: dict | None = None, phases=None):
        super().__init__(seed)
        if net is None:
            if path is None:
                raise ValueError("ValueLookaheadAgent needs a checkpoint path or a network")
            net, meta = load_value(path, game)
        assert meta is not None
        self.path = None if path is None else str(path)
        self.net, self.meta = net, meta
        self.game = game
        self.base = make_heuristic(game, seed)
        self.phases = set(meta["phases"] if phases is None else phases)
        self.samples = int(meta["samples"])
        self.delta = float(meta["delta"])
        self.pool = int(meta["pool"])
        self.board = board_shape(game)
        self.searched = 0

    def act(self, obs, state=None) -> int:
        if state is None:
            raise ValueError("vlook needs the engine state (needs_state=True)")
        move = int(self.base.act(obs, state))
        legal = np.flatnonzero(obs["action_mask"])
        if len(legal) < 2 or state.phase_name() not in self.phases:
            return move
        q = self.action_values(state, legal)
        best = int(legal[int(np.argmax(q))])
        self.searched += 1
        return best if q.max() > q[int(np.flatnonzero(legal == move)[0])] + self.delta else move

    def action_values(self, state, legal: np.ndarray) -> np.ndarray:
        """Mean value, from the mover's seat, of each legal move's result over the samples."""
        import torch
        me = state.current_player
        seeds = self.rng.integers(2**62, size=self.samples)
        views = [state.determinize(me, np.random.default_rng(int(s))) for s in seeds]   # the same for every move
        q = np.zeros(len(legal))
        rows, where = [], []
        for i, a in enumerate(legal):
            for view in views:
                after = view.clone()
                after.apply(int(a))   # checked: the view is another position than the mask's
                if after.is_terminal():
                    q[i] += float(after.returns()[me])
                else:
                    rows.append(features(after.observation(me), self.board, self.pool))
                    where.append(i)
        if rows:
            with torch.no_grad():
                v = self.net(torch.as_tensor(np.stack(rows))).squeeze(-1).cpu().numpy()
            np.add.at(q, np.asarray(where), v)
        return q / self.samples
