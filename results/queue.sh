#!/usr/bin/env bash
# Measurement queue for issues 19 and 20, on the frozen binary of the engine as it ships.
# Each job journals its games; a rerun continues where it stopped (same binary: same size and
# mtime, see results/README.md). Run alone: zero clock margin. Never edit while it runs.
set -u
# TREE: a worktree of main that stays put while the queue runs (scripts are read per job).
cd "${TREE:-/work/main}"
B=/work/m/brudno-470cf52
Q=/work/q
O="-openings file=/work/m/openings/8moves_v3_half.pgn order=random"
ADJ="-resign movecount=3 score=600 -draw movenumber=40 movecount=8 score=10"
T1="option.Hash=16 option.Threads=1 option.OwnBook=false"
job() {  # name, then match arguments
    local name=$1; shift
    [ -e $Q/$name.done ] && return 0
    RUST_LOG=secondary=info ./scripts/match "$@" -journal $Q/$name.jsonl -pgnout $Q/$name.pgn \
        -timemargin 0 -quiet > $Q/$name.log 2>&1 && touch $Q/$name.done
}
# Issue 19: the secondary search against the plain time manager (its placebo, the check
# extension and a longer control further down).
job sec8 -engine cmd=$B name=secondary stderr=$Q/sec8.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
# Issues 19/20: Threads 2 with pondering on both sides (four search threads on two cores).
job smp-ponder -engine cmd=$B name=secondary stderr=$Q/smp-ponder.stderr ponder=true \
    -engine cmd=$B name=plain option.SecondarySearch=false ponder=true \
    -each tc=2+0.02 option.Hash=16 option.Threads=2 option.OwnBook=false option.Ponder=true \
    -games 200 -concurrency 1 -seed 1904 $O $ADJ
# Issue 19: the secondary search along the expected line into the next move (commit 7f7eb42).
E=/work/m/brudno-7f7eb42
job exp8 -engine cmd=$E name=expected stderr=$Q/exp8.stderr \
    -engine cmd=$E name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
# Issue 19: the placebo first — it decides whether this form stays, and the soak waits for that.
job placebo8 -engine cmd=$B name=placebo option.SecondaryPlacebo=21 stderr=$Q/placebo8.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
# Issue 20: zero-margin time safety. Threads 2 against 1 one game at a time; Threads 1 two at a time.
job ts1-t2 -engine cmd=$B name=T2 option.Threads=2 -engine cmd=$B name=T1 option.Threads=1 \
    -each tc=1+0.01 option.Hash=16 option.OwnBook=false -games 1000 -concurrency 1 -seed 2001 $O
job ts1-c2 -engine cmd=$B name=A -engine cmd=$B name=B \
    -each tc=1+0.01 $T1 -games 1000 -concurrency 2 -seed 2002 $O
job ts03-t2 -engine cmd=$B name=T2 option.Threads=2 -engine cmd=$B name=T1 option.Threads=1 \
    -each tc=0.3+0.05 option.Hash=16 option.OwnBook=false -games 500 -concurrency 1 -seed 2003 $O
job ts03-c2 -engine cmd=$B name=A -engine cmd=$B name=B \
    -each tc=0.3+0.05 $T1 -games 500 -concurrency 2 -seed 2004 $O
# Issue 20: each fuzz target an hour, two at a time (one per core); the last lines of each log
# (runs, cov, corpus) go into fuzz/README.md.
[ -e $Q/fuzz.done ] || {
    (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -O > $Q/fuzz-build.log 2>&1) &&
    { ./scripts/fuzz 3600 fen uci_move polyglot > $Q/fuzz-a.log 2>&1 & a=$!
      ./scripts/fuzz 3600 network uci_session > $Q/fuzz-b.log 2>&1 && wait $a; } &&
    touch $Q/fuzz.done; }
job checkext8 -engine cmd=$B name=checkext \
    -engine cmd=$B name=nocheckext option.CheckExtension=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1902 $O $ADJ
job sec40 -engine cmd=$B name=secondary stderr=$Q/sec40.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=40+0.4 $T1 -games 200 -concurrency 2 -seed 1903 $O $ADJ
# Issue 20: the soak, last.
[ -e $Q/soak.done ] || { ./scripts/soak -engine $B -games 10000 -batch 20 -concurrency 2 -timemargin 0 \
    -seed 2020 -openings /work/m/openings/8moves_v3_half.pgn -journal $Q/soak.jsonl \
    -pgnout $Q/soak.pgn -quiet > $Q/soak.log 2>&1 && touch $Q/soak.done; }
