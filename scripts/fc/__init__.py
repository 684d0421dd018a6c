"""What the fastchess wrappers share: engines by name, the command line, the run, its result, the pause."""
