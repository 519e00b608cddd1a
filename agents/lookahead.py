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
from .heuristics import heuristic_styles, make_heuristic
from .rollout import ROLLOUT_CAP, paired_starts, play_out, seed_pairs, sure_gain
from .torch_files import load_failure

FORMAT = "tabletop-arena-value-lookahead/1"


class ValueCheckpointError(ArenaError):
    """A value checkpoint that cannot be read, or was fitted on another game or variant."""


def board_shape(game) -> tuple[int, tuple[int, int, int]] | None:
    """(offset, (C, H, W)) of the observation's board piece, or None (``agents.ppo.board_piece``)."""
    from .policy_net import board_piece
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
        raise ValueCheckpointError(f"corrupt value checkpoint {path}: {load_failure(exc)}") from None
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

    def seat_values(self, states: list, seat: int) -> np.ndarray:
        """``seat``'s value of each state: its return where the game is over, else the network's (one
        forward pass for all)."""
        import torch
        out = np.zeros(len(states))
        live = []
        for k, s in enumerate(states):
            if s.is_terminal():
                out[k] = float(s.returns()[seat])
            else:
                live.append(k)
        if live:
            rows = np.stack([features(states[k].observation(seat), self.board, self.pool) for k in live])
            with torch.no_grad():
                out[live] = self.net(torch.as_tensor(rows)).squeeze(-1).cpu().numpy()
        return out


def _check_search(rollouts, depth, z, few: str) -> None:
    """A rollout search's settings (vroll, plan): at least 2 rollouts (``few`` says what of), a
    depth of whole moves >= 1, a finite z >= 0; ValueError otherwise."""
    if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or rollouts < 2:
        raise ValueError(f"{few} (a standard error), got {rollouts!r}")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth must be a whole number of moves >= 1, got {depth!r}")
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not np.isfinite(z) or z < 0:
        raise ValueError(f"z must be a finite number >= 0, got {z!r}")


#: ``vroll``'s defaults: the heuristic's moves played after a candidate before the value scores the
#: position, and how many paired standard errors a move must gain over the heuristic's to replace it
#: (a prototype on Gorgasali, 4 players: docs/training-notes.md, "Gorgasali, 4 players: short rollouts")
VROLL_DEPTH, VROLL_Z = 40, 1.0


class ValueRolloutAgent(ValueLookaheadAgent):
    """``vroll:N:REF``: the value lookahead of ``REF`` (its accepted phases), and at the other
    phases with a choice short heuristic rollouts scored by the same value.

    At a decision of a rollout phase (``roll_phases``; by default every phase the value does not
    search and its training run did not skip; phases named there are rolled out even where the value
    would search) every legal move is applied to ``N`` determinizations of the
    mover's view, the heuristic then moves every seat for ``depth`` engine actions (or to the end),
    and the value scores the mover's seat there (a finished game: its return). Rollout i uses one
    determinization and one generator for every move (common random numbers), so each move's gain
    over the heuristic's move is paired; a move replaces the heuristic's only when its mean gain is
    positive and at least ``z`` standard errors of the mean, the largest such gain winning.

    One-step lookahead scores a position right after the move, before anyone answers it; on Gorgasali
    that misjudges the turn's actions and its start (docs/training-notes.md, G4V1's trials); a few
    turns of play before the value looks is what the rollouts add. Cost: ``N`` x ``depth`` heuristic
    moves and one value a legal move at each such decision (Gorgasali, 4 players, ``vroll:4``: ~3 CPU
    s a game)."""

    def __init__(self, path: str | os.PathLike | None, game, rollouts: int = 4, seed: int | None = None, *,
                 depth: int = VROLL_DEPTH, z: float = VROLL_Z, roll_phases=None, net=None,
                 meta: dict | None = None):
        """``roll_phases``: the rollout phases (None: the default above); the value's own phases
        come from the checkpoint."""
        _check_search(rollouts, depth, z, "vroll needs at least 2 rollouts a move")
        super().__init__(path, game, seed=seed, net=net, meta=meta)
        self.rollouts, self.depth, self.z = int(rollouts), int(depth), float(z)
        skipped = set((self.meta.get("config") or {}).get("skip_phases") or ())
        self.roll_phases = None if roll_phases is None else set(roll_phases)
        self._skip = self.phases | skipped   # the default: every phase but these
        self.roller = make_heuristic(game, seed)
        self.deviations = 0   #: decisions where a rolled-out move replaced the heuristic's

    def rolls_at(self, phase: str) -> bool:
        return phase in self.roll_phases if self.roll_phases is not None else phase not in self._skip

    def act(self, obs, state=None) -> int:
        if state is None:
            raise ValueError("vroll needs the engine state (needs_state=True)")
        legal = np.flatnonzero(obs["action_mask"])
        phase = state.phase_name()
        if len(legal) < 2 or not self.rolls_at(phase):
            return super().act(obs, state)   # the value's lookahead at its phases, else the heuristic
        move = int(self.base.act(obs, state))
        cands = [move] + [int(a) for a in legal if a != move]
        best = sure_gain(self.rollout_values(state, cands), self.z)   # ties: the first in legal order
        self.searched += 1
        self.deviations += best > 0
        return cands[best]

    def rollout_values(self, state, cands: list[int]) -> np.ndarray:
        """(rollouts, candidates): the mover's value after each candidate and ``depth`` heuristic
        moves, rollout i on one determinization and one move generator for every candidate."""
        me = state.current_player
        starts, seeds = paired_starts(state, me, cands, seed_pairs(self.rng, self.rollouts, 2**62))
        play_out(starts, seeds, self.roller, self.depth)
        return self.seat_values(starts, me).reshape(self.rollouts, len(cands))


