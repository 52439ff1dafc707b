"""The monster's move in the players' language: the rendering step after the engine's typed plan.

The engine (engine/plan.py) stays pure and gives structured steps, looks and events; its English
sentences (``Plan.lines()``) are the msgids here, one translatable template per event kind with
named fields (squares, pawns, directions, rule ids).  ``plan_lines(plan, "en")`` is exactly
``plan.lines()`` (tests/test_i18n_plan.py checks every scenario), and French, German and Spanish
use the games' own words (pierre, flaque de sang, téléporteur; Stein, Blutlache; piedra, charco…).
Rule ids (M4, T2…) stay as they are in every language: they name the printed rules.
"""
from __future__ import annotations

from engine.geometry import direction_name, square_name
from engine.plan import Eat, Enter, Look, Pivot, Plan, Push, Slide, Step, Stop, Teleport, Wrap

from . import gettext as _g
from . import pgettext as _pg
from . import pick

N_ = lambda s: s   # noqa: E731 - marks a msgid for extraction; translated where it is used
NP_ = lambda context, s: s   # noqa: E731 - the same with a context (pgettext)

DIRECTION_WORDS = (NP_("direction", "N"), NP_("direction", "E"), NP_("direction", "S"), NP_("direction", "W"))

COLOUR_WORDS = {"blue": N_("blue"), "yellow": N_("yellow"), "red": N_("red"), "green": N_("green"),
                "purple": N_("purple"), "black": N_("black"), "white": N_("white")}
# The colour inside a pawn's name agrees with the language's word for pawn (es: la ficha roja), while a
# player's colour (COLOUR_WORDS) is a name of its own (es: rojo): hence a context of their own.
PAWN_COLOUR_WORDS = {"blue": NP_("pawn", "blue"), "yellow": NP_("pawn", "yellow"), "red": NP_("pawn", "red"),
                     "green": NP_("pawn", "green"), "purple": NP_("pawn", "purple"), "black": NP_("pawn", "black"),
                     "white": NP_("pawn", "white")}
# Between a step's events; French sets a space before the semicolon (translations/GLOSSARY.md).
EVENT_SEPARATOR = N_("; ")
STONE_WORDS = {"stone": N_("the stone"), "crystal": N_("the crystal"),
               "pivot-right": N_("the pivot-right"), "pivot-about": N_("the pivot-about")}
STOP_WORDS = {"steps": N_("all steps taken"), "prey": N_("enough prey eaten"), "cap": N_("20-step cap reached")}
SIDE_WORDS = {"ahead": N_("ahead"), "left": N_("left"), "right": N_("right")}


def colour_name(lang: str, colour: str) -> str:
    return _g(lang, COLOUR_WORDS[colour]) if colour in COLOUR_WORDS else colour


def pawn_name(lang: str, name: str) -> str:
    """A pawn's name (``red 3/4``) in ``lang`` (``Rot 3/4``, ``le pion rouge 3/4``, ``la ficha roja 3/4``: the
    article comes with the name, as with ``the stone``); a bare label stays as it is."""
    colour, _, rest = name.partition(" ")
    if rest and colour in PAWN_COLOUR_WORDS:
        return _g(lang, "%(colour)s %(kind)s", colour=_pg(lang, "pawn", colour), kind=rest)
    return name


