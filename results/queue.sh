#!/usr/bin/env bash
# Measurement queue for issues 19 and 20, on the frozen binary of the engine as it ships.
# Each job journals its games; a rerun continues where it stopped (same binary: same size and
# mtime, see the note in results/README.md). Run alone: zero clock margin.
set -u
cd /work/main
B=/work/m/brudno-ed96ac5
Q=/work/q
O="-openings file=/work/m/openings/8moves_v3_half.pgn order=random"
ADJ="-resign movecount=3 score=600 -draw movenumber=40 movecount=8 score=10"
job() {  # name, then match arguments
    local name=$1; shift
    [ -e $Q/$name.done ] && return 0
    RUST_LOG=secondary=info ./scripts/match "$@" -journal $Q/$name.jsonl -pgnout $Q/$name.pgn \
        -timemargin 0 -quiet > $Q/$name.log 2>&1 && touch $Q/$name.done
}
job sec8 -engine cmd=$B name=secondary stderr=$Q/sec8.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=8+0.08 option.Hash=16 option.Threads=1 option.OwnBook=false \
    -games 1000 -concurrency 2 -seed 1901 $O $ADJ
job placebo8 -engine cmd=$B name=placebo option.SecondaryPlacebo=13 stderr=$Q/placebo8.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=8+0.08 option.Hash=16 option.Threads=1 option.OwnBook=false \
    -games 1000 -concurrency 2 -seed 1901 $O $ADJ
job checkext8 -engine cmd=$B name=checkext \
    -engine cmd=$B name=nocheckext option.CheckExtension=false \
    -each tc=8+0.08 option.Hash=16 option.Threads=1 option.OwnBook=false \
    -games 1000 -concurrency 2 -seed 1902 $O $ADJ
job sec40 -engine cmd=$B name=secondary stderr=$Q/sec40.stderr \
    -engine cmd=$B name=plain option.SecondarySearch=false \
    -each tc=40+0.4 option.Hash=16 option.Threads=1 option.OwnBook=false \
    -games 200 -concurrency 2 -seed 1903 $O $ADJ
