//! RFC 3339 UTC times as the wire writes them: `2026-11-21T10:00:03Z`, with a fraction only
//! when the time has one, in as few of 3, 6 or 9 digits as hold it. These are exactly the bytes
//! chrono's own serialisation writes (the serde derives of the state use it); this copy writes
//! them into a stack buffer, for the frame writer (chrono's goes through the formatter a
//! character at a time, which showed in profiles of the state frame).

use chrono::{DateTime, Datelike, Timelike, Utc};

/// The longest form: `+262143-12-31T23:59:59.999999999Z`.
pub(crate) const MAX_LEN: usize = 33;

/// Formats `t` into `buf`, returning the written part.
pub(crate) fn format<'b>(t: &DateTime<Utc>, buf: &'b mut [u8; MAX_LEN]) -> &'b str {
    // `DateTime`'s own accessors each derive the local time anew; the naive UTC time is free.
    let t = t.naive_utc();
    let mut len = 0;
    let mut push = |bytes: &[u8]| {
        buf[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    let year = t.year();
    if (0..=9999).contains(&year) {
        push(&digits::<4>(year as u32));
    } else {
        // Outside four digits RFC 3339 has no form; ISO 8601's expanded years, as chrono.
        push(if year < 0 { b"-" } else { b"+" });
        let abs = year.unsigned_abs();
        let mut wide = [b'0'; 10];
        let at = super::decimal::at_end(u64::from(abs), &mut wide).min(wide.len() - 4);
        push(&wide[at..]);
    }
    push(b"-");
    push(&digits::<2>(t.month()));
    push(b"-");
    push(&digits::<2>(t.day()));
    push(b"T");
    push(&digits::<2>(t.hour()));
    push(b":");
    push(&digits::<2>(t.minute()));
    push(b":");
    // A leap second is carried in the nanoseconds; show it as second 60.
    let nanos = t.nanosecond();
    let (second, nanos) = if nanos >= 1_000_000_000 {
        (t.second() + 1, nanos - 1_000_000_000)
    } else {
        (t.second(), nanos)
    };
    push(&digits::<2>(second));
    if nanos != 0 {
        push(b".");
        if nanos % 1_000_000 == 0 {
            push(&digits::<3>(nanos / 1_000_000));
        } else if nanos % 1_000 == 0 {
            push(&digits::<6>(nanos / 1_000));
        } else {
            push(&digits::<9>(nanos));
        }
    }
    push(b"Z");
    std::str::from_utf8(&buf[..len]).expect("ASCII digits and separators")
}

/// The low `N` decimal digits of `n`, zero-padded.
fn digits<const N: usize>(mut n: u32) -> [u8; N] {
    let mut out = [b'0'; N];
    for slot in out.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What chrono's serde writes for `t`: the reference.
    fn chrono_text(t: &DateTime<Utc>) -> String {
        serde_json::to_value(t)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn formats_as_chrono_serialises() {
        for text in [
            "2026-11-21T10:00:03Z",
            "2026-11-21T10:00:03.250Z",
            "2026-11-21T10:00:03.250500Z",
            "2026-11-21T10:00:03.000000001Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            let t: DateTime<Utc> = text.parse().unwrap();
            let mut buf = [0; MAX_LEN];
            assert_eq!(format(&t, &mut buf), text);
            assert_eq!(format(&t, &mut buf), chrono_text(&t));
        }
        for t in [DateTime::<Utc>::MAX_UTC, DateTime::<Utc>::MIN_UTC] {
            let mut buf = [0; MAX_LEN];
            assert_eq!(format(&t, &mut buf), chrono_text(&t));
        }
        let far: DateTime<Utc> = "+12345-01-01T00:00:00Z".parse().unwrap();
        let mut buf = [0; MAX_LEN];
        assert_eq!(format(&far, &mut buf), chrono_text(&far));
    }

    #[test]
    fn every_instant_is_written_as_chrono_writes_it_and_read_back() {
        let mut t: DateTime<Utc> = "1969-12-31T23:59:59.999Z".parse().unwrap();
        for _ in 0..2000 {
            let mut buf = [0; MAX_LEN];
            let text = format(&t, &mut buf).to_string();
            assert_eq!(text, chrono_text(&t));
            assert_eq!(text.parse::<DateTime<Utc>>().unwrap(), t, "{text}");
            t += chrono::TimeDelta::nanoseconds(987_654_321_123);
            if t.timestamp_subsec_nanos().is_multiple_of(7) {
                t += chrono::TimeDelta::microseconds(1);
            }
        }
    }
}
