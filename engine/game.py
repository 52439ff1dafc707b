"""Game flow (G1–G11, A1–A2): turns, the deck, rounds and the winner, as immutable values.

``Game.apply(action) -> Game`` is a pure transition (pgx style): the caller
keeps earlier values for undo.  Randomness comes only from ``seed`` (see
engine/deck.py), so ``to_json``/``from_json`` round-trip exactly and
replaying the same actions gives an equal game.  Pawn rules live in
engine/pawns.py and the monster in engine/monster.py; this module only
decides who may act, flips pawns (G3), and keeps score.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property

from . import deck as tiles
from .actions import Action, Correct, Draw, Move, PawnAt, Place, Tile, parse_action
from .errors import GameActionError, InvalidSetupError
from .geometry import EXIT, E, parse_square
from .monster import Plan, resolve
from .pawns import apply_moves, explain, reachable
from .placement import PIECES, apply_placement, check_placement, parse_placement, pieces_words
from .position import (
    BOARD,
    COLOURS,
    FOUR_PAWN_COLOURS,
    GONE,
    OUT,
    WAITING,
    Pawn,
    Position,
    basic_position,
    pawn_label,
)
from .wording import (
    N_,
    NP_,
    Cap,
    Colour,
    Join,
    Moves,
    PawnName,
    Plural,
    Text,
    join_and,
    join_or,
    listing,
    words_from_json,
    words_json,
)

FORMAT = "flure-game/1"
PHASES = ("placement", "pawns", "monster", "over")
SETUPS = ("basic", "advanced")
FOUR_PAWN_SET = ("6/1", "4/3", "3/4", "2/5")   # G1, 2–4 players
THREE_PAWN_SET = ("6/1", "3/4", "2/5")         # G1, 5–7 players
FIRST_TURN_ENTRIES = 2                         # G4
CORRECTED = N_("The referee corrected the position.")


def pawn_set(n_players: int) -> tuple[str, ...]:
    return FOUR_PAWN_SET if n_players <= 4 else THREE_PAWN_SET


@dataclass(frozen=True)
class Game:
    """One game of Finstere Flure between ``players`` (colours, clockwise) and the monster.

    Build with :meth:`Game.new`; change only through :meth:`apply`.
    """

    players: tuple[str, ...]
    first_player: str
    setup: str
    prey3_variant: bool
    seed: int
    position: Position
    phase: str
    round: int = 1
    turn: int = 1
    deck: tuple[str, ...] = ()            # face down, top first
    tiles_played: tuple[str, ...] = ()    # this round, in order
    unmoved: tuple[str, ...] = ()         # pawn labels still to move this pawn phase (G3)
    to_move: str | None = None            # colour whose pawn moves now
    placer: str | None = None             # colour placing the next piece (A2)
    pieces_left: tuple[tuple[str, int], ...] = ()
    out_log: tuple[str, ...] = ()         # colour of each pawn that got out, in order (G10 tie-break)
    winner: str | None = None
    end_rule: str | None = None           # "G2" or "G10" once the game is over
    note: object = ""                     # what the last action did: wording data (engine.wording), or its
                                          # English as a saved game gives it back
    last_tile: str | None = None          # the last monster move: tile, position before, where eaten went
    last_before: Position | None = None
    last_eaten_place: str | None = None

    # -- creation ----------------------------------------------------------
    @classmethod
    def new(cls, players, first_player: str | None = None, setup: str = "basic", *,
            prey3_variant: bool = False, seed: int = 0) -> "Game":
        """A new game (G1).  ``seed`` decides every shuffle; pass a fresh random one per game."""
        players = _check_players(players)
        if first_player is None:
            first_player = players[0]
        if first_player not in players:
            raise InvalidSetupError(Text(N_("the first player %(player)s is not one of the players (%(players)s)"),
                                         player=repr(first_player), players=", ".join(players)), "first_player")
        if setup not in SETUPS:
            raise InvalidSetupError(Text(N_("setup must be basic or advanced, not %(value)s"), value=repr(setup)), "setup")
        if not isinstance(prey3_variant, bool):
            raise InvalidSetupError(Text(N_("prey3_variant must be true or false")), "prey3_variant")
        if prey3_variant and len(players) < 6:
            raise GameActionError(Text(N_("The three-prey variant is only for 6 or 7 players, not %(num)s"),
                                       num=len(players)), rule="G11")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InvalidSetupError(Text(N_("seed must be a whole number, not %(value)s"), value=repr(seed)), "seed")
        pawns = tuple(Pawn(pawn_label(c, k), c, k, "white", WAITING, None)
                      for c in players for k in pawn_set(len(players)))
        deck = tiles.shuffled(tiles.TILES, seed, "round-1")
        if setup == "basic":
            game = cls(players, first_player, setup, prey3_variant, seed, basic_position(pawns), "placement",
                       deck=deck)
            return game._start_pawn_phase(first_player, **_note(Text(N_("New game, basic setup."))))
        position = Position(EXIT, E, {}, frozenset(), {}, pawns)
        return cls(players, first_player, setup, prey3_variant, seed, position, "placement", deck=deck,
                   placer=first_player, pieces_left=tuple(PIECES.items()),
                   **_note(Text(N_("New game, advanced setup: %(colour)s places the first piece (A2)."),
                                colour=Colour(first_player))))

    # -- read-only views ---------------------------------------------------
    @property
    def deck_left(self) -> int:
        return len(self.deck)

    @property
    def set_size(self) -> int:
        return len(pawn_set(len(self.players)))

    @cached_property
    def last_plan(self) -> Plan | None:
        """The last monster move, re-resolved from its stored start (resolve is deterministic)."""
        if self.last_tile is None or self.last_before is None or self.last_eaten_place is None:
            return None     # no monster move yet (the three are set together)
        return resolve(self.last_before, self.last_tile, eaten_place=self.last_eaten_place,
                       prey3_variant=self.prey3_variant)

    def out_counts(self) -> dict[str, int]:
        counts = {c: 0 for c in self.players}
        for p in self.position.pawns:
            if p.place == OUT:
                counts[p.owner] += 1
        return counts

    def pawns_of(self, colour: str) -> tuple[Pawn, ...]:
        return tuple(p for p in self.position.pawns if p.colour == colour)

    @property
    def first_tile_of_game(self) -> bool:
        return self.round == 1 and not self.tiles_played

    def seen_movers(self) -> tuple[str, ...]:
        """The pawns whose move the board can show now: those of the player to move not yet moved (G3),
        less the pawns G4 keeps beside the board (in the very first turn, once two of their colour are on
        it), which may only be flipped there — no change a camera sees."""
        if self.phase != "pawns" or self.to_move is None:
            return ()
        mine = [self.position.pawn(x) for x in self.unmoved]
        return tuple(p.label for p in mine if p.colour == self.to_move
                     and not (p.place == WAITING and self._entries_exhausted(p.owner)))

    def targets(self, label: str) -> list[dict]:
        """Where pawn ``label`` may end its move now: ``{"square": "k5"|"out"|None, "moves": "WWN"}``.

        ``None`` is staying beside the board (a waiting pawn is "moved" by flipping,
        G5).  Empty when the pawn may not move now.
        """
        if self.phase != "pawns" or label not in self.unmoved:
            return []
        pawn = self.position.pawn(label)
        if pawn.colour != self.to_move:
            return []
        found: list[dict] = []
        if pawn.place == WAITING:
            found.append({"square": None, "moves": ""})
            if self._entries_exhausted(pawn.owner):
                return found
        options = reachable(self.position, label)
        squares = sorted((sq for sq in options if sq != "out"), key=parse_square)  # board order, a1 b1 …
        found.extend({"square": sq, "moves": options[sq]} for sq in squares + ["out"] * ("out" in options))
        return found

    def preview(self) -> dict[str, Plan]:
        """What each tile still possible would do from the current position (G7, G8)."""
        if self.phase not in ("pawns", "monster") or self.position.status():
            return {}   # an impossible board (a referee correction) is fixed before the monster moves
        eaten_place = self._eaten_place()
        plans = {}
        for tile in dict.fromkeys(sorted(self.deck, key=tiles.TILES.index)):
            if self.first_tile_of_game and tiles.is_prey(tile, prey3_variant=self.prey3_variant):
                continue
            plans[tile] = resolve(self.position, tile, eaten_place=eaten_place, prey3_variant=self.prey3_variant)
        return plans

    def summary(self) -> Text | Join:
        """One plain-language status line for the players, as wording data (its ``str()`` is the English)."""
        if self.phase == "over":
            return self.result_words()
        if self.phase == "placement":
            left = dict(self.pieces_left)
            return Plural("Advanced setup: %(colour)s places the next piece (A2); %(num)s left: %(pieces)s.",
                          "Advanced setup: %(colour)s places the next piece (A2); %(num)s left: %(pieces)s.",
                          sum(left.values()), colour=Colour(self.placer), pieces=pieces_words(left))
        deck = Plural("%(num)s tile left in the deck", "%(num)s tiles left in the deck", self.deck_left)
        if self.phase == "monster":
            return Text(N_("Round %(round)s, turn %(turn)s: every pawn has moved; reveal the monster's tile (G7). "
                           "%(deck)s."), round=self.round, turn=self.turn, deck=deck)
        mine = [PawnName(self.position.pawn(lab).name) for lab in self.unmoved
                if self.position.pawn(lab).colour == self.to_move]
        return Text(N_("Round %(round)s, turn %(turn)s: %(colour)s moves %(pawns)s (G3). %(deck)s."), round=self.round,
                    turn=self.turn, colour=Colour(self.to_move), pawns=join_or(mine), deck=deck)

    # -- transitions -------------------------------------------------------
    def _correct(self, action: Correct) -> "Game":
        """The referee's "correct the board": the same game on ``action.position`` (logged and undone
        like any action by the table session).

        The pawns must be the game's own.  Pawns no longer in play drop out of
        this phase's order; a pawn put out counts for G2 and the G10 tie-break.
        """
        position = action.position
        same = [(p.label, p.colour, p.kind) for p in position.pawns]
        if same != [(p.label, p.colour, p.kind) for p in self.position.pawns]:
            raise InvalidSetupError(Text(N_("the corrected position must hold exactly this game's pawns, with their "
                                            "colours and numbers")), "position.pawns")
        out_log = list(self.out_log)
        for old, new in zip(self.position.pawns, position.pawns):
            if new.place == OUT and old.place != OUT:
                out_log.append(new.owner)
            elif old.place == OUT and new.place != OUT:
                del out_log[len(out_log) - 1 - out_log[::-1].index(old.owner)]
        in_play = {p.label for p in position.pawns if p.in_play}
        unmoved = tuple(x for x in self.unmoved if x in in_play)
        game = replace(self, position=position, unmoved=unmoved, out_log=tuple(out_log), **_note(Text(CORRECTED)))
        if self.phase not in ("pawns", "monster"):
            return game
        ended = game._check_end()
        if ended is not None:
            return ended
        if self.phase == "pawns":
            colours = {position.pawn(x).colour for x in unmoved}
            nxt = self.to_move if self.to_move in colours else game._next_mover(self.to_move, unmoved)
            return replace(game, to_move=nxt, phase="pawns" if nxt else "monster")
        return game

    def apply(self, action: Action | dict) -> "Game":
        """The game after ``action``; raises (GameActionError, IllegalMoveError, InvalidSetupError) and
        leaves this game as it was when the action does not fit.

        ``action`` is one of engine.actions' types, or its JSON form (read by ``parse_action``):
          {"type": "move", "pawn": "red-6/1", "moves": "IWWN"}      unit moves N E S W, I enter, X leave (P1–P8)
          {"type": "pawn-at", "pawn": "red-6/1", "square": "k5"}    a pawn seen on a square, "out" or null
                (beside the board); optional "stones": {square: kind} as seen after the move decides
                between moves that push stones differently
          {"type": "draw"}                                           reveal the top tile of the seeded deck (G7, G8)
          {"type": "tile", "tile": "8"}                              a tile revealed at the table (in the deck)
          {"type": "place", "piece": "teleporter", "square": "g7", "arrow": "N", "pair": 1}
                advanced setup (A2); pools name their north-west square, "pool-1x4" takes
                "orientation": "horizontal" (default) or "vertical"; "pair" defaults to the first with room
          {"type": "correct", "position": {setup}}                  the referee puts the board right (any phase
                but the end); the pawns stay the game's own
        A pawn is named by its label ("red-6/1") or the name players read ("red 6/1").
        """
        action = parse_action(action)
        if self.phase == "over":
            raise GameActionError(Text(N_("The game is over. %(result)s"), result=self.result_words()))
        if isinstance(action, Correct):
            return self._correct(action)
        if isinstance(action, Place):
            return self._place(action)
        if self.phase == "placement":
            raise GameActionError(Text(N_("The advanced setup is not finished: %(colour)s places the next piece"),
                                       colour=Colour(self.placer)), rule="A2")
        if isinstance(action, (Move, PawnAt)):
            return self._pawn_action(action)
        return self._monster_action(action)

    # pawn phase ............................................................
    def _pawn_action(self, action: Move | PawnAt) -> "Game":
        label = action.pawn   # the label "red-6/1" or the name players read, "red 6/1"
        label = next((p.label for p in self.position.pawns if label in (p.label, p.name)), label)
        if not any(p.label == label for p in self.position.pawns):
            known = ", ".join(p.label for p in self.position.pawns)
            raise InvalidSetupError(Text(N_("there is no pawn %(label)s in this game (pawns: %(known)s)"), label=repr(label),
                                         known=known), "pawn")
        pawn = self.position.pawn(label)
        self._check_may_move(pawn)
        moves = action.moves if isinstance(action, Move) else self._explain(pawn, action)
        if pawn.place == WAITING and moves and self._entries_exhausted(pawn.owner):
            brought = join_and(PawnName(p.name) for p in self.pawns_of(pawn.owner) if p.place == BOARD)
            raise GameActionError(Text(N_("In the first turn each player brings only %(num)s pawns onto the board; "
                                          "%(colour)s already brought %(brought)s, so %(pawn)s is just flipped "
                                          "beside the board"), num=FIRST_TURN_ENTRIES, colour=Colour(pawn.colour),
                                       brought=brought, pawn=PawnName(pawn.name)), rule="G4")
        moved = apply_moves(self.position, label, moves)
        after = moved.pawn(label).flipped()
        position = moved.with_pawn(after)
        out_log = self.out_log + ((pawn.owner,) if after.place == OUT else ())
        stays_why = "G4" if self._entries_exhausted(pawn.owner) else "G5"
        note = _describe_move(pawn, after, moves, stays_why)
        unmoved = tuple(x for x in self.unmoved if x != label)
        game = replace(self, position=position, unmoved=unmoved, out_log=out_log, **_note(note))
        ended = game._check_end()
        if ended is not None:
            return ended
        nxt = game._next_mover(pawn.colour, unmoved)
        if nxt is None:
            return replace(game, phase="monster", to_move=None,
                           **_then(game, Text(N_("Every pawn has moved: the monster's turn (G3)."))))
        return replace(game, to_move=nxt)

    def _check_may_move(self, pawn: Pawn) -> None:
        if self.phase == "monster":
            raise GameActionError(N_("Every pawn has moved this turn; it is the monster's turn: "
                                     "draw or enter a tile"), rule="G3")
        name = PawnName(pawn.name)
        if pawn.place == OUT:
            raise GameActionError(Text(N_("%(pawn)s is already out of the fortress and moves no more"), pawn=name),
                                  rule="P3")
        if pawn.place == GONE:
            raise GameActionError(Text(N_("%(pawn)s was eaten in round 2 and has left the game"), pawn=name), rule="G9")
        if pawn.colour != self.to_move:
            raise GameActionError(Text(N_("It is %(colour)s's turn, not %(other)s's"), colour=Colour(self.to_move),
                                       other=Colour(pawn.colour)), rule="G3")
        if pawn.label not in self.unmoved:
            mine = [PawnName(self.position.pawn(x).name) for x in self.unmoved
                    if self.position.pawn(x).colour == pawn.colour]
            raise GameActionError(Text(N_("%(pawn)s has already moved this turn; %(colour)s moves %(pawns)s"),
                                       pawn=name, colour=Colour(pawn.colour), pawns=join_or(mine)), rule="G3")

    def _explain(self, pawn: Pawn, action: PawnAt) -> str:
        """Find the legal move behind a pawn seen on ``square`` (a physical event)."""
        target = action.square
        after = None
        if action.stones is not None:
            after = replace(self.position, stones={parse_square(sq): kind for sq, kind in action.stones})
        found = explain(self.position, pawn.label, target, after)
        name = PawnName(pawn.name)
        where = {None: Text(N_("beside the board")),
                 "out": Text.in_context("end", NP_("end", "out of the fortress"))}.get(
            target, Text(N_("on %(square)s"), square=target))
        if not found:
            if after is not None and explain(self.position, pawn.label, target):
                raise GameActionError(Text(N_("%(pawn)s can reach %(square)s, but no legal move leaves the stones as "
                                              "they were seen; look at the stones again or enter the move itself"),
                                           pawn=name, square=target), rule="P7")
            why, rule = self._why_not_there(pawn, target)
            assert pawn.value is not None, "a game's pawns have their numbers"
            raise GameActionError(Plural("%(pawn)s cannot legally end its move %(where)s from %(start)s with "
                                         "%(points)s point%(why)s",
                                         "%(pawn)s cannot legally end its move %(where)s from %(start)s with "
                                         "%(points)s points%(why)s", pawn.value, pawn=name, where=where,
                                         start=_where(pawn), points=pawn.value, why=why), rule=rule)
        if len(found) > 1:
            # Several stone layouts possible: prefer the move that leaves the stones alone.
            still = [m for m in found if apply_moves(self.position, pawn.label, m).stones == self.position.stones]
            if not still:
                raise GameActionError(Text(N_("%(pawn)s can reach %(square)s in ways that push stones differently "
                                              "(%(moves)s); enter the move itself"), pawn=name, square=target,
                                           moves=listing(map(Moves, found))), rule="P7")
            return still[0]
        return found[0]

    def _why_not_there(self, pawn: Pawn, target: str | None) -> tuple[Text | str, str]:
        """The plain reason a pawn cannot end on ``target``, when the square itself forbids it."""
        if target is None:
            return Text(N_(": a pawn on the board never goes back beside it")), "P2"
        if target == "out":
            return "", "P3"
        sq = parse_square(target)
        other = self.position.pawn_at(sq)
        if other is not None and other.label != pawn.label:
            return Text(N_(": %(square)s holds %(pawn)s"), square=target, pawn=PawnName(other.name)), "P4"
        if sq == self.position.monster:
            return Text(N_(": the monster stands on %(square)s"), square=target), "P5"
        if sq in self.position.teleporters:
            return Text(N_(": %(square)s is a teleporter"), square=target), "T1"
        return "", "P1"

    def _entries_exhausted(self, colour: str) -> bool:
        """G4: in the very first turn a player brings at most two pawns onto the board."""
        if self.turn != 1:
            return False
        return sum(1 for p in self.pawns_of(colour) if p.place != WAITING) >= FIRST_TURN_ENTRIES

    def _next_mover(self, after: str | None, unmoved: tuple[str, ...]) -> str | None:
        """The next player clockwise after ``after`` (or from the first player) with an unmoved pawn (G5)."""
        colours = {self.position.pawn(x).colour for x in unmoved}
        n = len(self.players)
        start = self.players.index(self.first_player) if after is None else self.players.index(after) + 1
        for i in range(n):
            c = self.players[(start + i) % n]
            if c in colours:
                return c
        return None

    def _start_pawn_phase(self, first: str, **changes) -> "Game":
        unmoved = tuple(p.label for p in self.position.pawns if p.in_play)
        game = replace(self, phase="pawns", first_player=first, unmoved=unmoved, placer=None, **changes)
        if not unmoved:   # only after a referee correction took every pawn out of play
            return replace(game, phase="monster", to_move=None,
                           **_then(game, Text(N_("No pawn is left to move: the monster's turn (G3)."))))
        return replace(game, to_move=game._next_mover(None, unmoved))

    # monster phase .........................................................
    def _monster_action(self, action: Draw | Tile) -> "Game":
        if self.phase != "monster":
            mine = [PawnName(self.position.pawn(x).name) for x in self.unmoved
                    if self.position.pawn(x).colour == self.to_move]
            raise GameActionError(Text(N_("The monster moves only after every pawn has moved: %(colour)s still moves "
                                          "%(pawns)s"), colour=Colour(self.to_move), pawns=join_or(mine)), rule="G3")
        problems = self.position.status_words()
        if problems:   # only after a referee correction; the monster's rules need a possible board
            cite = {"two-pieces": "P4", "teleporter-pair": "A1"}   # the others cite their rule in the text
            raise GameActionError(Text(N_("The monster cannot move until the board is corrected: %(problems)s"),
                                       problems=Join("; ", [words for _, words, _ in problems])),
                                  rule=cite.get(problems[0][0]))
        common = {"first_of_game": self.first_tile_of_game, "prey3_variant": self.prey3_variant}
        if isinstance(action, Draw):
            drawn = tiles.draw_top(self.deck, seed=self.seed, **common)
        else:
            drawn = tiles.take(self.deck, action.tile, **common)
        eaten_place = self._eaten_place()
        plan = resolve(self.position, drawn.tile, eaten_place=eaten_place, prey3_variant=self.prey3_variant)
        parts = [Text(N_("Tile %(effect)s"), effect=tiles.tile_effect_words(drawn.tile,
                                                                            prey3_variant=self.prey3_variant))]
        if drawn.set_aside:
            set_aside = listing(tiles.tile_words(t, prey3_variant=self.prey3_variant) for t in drawn.set_aside)
            parts.insert(0, Text(N_("Revealed %(tiles)s first: the game's first tile may not be a prey tile, so the "
                                    "others were reshuffled (G8). "), tiles=set_aside))
        if plan.eaten:
            names = listing(PawnName(self.position.pawn(x).name) for x in plan.eaten)
            parts.append(Text(N_("; it eats %(pawns)s: back beside the entrance (G9)") if eaten_place == WAITING
                              else N_("; it eats %(pawns)s: out of the game (G9)"), pawns=names))
        if type(action) is Tile and self.first_tile_of_game:
            parts.append(Text(N_(". If prey tiles were revealed before it, shuffle all the other tiles into a new "
                                 "face-down deck (G8)")))
        game = replace(self, position=plan.result, deck=drawn.deck, tiles_played=self.tiles_played + (drawn.tile,),
                       last_tile=drawn.tile, last_before=self.position, last_eaten_place=eaten_place,
                       **_note(Join("", [*parts, "."])))
        game.__dict__["last_plan"] = plan  # already resolved; saves resolving again
        ended = game._check_end()
        if ended is not None:
            return ended
        if len(game.tiles_played) == tiles.TILES_PLAYED_PER_ROUND:
            game = game._end_round()
            if game.phase == "over":
                return game
        nxt = self.players[(self.players.index(self.first_player) + 1) % len(self.players)]
        return game._start_pawn_phase(nxt, turn=self.turn + 1,
                                      **_then(game, Text(N_("%(colour)s is the new first player (G6)."),
                                                         colour=Cap(Colour(nxt)))))

    def _eaten_place(self) -> str:
        return WAITING if self.round == 1 else GONE

    def _end_round(self) -> "Game":
        """G9: after the 7th tile of a round, reshuffle all 8 (round 1) or end the game (round 2)."""
        if self.round == 1:
            game = replace(self, round=2, deck=tiles.shuffled(tiles.TILES, self.seed, "round-2"), tiles_played=(),
                           **_then(self, Text(N_("Round 1 is over: all 8 tiles are reshuffled and round 2 begins; "
                                                 "from now on eaten pawns leave the game (G9)."))))
            return game._check_end() or game
        pawns = tuple(replace(p, place=GONE, square=None) if p.place == BOARD else p for p in self.position.pawns)
        game = replace(self, position=replace(self.position, pawns=pawns),
                       **_then(self, Text(N_("Round 2 is over: pawns still in the fortress count as eaten (G9)."))))
        return game._finish("G10")

    # end of game .........................................................
    def _check_end(self) -> "Game | None":
        """G2 after any move; G10 when round 2 has no pawn left in play."""
        need = self.set_size - 1
        for colour, n in self.out_counts().items():
            if n >= need:
                return self._finish("G2", colour)
        if self.round == 2 and not any(p.in_play for p in self.position.pawns):
            return self._finish("G10")
        return None

    def _finish(self, rule: str, winner: str | None = None) -> "Game":
        if winner is None:
            winner = _tie_break(self.out_counts(), self.out_log)
        game = replace(self, phase="over", winner=winner, end_rule=rule, to_move=None, unmoved=())
        return replace(game, **_then(game, game.result_words()))

    def result_words(self) -> Text | Join:
        """The winner's line as wording data (companion_app/i18n renders it in each language)."""
        counts = self.out_counts()
        if self.winner == "monster":
            return Text(N_("Nobody got a pawn out: the monster wins (G10)."))
        assert self.winner is not None, "a game that is over has a winner"
        n = counts[self.winner]
        parts: list[Text] = [Plural("%(colour)s wins with %(num)s pawn out (%(rule)s)",
                        "%(colour)s wins with %(num)s pawns out (%(rule)s)", n,
                        colour=Cap(Colour(self.winner)), rule=self.end_rule)]
        rivals = [c for c, k in counts.items() if k == n and c != self.winner]
        if self.end_rule == "G10" and rivals:
            parts.append(Text(N_(", having reached %(num)s before %(rivals)s"), num=n,
                              rivals=listing(map(Colour, rivals))))
        return Join("", [*parts, "."])

    # advanced setup ........................................................
    def _place(self, action: Place) -> "Game":
        if self.phase != "placement":
            raise GameActionError(N_("The board pieces are all placed; the game has started"), rule="A2")
        left = dict(self.pieces_left)
        placement = parse_placement(action, self.position)
        check_placement(self.position, placement, left)
        left[placement.piece] -= 1
        position = apply_placement(self.position, placement)
        i = self.players.index(self.placer)
        nxt = self.players[(i + 1) % len(self.players)]
        note = Text(N_("%(colour)s placed %(piece)s (A2)."), colour=Cap(Colour(self.placer)),
                    piece=placement.describe_words())
        game = replace(self, position=position, pieces_left=tuple(left.items()), placer=nxt, **_note(note))
        if sum(left.values()):
            return game
        # A2: the player after the last placer starts the game.
        return game._start_pawn_phase(nxt, **_then(game, Text(N_("All pieces are placed: %(colour)s starts the game "
                                                                 "as first player (A2)."), colour=Colour(nxt))))

    # -- JSON ----------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "players": list(self.players), "first_player": self.first_player, "setup": self.setup,
            "prey3_variant": self.prey3_variant, "seed": self.seed, "phase": self.phase,
            "round": self.round, "turn": self.turn, "position": self.position.to_setup(),
            "deck": list(self.deck), "tiles_played": list(self.tiles_played), "unmoved": list(self.unmoved),
            "to_move": self.to_move, "placer": self.placer, "pieces_left": dict(self.pieces_left),
            "out_log": list(self.out_log), "winner": self.winner, "end_rule": self.end_rule,
            "note": words_json(self.note),      # wording data (an older save: its English text)
            "last": None if self.last_tile is None or self.last_before is None else {
                "tile": self.last_tile, "before": self.last_before.to_setup(), "eaten_place": self.last_eaten_place},
        }

    @classmethod
    def from_json(cls, data) -> "Game":
        """Rebuild a game saved by :meth:`to_json`; malformed data raises InvalidSetupError naming the field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InvalidSetupError(Text(N_("not a saved game (expected %(form)s)"), form=f'"format": "{FORMAT}"'), "format")

        def need(key, where=data, prefix=""):
            if key not in where:
                raise InvalidSetupError(Text(N_("missing from the saved game")), prefix + key)
            return where[key]

        def text(key, value, *, optional=False):
            if value is None and optional:
                return None
            if not isinstance(value, str):
                raise InvalidSetupError(Text(N_("must be text, not %(value)s"), value=repr(value)), key)
            return value

        def whole(key, value):
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidSetupError(Text(N_("must be a whole number, not %(value)s"), value=repr(value)), key)
            return value

        def texts(key, value):
            if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
                raise InvalidSetupError(Text(N_("must be a list of texts")), key)
            return tuple(value)

        players = need("players")
        if not isinstance(players, list):
            raise InvalidSetupError(Text(N_("must be a list of colours")), "players")
        prey3_variant = need("prey3_variant")
        if not isinstance(prey3_variant, bool):
            raise InvalidSetupError(Text(N_("must be true or false, not %(value)s"), value=repr(prey3_variant)),
                                    "prey3_variant")
        pieces = data.get("pieces_left") or {}
        if not isinstance(pieces, dict):
            raise InvalidSetupError(Text(N_("must be an object piece -> number left")), "pieces_left")
        last = data.get("last")
        if last is not None and not isinstance(last, dict):
            raise InvalidSetupError(Text(N_("must be null or an object with tile, before and eaten_place")), "last")
        game = cls(
            players=tuple(players), first_player=need("first_player"), setup=need("setup"),
            prey3_variant=prey3_variant, seed=whole("seed", need("seed")), phase=need("phase"),
            position=Position.from_setup(need("position"), strict=False, where="position"),
            round=whole("round", need("round")), turn=whole("turn", need("turn")),
            deck=texts("deck", need("deck")), tiles_played=texts("tiles_played", need("tiles_played")),
            unmoved=texts("unmoved", need("unmoved")), to_move=text("to_move", need("to_move"), optional=True),
            placer=text("placer", data.get("placer"), optional=True), pieces_left=tuple(pieces.items()),
            out_log=texts("out_log", data.get("out_log", [])),
            winner=text("winner", data.get("winner"), optional=True),
            end_rule=text("end_rule", data.get("end_rule"), optional=True), note=_saved_note(data.get("note", "")),
            last_tile=None if last is None else text("last.tile", need("tile", last, "last.")),
            last_before=None if last is None else Position.from_setup(need("before", last, "last."), strict=False,
                                                                     where="last.before"),
            last_eaten_place=None if last is None else need("eaten_place", last, "last."),
        )
        game._check_saved()
        return game

    def _check_saved(self) -> None:
        """Catch a hand-edited or corrupted save here, with its field, rather than mid-game."""
        try:
            _check_players(self.players)
        except GameActionError as exc:
            raise InvalidSetupError(exc, "players") from None
        if self.first_player not in self.players:
            raise InvalidSetupError(Text(N_("%(player)s is not one of the players"), player=repr(self.first_player)),
                                    "first_player")
        kinds = pawn_set(len(self.players))
        want = [(pawn_label(c, k), c, k) for c in self.players for k in kinds]
        if [(p.label, p.colour, p.kind) for p in self.position.pawns] != want:
            raise InvalidSetupError(Text(N_("must hold each player's pawns %(kinds)s (G1), in player order"),
                                         kinds=", ".join(kinds)),
                                    "position.pawns")
        labels = {p.label: p for p in self.position.pawns}
        phase = self.phase
        left = dict(self.pieces_left)
        checks = [
            ("phase", lambda: phase in PHASES), ("setup", lambda: self.setup in SETUPS),
            ("prey3_variant", lambda: not self.prey3_variant or len(self.players) >= 6),   # G11
            ("round", lambda: self.round in (1, 2)), ("turn", lambda: self.turn >= 1),
            ("deck", lambda: Counter(self.deck) + Counter(self.tiles_played) == Counter(tiles.TILES)),
            ("tiles_played", lambda: len(self.tiles_played) < tiles.TILES_PLAYED_PER_ROUND
             or (phase == "over" and len(self.tiles_played) == tiles.TILES_PLAYED_PER_ROUND)),
            ("unmoved", lambda: len(set(self.unmoved)) == len(self.unmoved)
             and all(x in labels and labels[x].in_play for x in self.unmoved)
             and (phase == "pawns") == bool(self.unmoved)),
            ("to_move", lambda: (self.to_move is None) if phase != "pawns" else
             any(labels[x].colour == self.to_move for x in self.unmoved)),
            ("placer", lambda: (self.placer is None) if phase != "placement" else self.placer in self.players),
            ("setup", lambda: phase != "placement" or self.setup == "advanced"),
            ("pieces_left", lambda: set(left) <= set(PIECES) and all(
                isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= PIECES[k] for k, n in left.items())
             and (phase != "placement" or sum(left.values()) > 0)),
            ("winner", lambda: (self.winner in ("monster", *self.players)) if phase == "over"
             else self.winner is None),
            ("end_rule", lambda: (self.end_rule in ("G2", "G10")) if phase == "over" else self.end_rule is None),
            ("out_log", lambda: Counter(self.out_log) == Counter(p.colour for p in self.position.pawns
                                                                 if p.place == OUT)),
            ("last.tile", lambda: self.last_tile is None or self.last_tile in tiles.TILES),
            ("last.eaten_place", lambda: self.last_eaten_place in ((None,) if self.last_tile is None
                                                                   else (WAITING, GONE))),
            ("last.before", lambda: self.last_before is None
             or ([p.label for p in self.last_before.pawns] == [p.label for p in self.position.pawns]
                 and not self.last_before.status())),
        ]
        for name, ok in checks:   # in order: a later check may rely on an earlier one
            if not ok():
                raise InvalidSetupError(Text(N_("does not fit the rest of the saved game")), name)


# -- helpers ---------------------------------------------------------------
def _check_players(players) -> tuple[str, ...]:
    if isinstance(players, str) or not hasattr(players, "__iter__"):
        raise InvalidSetupError(Text(N_("players must be a list of colours")), "players")
    players = tuple(players)
    if not 2 <= len(players) <= 7:
        raise GameActionError(Text(N_("Finstere Flure is for 2 to 7 players, not %(num)s"), num=len(players)),
                              rule="G1")
    for c in players:
        if c not in COLOURS:
            raise InvalidSetupError(Text(N_("unknown colour %(colour)s (one of %(known)s)"), colour=repr(c),
                                         known=", ".join(COLOURS)), "players")
    dupes = sorted({c for c in players if players.count(c) > 1})
    if dupes:
        raise InvalidSetupError(Text(N_("%(colours)s is chosen twice; each player takes one colour"),
                                     colours=listing(Colour(c) for c in dupes)), "players")
    if len(players) <= 4:
        short = [c for c in players if c not in FOUR_PAWN_COLOURS]
        if short:
            raise GameActionError(Text(N_("With 2–4 players each needs four pawns, and %(short)s has only three: "
                                          "choose from %(colours)s"), short=listing(map(Colour, short)),
                                       colours=listing(map(Colour, FOUR_PAWN_COLOURS))), rule="G1")
    return players


def _tie_break(counts: dict[str, int], out_log: tuple[str, ...]) -> str:
    """G10: most pawns out; a tie goes to whoever reached that number first; nobody out: the monster."""
    best = max(counts.values(), default=0)
    if best == 0:
        return "monster"
    seen: dict[str, int] = {}
    for colour in out_log:
        seen[colour] = seen.get(colour, 0) + 1
        if seen[colour] == best and counts[colour] == best:
            return colour
    return next(c for c, n in counts.items() if n == best)  # only if out_log was lost: player order


def _where(pawn: Pawn) -> Text:
    return Text(N_("on %(square)s"), square=pawn.where()) if pawn.place == BOARD else Text(N_("beside the board"))


def _note(words) -> dict:
    """The ``note`` field of a game whose last action ``words`` says (engine.wording)."""
    return {"note": words}


def _saved_note(value):
    """A saved game's note: wording data (``words_json``), or the English text an older save kept."""
    if isinstance(value, str):
        return value
    try:
        note = words_from_json(value) if isinstance(value, dict) else None
    except (KeyError, TypeError, ValueError, AttributeError):
        note = None
    if note is None or isinstance(note, str):
        raise InvalidSetupError(Text(N_("must be text, not %(value)s"), value=repr(value)), "note")
    return note


