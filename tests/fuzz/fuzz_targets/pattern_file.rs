#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| convstate::fuzz::pattern_file(data));
