"""Brudno's match tooling: statistics, time controls, openings, engine drivers (UCI and xboard),
a game runner built on python-chess, and the delegation to cutechess-cli / fastchess.

Used by scripts/match, scripts/gauntlet and scripts/suite; tested by scripts/tests/.
"""