class Words:
    """The wording of one plan in one language (pawn names and directions included)."""

    def __init__(self, plan: Plan, lang: str):
        self.lang = pick(lang)
        self.names = plan.names

    def say(self, message: str, **params) -> str:   # a keyword of the catalog extraction
        return _g(self.lang, message, **params)

    def d(self, direction: int) -> str:
        return _pg(self.lang, "direction", direction_name(direction))

    def pawn(self, label: str) -> str:
        return pawn_name(self.lang, self.names.get(label, label))

    # -- the look (M3, M4) --
    def look(self, look: Look) -> str:
        where = self.say("from %(square)s facing %(direction)s", square=square_name(look.at), direction=self.d(look.facing))
        if look.case == "nothing seen":
            return self.say("%(where)s it sees no pawn and keeps facing %(direction)s (M4 nothing seen)",
                          where=where, direction=self.d(look.facing))
        seen = [(s, self.say("%(pawn)s on %(square)s (%(distance)s %(side)s)", pawn=self.pawn(s.pawn),
                           square=square_name(s.square), distance=s.distance, side=self.say(SIDE_WORDS[s.side])))
                for s in look.sightings if s.pawn is not None]
        if look.case == "tie":
            return self.say("%(where)s it sees %(seen)s: equally near, so it keeps facing %(direction)s (M4 tie)",
                          where=where, seen=self.say(" and ").join(x for _, x in seen), direction=self.d(look.facing))
        target = next(s for s in look.sightings if s.pawn is not None and s.direction == look.new_facing)
        what = self.say("%(pawn)s on %(square)s", pawn=self.pawn(target.pawn), square=square_name(target.square))
        target_name = look.names.get(target.pawn, target.pawn)
        others = [x for s, x in seen if look.names.get(s.pawn, s.pawn) != target_name]
        also = self.say("; it also sees %(others)s", others=", ".join(others)) if others else ""
        new = self.d(look.new_facing)
        if look.turn == "none":
            return self.say("%(where)s it sees %(what)s, %(distance)s ahead, the nearest, and keeps facing %(direction)s "
                          "(M4 nearest%(also)s)", where=where, what=what, distance=target.distance, direction=new, also=also)
        if look.turn == "left":
            return self.say("%(where)s it sees %(what)s, %(distance)s to its left, the nearest, and turns left to face "
                          "%(direction)s (M4 nearest%(also)s)", where=where, what=what, distance=target.distance,
                          direction=new, also=also)
        return self.say("%(where)s it sees %(what)s, %(distance)s to its right, the nearest, and turns right to face "
                      "%(direction)s (M4 nearest%(also)s)", where=where, what=what, distance=target.distance,
                      direction=new, also=also)

    # -- events (M2, M5–M9, T2, T3, B2) --
    def event(self, e) -> str:
        kind = type(e)
        if kind is Enter:
            return self.say("moves to %(square)s", square=square_name(e.square))
        if kind is Slide:
            return self.say("slides onto %(square)s", square=square_name(e.square))
        if kind is Wrap:
            return self.say("walks through wall %(wall)s from %(start)s to %(to)s (M7)", wall=e.wall,
                          start=square_name(e.start), to=square_name(e.to))
        if kind is Teleport:
            return self.say("steps on the teleporter on %(start)s and jumps to %(to)s, facing %(direction)s (T2)",
                          start=square_name(e.start), to=square_name(e.to), direction=self.d(e.facing))
        if kind is Pivot:
            message = (self.say("the pivot-right stone on %(square)s turns it right to face %(direction)s (M9)")
                       if e.stone == "pivot-right" else
                       self.say("the pivot-about stone on %(square)s turns it about to face %(direction)s (M9)"))
            return message % {"square": square_name(e.square), "direction": self.d(e.facing)}
        if kind is Eat:
            return self.say("eats %(pawn)s on %(square)s (M5)", pawn=self.pawn(e.pawn), square=square_name(e.square))
        if kind is Stop:
            return self.say("the pools run all the way round through the walls, so the slide would never end: "
                          "it stops on %(square)s (M8)", square=square_name(e.square))
        return self.push(e)

    def push(self, e: Push) -> str:
        what = self.pawn(e.pawn) if e.pawn is not None else self.say(STONE_WORDS[e.stone])
        start = square_name(e.start)
        if e.by is not None:   # a stone pushed on by a pawn sliding across a pool (B2 ⚖)
            return self.pushed_on(e, what, start)
        if e.wall is not None:
            if e.result == "crushed":
                return self.say("pushes %(what)s from %(start)s off the board through wall %(wall)s: crushed (M6)",
                              what=what, start=start, wall=e.wall)
            return self.say("pushes %(what)s from %(start)s off the board through wall %(wall)s: removed (M6)",
                          what=what, start=start, wall=e.wall)
        if e.result == "destroyed":
            return self.say("pushes %(what)s from %(start)s onto the teleporter on %(square)s: destroyed (T3)",
                          what=what, start=start, square=square_name(e.path[-1]))
        if e.result == "removed" and e.slid:
            return self.say("pushes %(what)s from %(start)s; it slides across the pool onto the corner %(square)s: "
                          "removed (B2)", what=what, start=start, square=square_name(e.path[-1]))
        if e.result == "removed":
            return self.say("pushes %(what)s from %(start)s onto the corner %(square)s: removed (M6)",
                          what=what, start=start, square=square_name(e.path[-1]))
        if e.result == "slid":
            return self.say("pushes %(what)s from %(start)s; it slides across the pool to %(to)s (B2)",
                          what=what, start=start, to=square_name(e.to))
        return self.say("pushes %(what)s from %(start)s to %(to)s (M6)", what=what, start=start, to=square_name(e.to))

    def pushed_on(self, e: Push, what: str, start: str) -> str:
        pawn = self.pawn(e.by)
        if e.result == "destroyed":
            return self.say("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s onto the teleporter on "
                            "%(square)s: destroyed (B2, T3)", pawn=pawn, what=what, start=start,
                            square=square_name(e.path[-1]))
        if e.result == "removed":
            return self.say("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s onto the corner "
                            "%(square)s: removed (B2, P7)", pawn=pawn, what=what, start=start,
                            square=square_name(e.path[-1]))
        if e.result == "slid":
            return self.say("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s; it slides across the "
                            "pool to %(to)s (B2, P7)", pawn=pawn, what=what, start=start, to=square_name(e.to))
        return self.say("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s to %(to)s (B2, P7)",
                        pawn=pawn, what=what, start=start, to=square_name(e.to))

    def step(self, s: Step) -> str:
        return self.say("Step %(number)s: %(look)s; %(events)s; ends on %(square)s.", number=s.number,
                      look=self.look(s.look), events=self.say(EVENT_SEPARATOR).join(self.event(e) for e in s.events),
                      square=square_name(s.end))


def step_texts(plan: Plan, lang: str) -> list[str]:
    """One sentence per step (what the phone speaks as each step animates)."""
    words = Words(plan, lang)
    return [words.step(s) for s in plan.steps]


def plan_lines(plan: Plan, lang: str) -> list[str]:
    """``Plan.lines()`` in ``lang``: one line per step, the final look and how the move ended."""
    words = Words(plan, lang)
    eaten = ", ".join(words.pawn(x) for x in plan.eaten) or words.say("nobody")
    return [words.step(s) for s in plan.steps] + [
        words.say("Final look: %(look)s.", look=words.look(plan.final_look)),
        words.say("The move ends: %(reason)s (%(rule)s); eaten: %(eaten)s.", reason=words.say(STOP_WORDS[plan.stop]),
                rule=plan.stop_rule, eaten=eaten),
    ]


def all_plan_lines(plan: Plan | None) -> dict[str, list[str]]:
    """The move's lines in every language, for the state every phone reads (each shows its own)."""
    from . import LANGUAGES
    return {lang: plan_lines(plan, lang) for lang in LANGUAGES} if plan is not None else {}
