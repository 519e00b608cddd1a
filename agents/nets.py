"""Networks whose structure fits each game's decisions (features extractors that also give logits).

Two families, chosen by the training config's ``network`` key (``train/ppo.py: policy_kwargs``):

``board`` (``BoardNet``), for games with a (C, H, W) board piece (Peacekeepers, Zaberias,
Gorgasali, Warbah): a residual tower of 3x3 convolutions with growing dilation (1, 2, 4, ... so
that a few layers see the whole board; two plain 3x3 layers see only 5x5), each block also fed the
board's global mean (a pooled summary broadcast back to every cell); an MLP over the vector pieces;
the features are the pooled board (mean and max over cells), the vector embedding and, for each
*focus* plane ``p`` (``focus_planes``), the final map read where observation plane ``p`` marks the
board (its weighted mean over those cells; zeros where it marks none): e.g. Warbah's acting-Hero
plane, so that a move's direction logits see the Hero's own surroundings, which the pooled means
blur.
Action logits come from three kinds of heads:

- *spatial* ranges ``[first, planes]``: action ``first + p*H*W + cell`` is plane p of a 1x1
  convolution over the final map at that cell, plus a per-plane bias from the latent;
- *pointer* ranges ``[first, count, plane(, only)]``: action ``first + k`` selects the piece marked
  by board plane ``plane + k`` of the observation (e.g. Zaberias' roster-slot planes: SELECT u
  points at the cell where unit u stands), on cells where plane ``only`` is set if given (own
  units); its logit is the mean over the marked cells of one score map (a 1x1 convolution of the
  final map), plus a bias from the latent; a piece not on the board gets the bias only;
- every other action: a linear layer on the latent (SB3's default head).

``slots`` (``SlotNet``), for Zaka-like card games (observation pieces ``armies`` (S, F, X),
``army_info`` (S, I), ``hands``, ``discard``, ``global``): one encoder shared by every battlefield
slot (its features + its army's info + the army's relative seat), pooled per army, then a global
MLP. Actions that name slots score the slots they name: PLAY_WEAPON(w, slot) from the own slot's
embedding, USE_ON_MONSTER(user, army, target) from a bilinear pointer over (user slot, target slot)
embeddings (a query per own slot, shifted by the global latent, against a key per slot of every
army: 8 x 32 pairs), USE_ON_ARMY(user, army) from (user slot, army) the same way; PLAY_MONSTER and
END_PLAY from the global latent.

Both hand the policy head their logits through ``action_logits(latent)`` (``ExtractorHead``); the
extractor keeps what it computed for the batch in ``self._cache``.

``SlotNet.numpy_logits`` is the same forward pass in numpy, for inference only (frozen snapshot
opponents, evaluation): at the small batches those see (a few games waiting for a snapshot's move)
torch's per-operation cost dominates, and numpy is several times faster (docs/training-notes.md,
"Throughput"). tests/test_training_pipeline.py checks that both give the same logits.
"""
from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


def _pieces(layout) -> list[tuple[str, tuple[int, ...], int]]:
    """[(name, shape, offset)] of an observation layout."""
    out, offset = [], 0
    for name, shape in layout:
        shape = tuple(int(x) for x in shape)
        out.append((name, shape, offset))
        offset += int(np.prod(shape))
    return out


