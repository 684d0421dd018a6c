#!/usr/bin/env bash
# Measurement queue for issues 19 and 20, on frozen binaries (results/README.md: how to rebuild
# each one bit for bit). Each job journals its games; a rerun continues where it stopped (same
# binary: same size and mtime). A job is done only when its match ran to the end (an
# interrupted match exits 130). Run alone: zero clock margin. Never edit while it runs.
set -u
# TREE: a worktree of main that stays put while the queue runs (scripts are read per job).
cd "${TREE:-/work/main}"
# The form of 470cf52: only unsettled moves verified (sec8, smp-ponder, its stopped placebo).
B=/work/m/brudno-470cf52
# The expected-line form as first measured (7f7eb42).
E=/work/m/brudno-7f7eb42
# The engine as it shipped until exp8b: the expected-line form on, and its placebo (981a1e0).
S=/work/m/brudno-981a1e0
Q=/work/q
# One queue at a time: a second copy would play its jobs on the same two cores as the first
# (2026-12-02: a copy started without python-chess skipped to the fuzzers, which then ran beside
# the other copy's games for two hours).
exec 9> $Q/queue.lock
flock -n 9 || { echo "queue: another copy is running (lock $Q/queue.lock)" >&2; exit 1; }
# What every match needs; without it each job would fail at once and the queue fall through to
# the fuzzers and the soak.
python3 -c 'import chess' || { echo "queue: python-chess missing (pip install chess)" >&2; exit 1; }
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
    for t in "$@"; do
        [ -e $Q/fuzz-$t.done ] || { ./scripts/fuzz 3600 $t > $Q/fuzz-$t.log 2>&1 &&
            touch $Q/fuzz-$t.done; } &
    done
    wait
}
# Issue 19: the 470cf52 form against the plain time manager (done: −2.1 ± 13.9), and with
# Threads 2 and pondering on both sides (done: no time loss).
job sec8 -engine cmd=$B name=secondary stderr=$Q/sec8.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
job smp-ponder -engine cmd=$B name=secondary stderr=$Q/smp-ponder.stderr ponder=true \
    -engine cmd=$B name=plain option.SecondarySearch=false ponder=true \
    -each tc=2+0.02 option.Hash=16 option.Threads=2 option.OwnBook=false option.Ponder=true \
    -games 200 -concurrency 1 -seed 1904 $O $ADJ
# Issue 19: the expected-line form against the plain time manager (same openings).
job exp8 -engine cmd=$E name=expected stderr=$Q/exp8.stderr \
    -engine cmd=$E name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
# Issue 19: were the moves the secondary search changed better? Each judged by a search of
# 3,000,000 nodes (some 15 times the game's), both cores.
[ -e $Q/judge-exp8.done ] || { ./scripts/secondary-judge $Q/exp8.stderr --engine $E \
    --nodes 3000000 --jobs 2 > $Q/judge-exp8.txt 2>&1 && touch $Q/judge-exp8.done; }
# Issues 19/20: Threads 2 with pondering on both sides, the shipped form.
job smp-ponder-s -engine cmd=$S name=secondary stderr=$Q/smp-ponder-s.stderr ponder=true \
    -engine cmd=$S name=plain option.SecondarySearch=false ponder=true \
    -each tc=2+0.02 option.Hash=16 option.Threads=2 option.OwnBook=false option.Ponder=true \
    -games 200 -concurrency 1 -seed 1904 $O $ADJ
# Issue 19: the placebo of the expected-line form: as many moves checked early, chosen by a
# coin, and a coin for the verdict at the real method's share of surprises among its conclusive
# verdicts (7.2% over exp8's first 573 games; 6.8% over its first 297 when chosen).
job expplacebo8 -engine cmd=$S name=placebo option.SecondaryPlacebo=7 stderr=$Q/expplacebo8.stderr \
    -engine cmd=$S name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
# Issue 19: a second, independent run of the shipped form against the plain time manager,
# declared before it started (2026-12-02, after exp8's 1000 games ended at +4.5 ± 14.8, short of
# the bar's lower bound): 2000 games with another seed, reported alone and pooled with exp8
# whatever it shows.
job exp8b -engine cmd=$S name=expected stderr=$Q/exp8b.stderr \
    -engine cmd=$S name=plain option.SecondarySearch=false \
    -each tc=8+0.08 $T1 -games 2000 -concurrency 2 -seed 1905 $O $ADJ
