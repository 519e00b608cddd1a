"""A person against agents: the loop behind ``arena play`` and ``arena serve``.

    from tabletop_arena.app.match import Match
    match = Match("zaka_v0", {"num_players": 2}, human=0, opponents=["heuristic"], seed=3)
    while not match.over:
        action, text = match.legal_moves()[0]     # the person's choice
        match.play(action)                        # then the agents move until it is the person's turn
    print(match.result().text(match.labels))

The agents' moves go through the one game loop's ``agent_action`` (train/play.py), so an agent
here sees what it sees in the evaluator. ``pick_move`` reads what a person types in the terminal.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Sequence

import numpy as np

from .. import envs
from ..agents.base import Agent
from ..agents.registry import make_agent
from ..envs.core.game import default_max_steps
from ..train.play import MatchError, Move, Result, agent_action, game_result, observe

# ------------------------------------------------------------------------- a person's pick --
#: how many moves a terminal list shows at once (more: type words to narrow them)
LIST_LIMIT = 60
PICK_HELP = ("Type a move's number from the list, words that pick it out (e.g. 'Giants C4': a word "
             "that is a whole word of some moves, such as the cell A1, matches only those, not A10), "
             "'all' to list every move again, 'help' for this, or q to quit.")


@dataclasses.dataclass
class Pick:
    """What a person's typed line chose: ``action`` (None: ask again), the moves to list next
    (``shown``) and a line to print first (``message``, may be None)."""

    action: int | None
    shown: list[tuple[int, str]]
    message: str | None = None


def _has_word(word: str, text: str) -> bool:
    """``word`` stands alone in ``text`` (no letter or digit either side): A1 in 'at A1', not 'at A10'."""
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text) is not None


def filter_moves(words: Sequence[str], legal: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """The moves whose text holds every word (case-insensitive). A word that is a whole word of
    some of them (a cell such as ``A1``, a name) keeps only those: ``A1`` picks ``at A1`` over
    ``at A10``; a part of a word (``gia``) still matches inside words."""
    found = list(legal)
    for word in (w.lower() for w in words):
        found = [m for m in found if word in m[1].lower()]
        exact = [m for m in found if _has_word(word, m[1].lower())]
        if exact:
            found = exact
    return found


def pick_move(text: str, legal: Sequence[tuple[int, str]], shown: Sequence[tuple[int, str]],
              limit: int = LIST_LIMIT) -> Pick:
    """The terminal's move chooser (``arena play``): ``text`` typed while ``shown`` (the first
    ``limit`` of them numbered) was listed, out of the ``legal`` moves. A number picks from the
    list (out of range: says how many there are), words filter the moves (one match plays it),
    ``help`` / ``?`` explain, ``all`` or an empty line lists every move again."""
    legal, shown = list(legal), list(shown)
    text = text.strip()
    low = text.lower()
    if low in ("help", "h", "?"):
        return Pick(None, shown, PICK_HELP)
    if low in ("", "all", "list"):
        return Pick(None, legal)
    if text.isdigit():
        listed = min(limit, len(shown))
        if int(text) < listed:
            return Pick(shown[int(text)][0], shown)
        more = (f"; {len(shown) - listed} more are not numbered: type words to narrow them"
                if len(shown) > listed else "")
        return Pick(None, shown, f"{text} is out of range: the list has moves 0..{listed - 1}{more} "
                                 f"('help' explains)")
    found = filter_moves(text.split(), legal)
    if len(found) == 1:
        return Pick(found[0][0], found)
    if not found:
        return Pick(None, legal, f"no legal move matches {text!r}; showing all {len(legal)} "
                                 f"('help' explains what to type)")
    return Pick(None, found)


class Match:
    """One game of a person (player ``human``) against agents in every other player's place.

    ``opponents``: agent specs (``random``, ``heuristic``, ``mcts:N``, ``ppo:NAME``, ``ppo:PATH``)
    given to the other players in order, cycled if fewer. ``agent_factory(spec, game, seed)``
    builds them (``agents.make_agent`` by default; the CLI passes one with one-line errors).
    """

    def __init__(self, game: str, options: dict[str, Any] | None = None, human: int = 0,
                 opponents: list[str] | None = None, seed: int | None = None,
                 max_steps: int | None = None, agent_factory: Callable | None = None,
                 game_obj=None):
        self.game_id = envs.resolve(game)
        self.options = dict(options or {})
        self.game = game_obj if game_obj is not None else envs.make_game(self.game_id, **self.options)
        n = self.game.num_agents
        if not isinstance(human, int) or not 0 <= human < n:
            raise MatchError(f"seat must be 0..{n - 1} for this variant ({n} players), got {human!r}")
        opponents = list(opponents or ["heuristic"])
        if not opponents:
            raise MatchError("at least one opponent agent is needed")
        build = agent_factory or make_agent
        self.human = human
        #: the move cap (None: the game's max_game_length(), 1000 where it has none)
        self.max_steps = default_max_steps(self.game) if max_steps is None else max_steps
        self.state = self.game.new_initial_state(seed)
        assert self.state.seed is not None   # an engine-built state records its seed
        self.seed: int = self.state.seed
        self.agents: dict[int, Agent] = {}
        self.specs: dict[int, str] = {}
        k = 0
        for i in range(n):
            if i == human:
                continue
            spec = opponents[k % len(opponents)]
            k += 1
            agent = build(spec, self.game, (self.seed + 1 + i) % 2**63)
            agent.reset((self.seed + 1 + i) % 2**63)
            self.agents[i], self.specs[i] = agent, spec
        self.labels = [f"player_{i} (you)" if i == human else f"player_{i} ({self.specs[i]})"
                       for i in range(n)]
        self._det_rng = np.random.default_rng(self.seed ^ 0x5EED)
        self.log: list[Move] = []
        self.advance()

    # ------------------------------------------------------------------------------- state --
    @property
    def over(self) -> bool:
        return self.state.is_terminal() or len(self.state.history) >= self.max_steps

    @property
    def to_move(self) -> int:
        """The player to move (agent index), -1 once the game is over."""
        if self.over:
            return -1
        return self.game.seat_owner(self.state.current_player)

    @property
    def human_to_move(self) -> bool:
        return self.to_move == self.human

    def observer(self) -> int:
        """The seat whose view the person gets: the acting seat if it is theirs, else their first."""
        seat = self.state.current_player
        if seat >= 0 and self.game.seat_owner(seat) == self.human:
            return seat
        return next(s for s in range(self.game.num_seats) if self.game.seat_owner(s) == self.human)

    def legal_moves(self) -> list[tuple[int, str]]:
        """(action, description) of each legal move of the person ([] when it is not their turn)."""
        if not self.human_to_move:
            return []
        st = self.state
        return [(a, st.action_to_str(a)) for a in st.legal_actions()]

    def result(self) -> Result | None:
        return game_result(self.state) if self.over else None

    # ------------------------------------------------------------------------------- moves --
    def _record(self, action: int) -> Move:
        st = self.state
        seat = st.current_player
        player = self.game.seat_owner(seat)
        move = Move(len(st.history) + 1, player, seat, self.labels[player], int(action), st.action_to_str(action))
        st.apply(action)  # validates: an illegal action raises IllegalActionError, changes nothing
        self.log.append(move)
        return move

    def play(self, action: int) -> list[Move]:
        """The person's move, then the agents' moves up to the person's next turn (or the end)."""
        if self.over:
            raise MatchError("the game is over")
        if not self.human_to_move:
            raise MatchError(f"it is {self.labels[self.to_move]}'s turn, not yours")
        moves = [self._record(int(action))]
        return moves + self.advance()

    def agent_move(self) -> Move:
        """One move of the agent to act."""
        st = self.state
        player = self.game.seat_owner(st.current_player)
        return self._record(agent_action(st, self.agents[player], observe(st), self._det_rng,
                                         self.labels[player]))

    def advance(self, limit: int | None = None) -> list[Move]:
        """Let the agents move until it is the person's turn or the game ends (at most ``limit``)."""
        moves: list[Move] = []
        while not self.over and not self.human_to_move and (limit is None or len(moves) < limit):
            moves.append(self.agent_move())
        return moves
