//! The file format: round trips, refusals by header, the legacy file, buckets.

use super::*;

/// The embedded network before format version 1: a headerless file.
const GEN2A: &[u8] = include_bytes!("../../../nets/brudno-gen2a.nnue");

const SHAPES: [Shape; 4] = [
    Shape::LEGACY,
    Shape {
        width: 256,
        buckets: 8,
        mirrored: true,
    },
    Shape {
        width: 384,
        buckets: 1,
        mirrored: true,
    },
    Shape {
        width: 128,
        buckets: 8,
        mirrored: false,
    },
];

/// Overwrites the u32 at `at` and mends the checksum, so that only the field is wrong.
fn with_field(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + 4].copy_from_slice(&value.to_le_bytes());
    b
}

#[test]
fn header_round_trip_for_every_shape() {
    for (i, shape) in SHAPES.into_iter().enumerate() {
        let net = Network::random_shape(shape, i as u64);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), shape.file_bytes());
        assert_eq!(bytes.len() % 64, 0);
        assert_eq!(&bytes[..8], b"BRUDNONN");
        let fields: Vec<u32> = (8..52).step_by(4).map(|at| field(&bytes, at)).collect();
        let flags = shape.mirrored as u32;
        let payload = shape.payload_bytes() as u32;
        let sum = fnv1a32(&bytes[64..]);
        let w = shape.width as u32;
        let b = shape.buckets as u32;
        assert_eq!(
            fields,
            [1, 768, w, b, flags, 1, 255, 64, 400, payload, sum],
            "{shape}"
        );
        assert!(bytes[52..64].iter().all(|&b| b == 0));
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.shape(), shape);
        assert_eq!(back.to_bytes(), bytes);
        assert_eq!(&back.output_weights[..], &net.output_weights[..]);
        assert_eq!(back.output_bias, net.output_bias);
    }
}

#[test]
fn the_legacy_headerless_file_still_loads() {
    assert_eq!(LEGACY_FILE_BYTES, 197_440);
    let net = Network::from_bytes(GEN2A).unwrap();
    assert_eq!(net.shape(), Shape::LEGACY);
    // Its payload is the legacy file, byte for byte.
    let v1 = net.to_bytes();
    assert_eq!(&v1[HEADER_BYTES..], GEN2A);
    // The start position as the engine scored it while gen2a was the embedded network.
    let pos = crate::chess::Position::startpos();
    assert_eq!(net.evaluate_from_scratch(&pos), 24);
}

#[test]
fn files_are_refused_by_their_header() {
    let shape = SHAPES[1];
    let good = Network::random_shape(shape, 7).to_bytes();
    let refused = |bytes: &[u8]| Network::from_bytes(bytes).err().expect("refused");
    // Wrong magic, of the size of neither format.
    let mut bad = good.clone();
    bad[0] = b'X';
    assert_eq!(
        refused(&bad),
        NetworkError::NotANetwork { found: good.len() }
    );
    assert!(matches!(refused(&[]), NetworkError::NotANetwork { .. }));
    assert!(matches!(refused(b"BRUD"), NetworkError::Truncated { .. }));
    assert!(matches!(
        refused(&good[..40]),
        NetworkError::Truncated { expected: 64, .. }
    ));
    assert_eq!(
        refused(&with_field(&good, 8, 2)),
        NetworkError::UnsupportedVersion(2)
    );
    for (at, value, name) in [
        (12, 769, "inputs"),
        (16, 100, "width"),
        (16, 0, "width"),
        (16, 1152, "width"),
        (20, 4, "output buckets"),
        (20, 0, "output buckets"),
        (24, 2, "flags"),
        (28, 2, "activation"),
        (32, 256, "QA"),
        (36, 128, "QB"),
        (40, 100, "SCALE"),
    ] {
        let err = refused(&with_field(&good, at, value));
        assert_eq!(
            err,
            NetworkError::Unsupported {
                field: name,
                value: value as i64
            }
        );
        assert!(err.to_string().contains(name), "{err}");
    }
    let mut reserved = good.clone();
    reserved[60] = 1;
    assert!(matches!(
        refused(&reserved),
        NetworkError::Unsupported { .. }
    ));
    // A shape the engine runs, but not the one of the payload that follows.
    let other = with_field(&good, 16, 128);
    assert!(matches!(
        refused(&other),
        NetworkError::PayloadLength { .. }
    ));
    assert!(matches!(
        refused(&with_field(&good, 44, 64)),
        NetworkError::PayloadLength { header: 64, .. }
    ));
    // Cut short, or followed by more.
    for cut in [64, good.len() / 2, good.len() - 64, good.len() - 1] {
        assert_eq!(
            refused(&good[..cut]),
            NetworkError::Truncated {
                expected: good.len(),
                found: cut
            }
        );
    }
    let long = [&good[..], &[0u8; 64]].concat();
    assert!(matches!(refused(&long), NetworkError::TrailingBytes { .. }));
    // One bit flipped anywhere in the payload, padding included.
    for at in [64, 1000, good.len() / 2, good.len() - 1] {
        let mut damaged = good.clone();
        damaged[at] ^= 0x10;
        assert!(
            matches!(refused(&damaged), NetworkError::Checksum { .. }),
            "byte {at}"
        );
    }
    assert!(refused(&with_field(&good, 48, 1))
        .to_string()
        .contains("checksum"));
}

