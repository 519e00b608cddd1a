"""Warbah battle flow as AEC sub-steps: sides' casualty choices and the attacker's call-off."""
from __future__ import annotations

import numpy as np

from envs.warbah import battle as B
from envs.warbah import sea as SEA
from envs.warbah import units as UNITS
from envs.warbah import spells as SP
from envs.warbah.config import CALL_OFF, CASUALTY0, TERRAINS


def _side(st, hi: int, walls: int = 0) -> dict:
    h = st.heroes[hi]
    init_mod, kill_mod, extra = [0] * 5, [0] * 5, [0] * 5
    for name, t in h["abil"]:
        if name == "tactics":
            init_mod[t] += 1
        elif name == "leadership":
            kill_mod[t] += 1
        elif name == "prowess":
            extra[t] += 1
    return {"counts": np.append(h["troops"], 1).astype(np.int64), "monster": None,
            "seat": h["seat"], "hero": hi, "init_mod": init_mod, "kill_mod": kill_mod,
            "extra": extra, "defense": st.abil(h, "defense"), "siege": st.abil(h, "siegecraft"),
            "walls_base": walls, "walls_left": walls,
            "wall_damage": 0}


def _neutral(counts, monster=None, walls: int = 0, seat: int = -1) -> dict:
    return {"counts": np.asarray(counts, np.int64), "monster": monster, "seat": seat, "hero": -1,
            "init_mod": [0] * 5, "kill_mod": [0] * 5, "defense": 0, "walls_base": walls,
            "walls_left": walls, "wall_damage": 0}


def start_battle(st, hi: int, cell: int) -> None:
    h = st.heroes[hi]
    walls = st.walls(cell, h["cell"])
    j = st.hero_at(cell)
    kind, treasure = "garrison", 0
    if j >= 0:
        kind, defender = "hero", _side(st, j, walls)
    elif st.encounter[cell] != 0:
        kind = "encounter"
        if st.encounter[cell] < 0:
            st.encounter[cell] = int(st.rng.integers(1, 11))
        enc = st.game.cfg["encounters"][int(st.encounter[cell])]
        treasure = enc.get("treasure", 0)
        if "lose_dice" in enc:  # disease: no battle, troops lost, the hex is cleared
            loss = int(st.rng.integers(1, 11, size=enc["lose_dice"]).sum())
            for _ in range(loss):  # the largest troop group loses first; never the Hero
                if h["troops"].sum() > 0:
                    h["troops"][int(np.argmax(h["troops"]))] -= 1
            _clear_encounter(st, cell)
            return
        counts = np.zeros(5, np.int64)
        for troop, dice in enc.get("groups", []):
            counts[("warriors", "archers", "cavalry", "catapults").index(troop)] += \
                int(st.rng.integers(1, 11, size=dice).sum())
        if enc.get("hero"):
            counts[4] = 1
        mon = enc.get("monster")
        defender = _neutral(counts, [mon["init"], mon["kill"], mon["hits"]] if mon else None, walls)
    else:
        defender = _neutral(np.append(st.garrison[cell], 0), None, walls, int(st.owner[cell]))
    st.battle = {"sides": [_side(st, hi), defender], "kind": kind, "cell": cell,
                 "treasure": treasure, "round": 0, "seg": 0, "kills": [0, 0], "chooser": -1}
    SP.setup_battle(st)  # block A: wizards draw Battle spells
    _run(st)


def _clear_encounter(st, cell: int) -> None:
    st.encounter[cell] = 0
    st.terrain[cell] = TERRAINS.index("clear")