# Since exp8b (2026-12-03: exp8 + exp8b pooled, 3000 games, −3.2 ± 7.9) the engine ships with
# `SecondarySearch false`; what follows measures S as it ships, with that option.
P="option.SecondarySearch=false"
# Issue 19: the check extension at 8+0.08 (its verdict may change the engine the soak plays).
job checkext8 -engine cmd=$S name=checkext \
    -engine cmd=$S name=nocheckext option.CheckExtension=false \
    -each tc=8+0.08 $T1 $P -games 1000 -concurrency 2 -seed 1902 $O $ADJ
# Since checkext8 (−30.3 ± 13.8 for the check extension) it is off by default (ffcb311), and
# issue 20's jobs play the engine as it ships from then: SHIP=/work/m/brudno-<commit>, frozen
# as results/README.md says (its table names the commit). Without SHIP they are skipped.
SHIP=${SHIP:-}
# Each shipping binary gets its own series and soak (names end in its commit): a fix to the
# engine means a new binary, and its jobs start afresh (2026-12-03: c05165b's soak lost on time
# at 0.05 s a move with pondering; its series and soak journals stay under their names).
V=${SHIP##*/brudno-}
if [ -x "$SHIP" ]; then
# Issue 20: zero-margin time safety. Threads 2 against 1 one game at a time; Threads 1 two at a time.
job ts1-t2-$V -engine cmd=$SHIP name=T2 option.Threads=2 -engine cmd=$SHIP name=T1 option.Threads=1 \
    -each tc=1+0.01 option.Hash=16 option.OwnBook=false -games 1000 -concurrency 1 -seed 2001 $O
job ts1-c2-$V -engine cmd=$SHIP name=A -engine cmd=$SHIP name=B \
    -each tc=1+0.01 $T1 -games 1000 -concurrency 2 -seed 2002 $O
job ts03-t2-$V -engine cmd=$SHIP name=T2 option.Threads=2 -engine cmd=$SHIP name=T1 option.Threads=1 \
    -each tc=0.3+0.05 option.Hash=16 option.OwnBook=false -games 500 -concurrency 1 -seed 2003 $O
job ts03-c2-$V -engine cmd=$SHIP name=A -engine cmd=$SHIP name=B \
    -each tc=0.3+0.05 $T1 -games 500 -concurrency 2 -seed 2004 $O
else
    echo "issue 20's jobs (the series and the soak): no shipping binary frozen (SHIP=/work/m/brudno-<commit>)" >&2
fi
# Issue 20: each fuzz target an hour (two at a time, one per core); the last lines of each log
# (runs, cov, corpus) go into fuzz/README.md.
fuzz_pair fen uci_move
fuzz_pair polyglot network
# Beside the last fuzz target (one core each): the moves the secondary search changed in exp8b
# (games 77–2000: the log of the first 76 was lost with a machine), judged as exp8's were.
[ -e $Q/judge-exp8b.done ] || { ./scripts/secondary-judge $Q/exp8b.stderr --engine $S \
    --nodes 3000000 --jobs 1 > $Q/judge-exp8b.txt 2>&1 && touch $Q/judge-exp8b.done; } &
fuzz_pair uci_session
wait
# Issue 20: the soak, issue 20's last job, on the engine as it ships (SHIP, above).
if [ -x "$SHIP" ] && [ ! -e $Q/soak-$V.done ]; then
    ./scripts/soak -engine "$SHIP" -games 10000 -batch 20 -concurrency 2 -timemargin 0 \
        -seed 2020 -openings /work/m/openings/8moves_v3_half.pgn -journal $Q/soak-$V.jsonl \
        -pgnout $Q/soak-$V.pgn -quiet > $Q/soak-$V.log 2>&1 && touch $Q/soak-$V.done
fi
# Issue 19's 40+0.4 match (the method on against off) was dropped when the issue was closed
# as not met (2026-12-03): with the method off by default it would measure an option, not
# the engine.
# Only should the expected-line form be dropped: the 470cf52 form's placebo (91 games played).
# job placebo8 -engine cmd=$B name=placebo option.SecondaryPlacebo=21 stderr=$Q/placebo8.stderr \
#     -engine cmd=$B name=plain option.SecondarySearch=false \
#     -each tc=8+0.08 $T1 -games 1000 -concurrency 2 -seed 1901 $O $ADJ