# =============================================================================================
# board games
# =============================================================================================
class _ResBlock(nn.Module):
    """x + conv(relu(conv(x) + global mean)) with a dilation; keeps H x W."""

    def __init__(self, ch: int, dilation: int):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=dilation, dilation=dilation)
        self.g = nn.Linear(ch, ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        h = self.c1(x) + self.g(x.mean(dim=(2, 3)))[:, :, None, None]
        return torch.relu(x + self.c2(torch.relu(h)))


class BoardNet(BaseFeaturesExtractor):
    """Residual dilated CNN over the first (C, H, W) piece + MLP over the rest; spatial and
    pointer action heads (see the module docstring)."""

    position: torch.Tensor  # buffers (register_buffer)

    provides_logits = True

    def __init__(self, observation_space: spaces.Box, layout, num_actions: int, channels: int = 32,
                 dilations=(1, 2, 4), vector_hidden: int = 128, features_dim: int = 256,
                 spatial_actions=(), pointer_actions=(), focus_planes=()):
        pieces = _pieces(layout)
        boards = [(n, s, o) for n, s, o in pieces if len(s) == 3]
        if not boards:
            raise ValueError("BoardNet needs a (C, H, W) piece in the observation layout")
        _, (c, h, w), off = boards[0]
        super().__init__(observation_space, features_dim)
        total = int(observation_space.shape[0])
        self.num_actions = int(num_actions)
        self.vec_end = total
        self.board_slice = (off, off + c * h * w)
        self.board_shape = (c, h, w)
        self.vector_size = self.vec_end - c * h * w
        self.stem = nn.Conv2d(c, channels, 3, padding=1)
        self.blocks = nn.ModuleList(_ResBlock(channels, int(d)) for d in dilations)
        self.vec = nn.Sequential(nn.Linear(self.vector_size, vector_hidden), nn.ReLU()) if self.vector_size else None
        self.focus = [int(p) for p in focus_planes]
        if any(p < 0 or p >= c for p in self.focus) or len(set(self.focus)) != len(self.focus):
            raise ValueError(f"focus planes {self.focus} must be distinct board planes 0..{c - 1}")
        pooled_size = (2 + len(self.focus)) * channels + (vector_hidden if self.vector_size else 0)
        self.out = nn.Sequential(nn.Linear(pooled_size, features_dim), nn.ReLU())
        # --- heads ---------------------------------------------------------------------------
        n = h * w
        taken = np.zeros(num_actions, bool)
        self.spatial = [[int(a), int(p)] for a, p in spatial_actions]
        self.pointers = [[int(x) for x in entry] + ([-1] if len(entry) == 3 else []) for entry in pointer_actions]
        sp_idx: list[int] = []
        pt_idx: list[int] = []
        for first, planes in self.spatial:
            if first < 0 or first + planes * n > num_actions:
                raise ValueError(f"spatial range {[first, planes]} does not fit {num_actions} actions")
            sp_idx.extend(range(first, first + planes * n))
        for first, count, plane, only in self.pointers:
            if first < 0 or first + count > num_actions or plane < 0 or plane + count > c or only >= c:
                raise ValueError(f"pointer range {[first, count, plane]} does not fit {num_actions} "
                                 f"actions / {c} board planes")
            pt_idx.extend(range(first, first + count))
        for idx in (sp_idx, pt_idx):
            if taken[idx].any() or len(set(idx)) != len(idx):
                raise ValueError("spatial and pointer action ranges overlap")
            taken[idx] = True
        other = np.flatnonzero(~taken)
        sp_planes = sum(p for _, p in self.spatial)
        self.sp_conv = nn.Conv2d(channels, sp_planes, 1) if sp_planes else None
        self.sp_bias = nn.Linear(features_dim, sp_planes) if sp_planes else None
        self.pt_conv = nn.Conv2d(channels, len(self.pointers), 1) if self.pointers else None
        self.pt_bias = nn.Linear(features_dim, len(pt_idx)) if self.pointers else None
        self.dense = nn.Linear(features_dim, len(other)) if len(other) else None
        order = np.concatenate([np.asarray(sp_idx, np.int64), np.asarray(pt_idx, np.int64), other])
        position = np.empty(num_actions, np.int64)
        position[order] = np.arange(num_actions)
        self.register_buffer("position", torch.as_tensor(position), persistent=False)
        self._cache: dict = {}

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        a, b = self.board_slice
        board = obs[:, a:b].reshape(-1, *self.board_shape)
        x = torch.relu(self.stem(board))
        for blk in self.blocks:
            x = blk(x)
        parts = [x.mean(dim=(2, 3)), x.amax(dim=(2, 3))]
        if self.focus:
            marks = board[:, self.focus].flatten(2)                       # (B, F, HW)
            denom = marks.abs().sum(dim=2, keepdim=True).clamp_min(1.0)
            parts.append(torch.bmm(marks / denom, x.flatten(2).transpose(1, 2)).flatten(1))  # (B, F*ch)
        pooled = torch.cat(parts, dim=1)
        if self.vec is not None:
            e = self.vec_end
            vec = obs[:, b:e] if a == 0 else torch.cat([obs[:, :a], obs[:, b:e]], dim=1)
            pooled = torch.cat([pooled, self.vec(vec)], dim=1)
        self._cache = {"map": x, "board": board, "n": obs.shape[0]}
        return self.out(pooled)

    def action_logits(self, latent: torch.Tensor) -> torch.Tensor:
        cache = self._cache
        if cache.get("n") != latent.shape[0]:
            raise RuntimeError("BoardNet: the features extractor must run on the same batch first")
        fmap, parts = cache["map"], []
        if self.sp_conv is not None and self.sp_bias is not None:
            parts.append((self.sp_conv(fmap) + self.sp_bias(latent)[:, :, None, None]).flatten(1))
        if self.pt_conv is not None and self.pt_bias is not None:
            scores = self.pt_conv(fmap).flatten(2)                       # (B, R, HW)
            board = cache["board"].flatten(2)                             # (B, C, HW)
            logits = []
            for r, (_, count, plane, only) in enumerate(self.pointers):
                marks = board[:, plane:plane + count]                     # (B, count, HW)
                if only >= 0:                                             # e.g. own units only
                    marks = marks * board[:, only:only + 1]
                denom = marks.abs().sum(dim=2).clamp_min(1.0)
                logits.append((marks * scores[:, r:r + 1]).sum(dim=2) / denom)
            parts.append(torch.cat(logits, dim=1) + self.pt_bias(latent))
        if self.dense is not None:
            parts.append(self.dense(latent))
        return torch.index_select(torch.cat(parts, dim=1), 1, self.position)


# =============================================================================================
# card games with battlefield slots (Zaka)
# =============================================================================================
class SlotNet(BaseFeaturesExtractor):
    """Shared per-slot encoder + user x target pointer heads (Zaka's action layout)."""

    rest: torch.Tensor  # buffers (register_buffer)
    rel_onehot: torch.Tensor

    provides_logits = True

    def __init__(self, observation_space: spaces.Box, layout, num_actions: int, monster_designs: int,
                 weapon_designs: int, slot_dim: int = 64, pair_dim: int = 64, features_dim: int = 256):
        pieces = {n: (s, o) for n, s, o in _pieces(layout)}
        for need in ("armies", "army_info"):
            if need not in pieces:
                raise ValueError(f"SlotNet needs a {need!r} piece in the observation layout")
        (S, F, X), self.armies_off = pieces["armies"]
        (_, I), self.info_off = pieces["army_info"]
        super().__init__(observation_space, features_dim)
        self.S, self.F, self.X, self.I = S, F, X, I
        self.dm, self.dw = int(monster_designs), int(weapon_designs)
        self.num_actions = int(num_actions)
        expected = self.dm + self.dw * F + 1 + F * S * F + F * S
        if expected != num_actions:
            raise ValueError(f"SlotNet: the layout implies {expected} actions, the game has {num_actions}")
        total = int(observation_space.shape[0])
        self.rest_idx = [i for i in range(total)
                         if not (self.armies_off <= i < self.armies_off + S * F * X)
                         and not (self.info_off <= i < self.info_off + S * I)]
        self.register_buffer("rest", torch.as_tensor(self.rest_idx, dtype=torch.long), persistent=False)
        self.register_buffer("rel_onehot", torch.eye(S), persistent=False)
        d = slot_dim
        self.slot_enc = nn.Sequential(nn.Linear(X + I + S, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.army_enc = nn.Sequential(nn.Linear(2 * d + I + S, d), nn.ReLU())
        self.glob = nn.Sequential(nn.Linear(S * d + len(self.rest_idx), features_dim), nn.ReLU())
        # heads
        self.monster = nn.Linear(features_dim, self.dm + 1)               # PLAY_MONSTER x Dm, END_PLAY
        self.weapon_slot = nn.Linear(d, pair_dim)
        self.weapon_ctx = nn.Linear(features_dim, pair_dim)
        self.weapon_out = nn.Linear(pair_dim, self.dw)
        self.user = nn.Linear(d, pair_dim + 1)          # query + a per-user bias
        self.target = nn.Linear(d, pair_dim + 1)        # key + a per-target bias
        self.ctx = nn.Linear(features_dim, pair_dim)    # the global latent shifts every query
        self.army_user = nn.Linear(d, pair_dim + 1)
        self.army_t = nn.Linear(d, pair_dim + 1)
        self.army_ctx = nn.Linear(features_dim, pair_dim)
        self._cache: dict = {}

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        B, S, F, X, I = obs.shape[0], self.S, self.F, self.X, self.I
        armies = obs[:, self.armies_off:self.armies_off + S * F * X].reshape(B, S, F, X)
        info = obs[:, self.info_off:self.info_off + S * I].reshape(B, S, I)
        rel = self.rel_onehot.expand(B, S, S)
        army_ctx = torch.cat([info, rel], dim=2)                          # (B, S, I+S)
        x = torch.cat([armies, army_ctx[:, :, None, :].expand(B, S, F, I + S)], dim=3)
        present = armies[..., :1]                                         # (B, S, F, 1)
        # encode the occupied slots only (a battlefield is mostly empty); empty slots stay 0
        rows = torch.nonzero(present.reshape(-1) > 0, as_tuple=True)[0]
        flat = x.reshape(B * S * F, -1)
        enc = self.slot_enc(flat.index_select(0, rows))
        e = torch.zeros(B * S * F, enc.shape[1], dtype=enc.dtype, device=enc.device)
        e = e.index_copy(0, rows, enc).reshape(B, S, F, -1)
        count = present.sum(dim=2).clamp_min(1.0)
        mean = e.sum(dim=2) / count
        mx = (e - (1 - present) * 1e4).amax(dim=2) * (present.amax(dim=2))
        a = self.army_enc(torch.cat([mean, mx, army_ctx], dim=2))         # (B, S, d)
        rest = torch.index_select(obs, 1, self.rest)
        g = self.glob(torch.cat([a.flatten(1), rest], dim=1))
        self._cache = {"e": e, "a": a, "n": B}
        return g

    def action_logits(self, latent: torch.Tensor) -> torch.Tensor:
        c = self._cache
        if c.get("n") != latent.shape[0]:
            raise RuntimeError("SlotNet: the features extractor must run on the same batch first")
        e, a = c["e"], c["a"]
        B, S, F = e.shape[0], self.S, self.F
        me = e[:, 0]                                                      # (B, F, d) own slots
        mon = self.monster(latent)
        monster, end = mon[:, :self.dm], mon[:, self.dm:]
        wz = torch.relu(self.weapon_slot(me) + self.weapon_ctx(latent)[:, None, :])
        weapon = self.weapon_out(wz).transpose(1, 2).flatten(1)          # (B, Dw*F): w * F + slot
        use = self._pairs(self.user(me), self.target(e.reshape(B, S * F, -1)), self.ctx(latent))
        ram = self._pairs(self.army_user(me), self.army_t(a), self.army_ctx(latent))
        # (B, F, S*F) -> (u*S + rel)*F + t ; (B, F, S) -> u*S + rel
        return torch.cat([monster, weapon, end, use.flatten(1), ram.flatten(1)], dim=1)

    # -- inference in numpy (see the module docstring) -------------------------------------------
    def _numpy_weights(self) -> dict:
        """The weights as numpy arrays, packed for ``numpy_logits`` (transposed, the linears over
        one input stacked); rebuilt when a parameter changes in place (torch's per-tensor
        ``_version``, bumped by every optimizer step and ``load_state_dict``)."""
        c = self.__dict__.get("_np")
        if c is not None and c[0] == [p._version for p in c[1]]:
            return c[2]
        params = dict(self.named_parameters())
        W = {k: v.detach().cpu().numpy() for k, v in params.items()}
        X, I = self.X, self.I
        w0 = W["slot_enc.0.weight"]

        def stack(names):  # linears over one input, as one matrix product
            return (np.concatenate([W[n + ".weight"] for n in names]).T.copy(),
                    np.concatenate([W[n + ".bias"] for n in names]), np.cumsum([len(W[n + ".bias"]) for n in names])[:-1])

        packed = {
            # slot_enc.0 over [armies (X), info (I), relative seat (S)], split by input
            "enc_a": w0[:, :X].T.copy(), "enc_i": w0[:, X:X + I].T.copy(), "enc_r": w0[:, X + I:].T.copy(),
            "enc_b": W["slot_enc.0.bias"], "enc2": (W["slot_enc.2.weight"].T.copy(), W["slot_enc.2.bias"]),
            "army": (W["army_enc.0.weight"].T.copy(), W["army_enc.0.bias"]),
            "glob": (W["glob.0.weight"].T.copy(), W["glob.0.bias"]),
            "latent": stack(["monster", "weapon_ctx", "ctx", "army_ctx"]),
            "me": stack(["weapon_slot", "user", "army_user"]),
            "target": (W["target.weight"].T.copy(), W["target.bias"]),
            "army_t": (W["army_t.weight"].T.copy(), W["army_t.bias"]),
            "weapon_out": (W["weapon_out.weight"].T.copy(), W["weapon_out.bias"]),
            "rest": np.asarray(self.rest_idx, np.intp),
        }
        self._np = ([p._version for p in params.values()], list(params.values()), packed)
        return packed

    def numpy_logits(self, obs: np.ndarray) -> np.ndarray:
        """``action_logits(forward(obs))`` computed in numpy (float32), for a batch of observations;
        the same values as the torch pass up to float rounding."""
        return self.numpy_forward(obs)[0]

    def numpy_forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits, features) of ``numpy_logits``: the features are ``forward(obs)``."""
        P = self._numpy_weights()
        obs = np.asarray(obs, np.float32)
        B, S, F, X, I = obs.shape[0], self.S, self.F, self.X, self.I
        armies = obs[:, self.armies_off:self.armies_off + S * F * X].reshape(B * S * F, X)
        info = obs[:, self.info_off:self.info_off + S * I].reshape(B, S, I)
        ctx = (info @ P["enc_i"] + P["enc_r"][None] + P["enc_b"]).reshape(B * S, -1)  # per (game, army)
        rows = np.flatnonzero(armies[:, 0] > 0)                          # occupied slots only
        h = np.maximum(armies[rows] @ P["enc_a"] + ctx[rows // F], 0)
        w2, b2 = P["enc2"]
        d = w2.shape[1]
        e = np.zeros((B * S * F, d), np.float32)
        e[rows] = np.maximum(h @ w2 + b2, 0)
        e = e.reshape(B, S, F, d)
        count = np.maximum(armies[:, 0].reshape(B, S, F).sum(axis=2), 1.0)[..., None]
        # the embeddings are >= 0 (ReLU) and 0 on empty slots: the plain max is the masked max
        pooled = np.concatenate([e.sum(axis=2) / count, e.max(axis=2), info,
                                 np.broadcast_to(np.eye(S, dtype=np.float32), (B, S, S))], axis=2)
        wa, ba = P["army"]
        a = np.maximum(pooled @ wa + ba, 0)                               # (B, S, d)
        wg, bg = P["glob"]
        latent = np.maximum(np.concatenate([a.reshape(B, -1), obs[:, P["rest"]]], axis=1) @ wg + bg, 0)
        wl, bl, cut = P["latent"]
        monster_end, weapon_ctx, use_ctx, ram_ctx = np.split(latent @ wl + bl, cut, axis=1)
        me = e[:, 0]                                                      # (B, F, d) own slots
        wm, bm, cut = P["me"]
        weapon_slot, user, army_user = np.split(me @ wm + bm, cut, axis=2)
        wo, bo = P["weapon_out"]
        weapon = (np.maximum(weapon_slot + weapon_ctx[:, None, :], 0) @ wo + bo).transpose(0, 2, 1).reshape(B, -1)
        wt, bt = P["target"]
        use = self._np_pairs(user, e.reshape(B, S * F, d) @ wt + bt, use_ctx)
        wt, bt = P["army_t"]
        ram = self._np_pairs(army_user, a @ wt + bt, ram_ctx)
        logits = np.concatenate([monster_end[:, :self.dm], weapon, monster_end[:, self.dm:],
                                 use.reshape(B, -1), ram.reshape(B, -1)], axis=1)
        return logits, latent

    @staticmethod
    def _np_pairs(user: np.ndarray, target: np.ndarray, ctx: np.ndarray) -> np.ndarray:
        q, bu = user[..., :-1] + ctx[:, None, :], user[..., -1:]
        k, bt = target[..., :-1], target[..., -1]
        return q @ k.transpose(0, 2, 1) / np.float32(q.shape[-1] ** 0.5) + bu + bt[:, None, :]

    @staticmethod
    def _pairs(user: torch.Tensor, target: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
        """Pointer scores (B, users, targets): (query + context) . key / sqrt(k) + biases."""
        q, bu = user[..., :-1] + ctx[:, None, :], user[..., -1:]
        k, bt = target[..., :-1], target[..., -1]
        return torch.bmm(q, k.transpose(1, 2)) / q.shape[-1] ** 0.5 + bu + bt[:, None, :]


class ExtractorHead(nn.Module):
    """The policy's ``action_net`` for extractors that compute their own logits."""

    def __init__(self, extractor):
        super().__init__()
        self._extractor = [extractor]  # a plain reference: its parameters belong to the policy already

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self._extractor[0].action_logits(latent)
