//! The network file reader (`EvalFile`): any bytes as a network file. A file it accepts must
//! evaluate every position, incrementally along a line as from scratch, without a panic and
//! with the vector code equal to the reference.
#![no_main]

use brudno::chess::Position;
use brudno::eval::nnue::network::LEGACY_FILE_BYTES;
use brudno::eval::nnue::{Network, NnueState};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    // Short inputs stand for the start of a legacy file (the rest zeros), so the fuzzer
    // reaches accepted networks, not only the size check; headed files get through only
    // with a valid checksum, which the fuzzer rarely finds, so the unit tests cover them.
    let mut bytes = data.to_vec();
    if bytes.len() < LEGACY_FILE_BYTES && data.first() == Some(&0xFF) {
        bytes.resize(LEGACY_FILE_BYTES, 0);
    }
    let Ok(net) = Network::from_bytes(&bytes) else {
        return;
    };
    let net: Arc<Network> = Arc::from(net);
    let mut state = NnueState::new(Arc::clone(&net));
    let mut pos = Position::startpos();
    state.reset(&pos);
    for ply in 0..12 {
        let moves = pos.legal_moves();
        let Some(&m) = moves.as_slice().get(data.len().wrapping_add(ply) % moves.len().max(1))
        else {
            break;
        };
        state.push(ply, &pos, m);
        pos.play(m);
        assert_eq!(
            state.evaluate(ply + 1, pos.side_to_move()),
            net.evaluate_from_scratch(&pos)
        );
    }
});