#: ``plan``'s defaults: rollouts a style, the engine actions a rollout plays before the value scores it,
#: and the paired standard errors a style must gain over the default to be played that turn (a prototype
#: on Zaberias, 4 players: docs/training-notes.md, "Zaberias, 4 players: a turn plan")
PLAN_ROLLOUTS, PLAN_DEPTH, PLAN_Z = 4, 150, 1.0


class _SeatStyle(BaseAgent):
    """A rollout's players: ``mine`` at ``seat``, ``others`` at every other seat (both drawing from the
    rollout's generator, which ``play_out`` sets)."""

    needs_state = True

    def __init__(self, mine: BaseAgent, others: BaseAgent, seat: int):
        self.mine, self.others, self.seat = mine, others, seat
        super().__init__(None)

    @property
    def rng(self):
        return self.mine.rng

    @rng.setter
    def rng(self, value):
        self.mine.rng = self.others.rng = value

    def act(self, obs, state=None) -> int:
        return (self.mine if state.current_player == self.seat else self.others).act(obs, state)


class TurnPlanAgent(SharesBaseGenerator, BaseAgent):
    """``plan:N:REF``: the heuristic, playing each of its own turns in the style that rollouts say
    does best there (a search over turn plans, scored by a learned value); ``hplan[:N]``: the same
    with rollouts to the end of the game, scored by its result (no network).

    At the first decision of each own turn (the state's ``turn`` counter moved on) every style of the
    game's heuristic (``heuristic_styles``: Zaberias has ``default`` and ``no_focus``, the gang-up on
    the weakest tribe left out) plays the mover's seat from ``N`` determinizations of its view, the
    default heuristic every other seat, for ``depth`` engine actions (or to the end); the value of
    ``REF`` (a value-lookahead checkpoint) scores the mover's seat there (a finished game: its
    return). Rollout i uses one determinization and one move generator for every style (common random
    numbers), so each style's gain over the default is paired; a style is played for the turn only
    when its mean gain is positive and at least ``z`` standard errors of the mean (the largest such
    gain winning), otherwise the default. The choice is made once a turn: a turn is a chain of
    decisions (select, move, attack ...) that one move's lookahead scores after its first link, where
    the chain is half done (docs/training-notes.md, ZB4V1's trials).

    Without a value (``path`` and ``net`` None: ``hplan``) the rollouts play ``depth`` actions, the
    game's ``max_game_length()`` by default, so to the end, and the return scores them (a rollout
    still unfinished there scores 0, the middle of the returns).

    Needs a heuristic with two or more styles and a state with a ``turn`` counter (Zaberias: default,
    no_focus; Warbah: default, economy, assault). Cost: ``N`` x styles x ``depth`` heuristic moves a
    turn (Zaberias, 4 players, ``plan:4``: ~7 CPU s a game; Warbah, 4 players, ``hplan:4``: ~8)."""

    name = "plan"
    needs_state = True

    def __init__(self, path: str | os.PathLike | None, game, rollouts: int = PLAN_ROLLOUTS,
                 seed: int | None = None, *, depth: int | None = None, z: float = PLAN_Z, net=None,
                 meta: dict | None = None):
        """``depth`` None: ``PLAN_DEPTH`` with a value, the game's whole length without one."""
        valued = path is not None or net is not None
        if depth is None:
            depth = PLAN_DEPTH if valued else int(game.max_game_length() or ROLLOUT_CAP)
        _check_search(rollouts, depth, z, "plan needs at least 2 rollouts a style")
        styles = heuristic_styles(game)
        if len(styles) < 2:
            raise ValueError(f"plan chooses among the heuristic's styles; {game.name}'s heuristic has one "
                             f"({styles[0]}): nothing to choose")
        self.game = game
        self.base = make_heuristic(game, seed)
        #: the value that scores a rollout's cut (its network), None: the game's result
        self.value = ValueLookaheadAgent(path, game, seed=seed, net=net, meta=meta, phases=()) if valued else None
        super().__init__(seed)
        self.path = None if path is None else str(path)
        self.styles = styles
        self.players = [self.base] + [make_heuristic(game, seed, style=s) for s in styles[1:]]
        self.rollouts, self.depth, self.z = int(rollouts), int(depth), float(z)
        self.style = 0        #: the index in ``styles`` played this turn
        self._turn: tuple[int, int] | None = None   # (turn, seat) of the plan in force
        self.plans = 0        #: turns planned (logs, tests)
        self.switches = 0     #: turns played in another style than the default

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.style, self._turn = 0, None

    def act(self, obs, state=None) -> int:
        if state is None:
            raise ValueError("plan needs the engine state (needs_state=True)")
        if not hasattr(state, "turn"):
            raise ValueError(f"plan needs a state with a turn counter; {self.game.name}'s has none")
        key = (int(state.turn), int(state.current_player))
        if key != self._turn and np.count_nonzero(obs["action_mask"]) > 1:
            self._turn = key
            self.style = self.choose_style(state)
        player = self.players[self.style]
        player.rng = self.rng
        return int(player.act(obs, state))

    def choose_style(self, state) -> int:
        """The style (an index in ``styles``) to play the mover's turn in; counts ``plans`` and
        ``switches``."""
        best = sure_gain(self.style_values(state), self.z)   # ties: the first style
        self.plans += 1
        self.switches += best > 0
        return best

    def style_values(self, state) -> np.ndarray:
        """(rollouts, styles): the mover's value after ``depth`` engine actions with each style at
        the mover's seat, rollout i on one determinization and one move generator for every style."""
        me = state.current_player
        starts, seeds, players = [], [], []
        for det_seed, play_seed in seed_pairs(self.rng, self.rollouts, 2**62):
            for style in self.styles:
                starts.append(state.determinize(me, np.random.default_rng(det_seed)))
                seeds.append(play_seed)
                # fresh players a rollout: a heuristic's plan must not carry from one rollout to the next
                players.append(_SeatStyle(make_heuristic(self.game, style=style), make_heuristic(self.game), me))
        for s, seed, player in zip(starts, seeds, players):
            play_out([s], [seed], player, self.depth)
        if self.value is not None:
            values = self.value.seat_values(starts, me)
        else:
            values = np.array([float(s.returns()[me]) if s.is_terminal() else 0.0 for s in starts])
        return values.reshape(self.rollouts, len(self.styles))
