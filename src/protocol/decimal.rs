//! Numbers in decimal without a heap string, for the frame writer and the time writer.

/// Writes `n` in decimal at the end of `buf` (20 bytes hold any `u64`) and returns where the
/// digits start: numbers on the wire without a heap string.
pub(crate) fn at_end(mut n: u64, buf: &mut [u8]) -> usize {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return at;
        }
    }
}