def _then(game: "Game", words) -> dict:
    """``game``'s note with ``words`` said after it (an empty note is left out)."""
    return _note(Join(" ", [game.note, words]) if game.note else words)


def _describe_move(before: Pawn, after: Pawn, moves: str, stays_why: str = "G5") -> Text:
    """What a pawn's move did, for the game log (the pawn is flipped after every move, G3)."""
    name = PawnName(before.name)
    if after.place == OUT:
        return Text(N_("%(pawn)s leaves the fortress through the exit (P3) and is flipped (G3)."), pawn=name)
    if after.place == WAITING and stays_why == "G4":
        return Text(N_("%(pawn)s stays beside the board (G4: %(colour)s already brought %(num)s pawns in) and is "
                       "flipped (G3)."), pawn=name, colour=Colour(before.colour), num=FIRST_TURN_ENTRIES)
    if after.place == WAITING:
        return Text(N_("%(pawn)s stays beside the board (G5) and is flipped (G3)."), pawn=name)
    if before.place == BOARD and before.square == after.square:
        return Text(N_("%(pawn)s stays on %(square)s and is flipped (G3)."), pawn=name, square=after.where())
    return Text(N_("%(pawn)s moves to %(square)s (%(moves)s) and is flipped (G3)."), pawn=name, square=after.where(),
                moves=Moves(moves))
