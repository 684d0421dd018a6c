"""Thin wrappers around fastchess: engines by name, the command, the result, the generator pause.

Used by scripts/match, scripts/sprt, scripts/gauntlet and scripts/soak. fastchess plays the games;
this package only builds its command line, keeps its state for a resume and reads what it printed.
"""