#[test]
fn output_weights_outside_the_clip_are_refused_in_both_formats() {
    let mut net = Network::random_shape(SHAPES[3], 1);
    let at = 2 * 128 + 5; // bucket 1
    net.output_weights[at] = 1000;
    assert_eq!(
        Network::from_bytes(&net.to_bytes()).err(),
        Some(NetworkError::WeightOutOfRange { at, value: 1000 })
    );
    let mut legacy = GEN2A.to_vec();
    let at = (768 * 128 + 128) * 2;
    legacy[at..at + 2].copy_from_slice(&1000i16.to_le_bytes());
    assert_eq!(
        Network::from_bytes(&legacy).err(),
        Some(NetworkError::WeightOutOfRange { at: 0, value: 1000 })
    );
}

#[test]
fn the_bucket_follows_the_piece_count() {
    let eight = SHAPES[1];
    for pieces in 2..=32 {
        assert_eq!(eight.bucket(pieces), (pieces - 2) / 4, "{pieces}");
        assert_eq!(Shape::LEGACY.bucket(pieces), 0);
    }
    assert_eq!(
        (eight.bucket(2), eight.bucket(5), eight.bucket(6)),
        (0, 0, 1)
    );
    assert_eq!(
        (eight.bucket(29), eight.bucket(30), eight.bucket(32)),
        (6, 7, 7)
    );
    assert_eq!(eight.bucket(40), 7);
}

#[test]
fn the_reference_uses_the_bucket_of_the_piece_count() {
    // Zero weights, a different bias per bucket: the score names the bucket.
    let mut net = Network::zeroed_shape(SHAPES[3]);
    for (b, bias) in net.output_bias.iter_mut().enumerate() {
        *bias = 41 * b as i16; // 41 · 400 / (QA·QB) rounds down to 1 cp
    }
    for (fen, bucket) in [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0),
        ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", 0),
        ("4k3/8/8/8/8/8/8/RN2K2R w - - 0 1", 0),
        ("4k3/8/8/8/8/8/8/RN2KB1R w - - 0 1", 1),
        (crate::chess::START_FEN, 7),
    ] {
        let pos = crate::chess::Position::from_fen(fen).unwrap();
        assert_eq!(net.bucket_of(&pos), bucket, "{fen}");
        assert_eq!(net.evaluate_from_scratch(&pos), bucket as i32, "{fen}");
    }
}

#[test]
fn a_zero_network_with_a_bias_gives_the_bias() {
    let mut net = Network::zeroed();
    net.output_bias[0] = (QA * QB) as i16 / 4; // 0.25 in float units
    let pos = crate::chess::Position::startpos();
    assert_eq!(net.evaluate_from_scratch(&pos), SCALE / 4);
}

#[test]
fn colour_flipped_positions_give_the_same_side_to_move_score() {
    let a = crate::chess::Position::from_fen(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    )
    .unwrap();
    let b = crate::chess::Position::from_fen(
        "rnb1k1nr/pppp1ppp/8/2b1p3/4P2q/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
    )
    .unwrap();
    for shape in SHAPES {
        let net = Network::random_shape(shape, 11);
        assert_eq!(net.evaluate_from_scratch(&a), net.evaluate_from_scratch(&b));
        assert_ne!(net.evaluate_from_scratch(&a), 0);
    }
}

#[test]
fn with_mirroring_a_position_and_its_file_mirror_score_the_same() {
    // Kings on opposite halves: each perspective sees the same board after the mirror.
    let a = crate::chess::Position::from_fen("2k5/1pp5/8/8/4N3/8/5PP1/5K2 w - - 0 1").unwrap();
    let b = crate::chess::Position::from_fen("5k2/5pp1/8/8/3N4/8/1PP5/2K5 w - - 0 1").unwrap();
    let mirrored = Network::random_shape(SHAPES[1], 3);
    assert_eq!(
        mirrored.evaluate_from_scratch(&a),
        mirrored.evaluate_from_scratch(&b)
    );
    let plain = Network::random_shape(SHAPES[3], 3);
    assert_ne!(
        plain.evaluate_from_scratch(&a),
        plain.evaluate_from_scratch(&b)
    );
}