def _run(st) -> None:
    """Resolve segments/rounds until a side must choose casualties or the attacker may call off."""
    b, g = st.battle, st.game
    cap = g.cfg["designed"]["battle_round_cap"]
    UNITS.extend_sides(st, b)  # block B: special unit groups at counts[5:]
    while True:
        # pending kills: a player side with a real choice decides, others lose automatically
        for k in (0, 1):
            side = b["sides"][k]
            while b["kills"][k] > 0:
                if B.destroyed(side):
                    b["kills"][k] = 0
                    break
                if side["seat"] >= 0 and side["hero"] >= 0 and len(B.troop_types_alive(side)) > 1:
                    b["chooser"] = k
                    st.phase, st._cp = "casualty", side["seat"]
                    return
                B.remove_one(side)
                b["kills"][k] -= 1
        a, d = b["sides"]
        if B.destroyed(a) or B.destroyed(d):
            return _finish(st)
        if b["seg"] >= B.SEGMENTS:
            b["round"] += 1
            b["seg"] = 0
            if b.get("mg") is not None:
                SP.end_round(st)  # block A: round-long spell effects end
            for s in (a, d):
                s["walls_left"] = max(0, s["walls_base"] - s["wall_damage"])
            if b["round"] >= cap:
                return _finish(st)
            st.phase, st._cp = "call_off", a["seat"]
            return
        seg = b["seg"]
        extra = (0, 0)
        if b.get("mg") is not None:  # block A: spell segment, delayed spell effects
            if SP.spell_segment(st, seg):
                return
            extra = SP.segment_effects(st, seg)
        if seg == B.segment_of(1):  # Siegecraft: destroy one wall rank in the Initiative 1 segment
            for k in (0, 1):
                other = b["sides"][1 - k]
                n = min(b["sides"][k].get("siege", 0), other["walls_left"])
                other["walls_left"] -= n
                other["wall_damage"] += n
        ka, kd = B.attacks(g, a, seg, st.rng), B.attacks(g, d, seg, st.rng)
        ka, kd = SEA.naval(st, a, d, seg, ka, kd)  # block B: ships and sea monsters
        ka, kd = ka + UNITS.attacks(st, a, seg), kd + UNITS.attacks(st, d, seg)  # block B
        b["kills"] = [B.negate(g, a, kd, st.rng) + extra[0], B.negate(g, d, ka, st.rng) + extra[1]]
        b["seg"] += 1


def battle_step(st, action: int) -> None:
    b = st.battle
    if st.phase == "casualty":
        k = b["chooser"]
        t = action - CASUALTY0 if action < CASUALTY0 + 4 else UNITS.casualty_index(action)
        B.remove_one(b["sides"][k], t)
        b["kills"][k] -= 1
    elif action == CALL_OFF:
        return _finish(st)
    st.phase = "battle"
    _run(st)


def _finish(st) -> None:
    b = st.battle
    SEA.finish(st, b)  # block B: ships written back, drowned armies
    UNITS.finish(st, b)  # block B: surviving special troops written back
    a, d = b["sides"]
    cell = b["cell"]
    ah = st.heroes[a["hero"]]
    lost = int(ah["troops"].sum() - a["counts"][:4].sum())
    ah["lost"] += max(lost, 0)
    ah["troops"] = a["counts"][:4].copy()
    st.wall_damage[cell] += d["wall_damage"]
    if d["hero"] >= 0:
        dh = st.heroes[d["hero"]]
        dh["troops"] = d["counts"][:4].copy()
    elif b["kind"] == "garrison":
        st.garrison[cell] = d["counts"][:4]
    if a["counts"][4] <= 0:
        ah["alive"] = False
        if d["hero"] >= 0:
            st.heroes[d["hero"]]["xp"] += 1
    if B.destroyed(d):
        if d["hero"] >= 0:
            st.heroes[d["hero"]]["alive"] = False
            ah["xp"] += 1
        if b["kind"] == "encounter":
            _clear_encounter(st, cell)
            ah["xp"] += 1
            if ah["alive"]:
                st.pending_treasure.append((a["hero"], b["treasure"]))
        if ah["alive"] and st.hero_at(cell) < 0 and st.land[cell]:  # designed: victor advances
            ah["cell"] = cell
    SP.end_battle(st)  # block A: spells discarded, items of a slain hero taken
    st.battle = None
    st.phase = b.get("return_phase", "battle")  # block B: sea battles return to the move phase
    SEA.after_battle(st, b)
    st._mask = None
