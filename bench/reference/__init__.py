"""Reference casual players, one per game (issue 31): how a decent person plays from the rules
page, written from ``docs/rules/<game>.md`` without the bots' code in view, so that the bot
ladder (``bench/ladder.py --field reference``) measures the bots against an independent
yardstick. Each module has ``choose(game, state, seat, rnd) -> action | None``, deciding only
from what the seat's view shows (``game.view(state, seat)``) and ``game.legal_actions``."""
