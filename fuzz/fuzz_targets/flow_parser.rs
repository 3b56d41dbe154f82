//! Any bytes → `parse_flow` returns a flow or FLOW_INVALID with file:line:col; never a panic.
//! Run: `cargo +nightly fuzz run flow_parser fuzz/corpus` (seeded from fixtures/flows).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mend_model::{parse_flow, ErrorCode};

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        if let Err(e) = parse_flow("fuzz.toml", src, &["name".to_string()]) {
            assert_eq!(e.code, ErrorCode::FlowInvalid);
            assert!(e.message.starts_with("fuzz.toml:"), "{}", e.message);
        }
    }
});
