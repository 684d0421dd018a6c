#!/usr/bin/env bash
# Measurement queue for issue 20, on a frozen binary (results/README.md: how to rebuild
# each one bit for bit). Each job journals its games; a rerun continues where it stopped (same
# binary: same size and mtime). A job is done only when its match ran to the end (an
# interrupted match exits 130). Run alone: zero clock margin. Never edit while it runs.
set -u
# TREE: a worktree of main that stays put while the queue runs (scripts are read per job).
cd "${TREE:-/work/main}"
Q=/work/q
# One queue at a time: a second copy would play its jobs on the same two cores as the first
# (2026-12-02: a copy started without python-chess skipped to the fuzzers, which then ran beside
# the other copy's games for two hours).
exec 9> $Q/queue.lock
flock -n 9 || { echo "queue: another copy is running (lock $Q/queue.lock)" >&2; exit 1; }
# What every match needs; without it each job would fail at once and the queue fall through to
# the fuzzers and the soak.
python3 -c 'import chess' || { echo "queue: python-chess missing (pip install chess)" >&2; exit 1; }
# What the host steals from this VM while the games run, beside each time loss (a late move
# the engine could not see coming: 2026-12-03, up to 39% of the CPU in some minutes).
./scripts/host-steal -log $Q/steal.log -journals "$Q/*.jsonl" 2>> $Q/steal.log &
trap 'kill %1 2> /dev/null' EXIT
O="-openings file=/work/m/openings/8moves_v3_half.pgn order=random"
ADJ="-resign movecount=3 score=600 -draw movenumber=40 movecount=8 score=10"
T1="option.Hash=16 option.Threads=1 option.OwnBook=false"
job() {  # name, then match arguments
    local name=$1; shift
    [ -e $Q/$name.done ] && return 0
    RUST_LOG=secondary=info ./scripts/match "$@" -journal $Q/$name.jsonl -pgnout $Q/$name.pgn \
        -timemargin 0 -quiet > $Q/$name.log 2>&1 && touch $Q/$name.done
}
fuzz_pair() {  # fuzz targets side by side for an hour each (two: one per core)
    local t todo=0
    for t in "$@"; do [ -e $Q/fuzz-$t.done ] || todo=1; done
    [ $todo = 0 ] && return 0
    command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz > $Q/fuzz-install.log 2>&1 || return 1
    [ -e $Q/fuzz-build.done ] || { (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -O \
        > $Q/fuzz-build.log 2>&1) && touch $Q/fuzz-build.done; } || return 1
    local pids=()
    for t in "$@"; do
        [ -e $Q/fuzz-$t.done ] || { ./scripts/fuzz 3600 $t > $Q/fuzz-$t.log 2>&1 &&
            touch $Q/fuzz-$t.done; } &
        pids+=($!)
    done
    # Only the fuzzers: a bare `wait` also waits for host-steal, which never ends
    # (2026-12-04: the queue sat there for 40 minutes instead of starting the soak).
    wait "${pids[@]}"
}
# Issue 19's jobs (sec8, smp-ponder, exp8, judge-exp8, smp-ponder-s, expplacebo8, exp8b,
# checkext8) are done: journals and verdicts in results/, commands in git history (up to
# cfb1210). Their frozen binaries and exp8b's engine log went with a machine (2026-12-03), so
# judge-exp8b (the moves the secondary search changed in exp8b) was dropped with them.
# Issue 20's jobs play the engine as it ships: SHIP=/work/m/brudno-<commit>, frozen as
# results/README.md says (its table names the commit). Without SHIP they are skipped.
SHIP=${SHIP:-}
# Each shipping binary gets its own series and soak (names end in its commit): a fix to the
# engine means a new binary, and its jobs start afresh (2026-12-03: c05165b's soak lost on time
# at 0.05 s a move with pondering; its series and soak journals stay under their names).
V=${SHIP##*/brudno-}
# Since the eighteenth session a batch plays no more games at a time than the cores divided by
# Brudno's Threads (scripts/soak; README, "Oversubscribed at 0.05 s a move").
soak() {  # issue 20's soak on the engine as it ships
    [ -e $Q/soak-$V.done ] && return 0
    ./scripts/soak -engine "$SHIP" -games 10000 -batch 20 -concurrency 2 -timemargin 0 \
        -seed 2020 -openings /work/m/openings/8moves_v3_half.pgn -journal $Q/soak-$V.jsonl \
        -pgnout $Q/soak-$V.pgn -enginelog $Q/enginelog-$V -quiet > $Q/soak-$V.log 2>&1 \
        && touch $Q/soak-$V.done
}
if [ -x "$SHIP" ]; then
# The soak first: on 3e93c18 it found, in its 44th batch, a time loss that the 3,000 games of
# the series had not (2026-12-04; 0.05 s a move, Threads 4, two games at a time).
soak
# Issue 20: the fix for crowded machines (e95a15c) against the engine before it under a game
# clock, both orders (600 games each, declared before they started; the earlier 1,200 games of
# seeds 2104/2105 leaned negative, -14 +/- 15 pooled). BASE: cfb1210's build (results/README.md).
BASE=${BASE:-/work/m/brudno-base}
[ -x "$BASE" ] && job nonreg-a-$V -engine cmd=$SHIP name=fix -engine cmd=$BASE name=base \
    -each tc=1+0.01 $T1 -games 600 -concurrency 2 -seed 2107 $O $ADJ
[ -x "$BASE" ] && job nonreg-b-$V -engine cmd=$BASE name=base -engine cmd=$SHIP name=fix \
    -each tc=1+0.01 $T1 -games 600 -concurrency 2 -seed 2108 $O $ADJ
# Issue 20: zero-margin time safety. Threads 2 against 1 one game at a time; Threads 1 two at a time.
# "-r2": the runner that drops each finished game's PGN tree and reports its own pauses
# (2026-12-05, scripts/matchlib/judge.py). Before it, a full garbage collection late in a
# 1000-game match stopped the judge ~150 ms; ts1-c2-9386ee2 (one time loss) and its logged
# rerun are kept under their names. The two-at-a-time series first: they lost before.
R=r2
job ts1-c2-$V-$R -engine cmd=$SHIP name=A -engine cmd=$SHIP name=B \
    -each tc=1+0.01 $T1 -games 1000 -concurrency 2 -seed 2002 $O
job ts03-c2-$V-$R -engine cmd=$SHIP name=A -engine cmd=$SHIP name=B \
    -each tc=0.3+0.05 $T1 -games 500 -concurrency 2 -seed 2004 $O
job ts03-t2-$V-$R -engine cmd=$SHIP name=T2 option.Threads=2 -engine cmd=$SHIP name=T1 option.Threads=1 \
    -each tc=0.3+0.05 option.Hash=16 option.OwnBook=false -games 500 -concurrency 1 -seed 2003 $O
job ts1-t2-$V-$R -engine cmd=$SHIP name=T2 option.Threads=2 -engine cmd=$SHIP name=T1 option.Threads=1 \
    -each tc=1+0.01 option.Hash=16 option.OwnBook=false -games 1000 -concurrency 1 -seed 2001 $O
else
    echo "issue 20's jobs (the series and the soak): no shipping binary frozen (SHIP=/work/m/brudno-<commit>)" >&2
fi
# Issue 20: each fuzz target an hour; the last lines of each log (runs, cov, corpus) go into
# fuzz/README.md. All five have had theirs (fen, uci_move, polyglot, network 2026-12-02;
# uci_session 2026-12-04): on a fresh machine, touch its .done file.
fuzz_pair uci_session
