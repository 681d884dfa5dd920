//! RFC 3339 UTC times as the wire contract writes them: `2026-11-21T10:00:03Z`, with a
//! fraction only when the time has one (milliseconds, or nanoseconds when finer).
//!
//! Written into a stack buffer and handed to the serializer in one piece: chrono's own
//! `Display` goes through the formatter a character at a time, which showed in profiles of the
//! state frame.

use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// The longest form: `+262143-12-31T23:59:59.999999999Z`.
pub const MAX_LEN: usize = 33;

/// Formats `t` into `buf`, returning the written part.
pub fn format<'b>(t: &DateTime<Utc>, buf: &'b mut [u8; MAX_LEN]) -> &'b str {
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
        // Outside four digits, RFC 3339 has no form; ISO 8601's expanded years keep it sortable.
        push(if year < 0 { b"-" } else { b"+" });
        push(&digits::<6>(year.unsigned_abs()));
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
        (60, nanos - 1_000_000_000)
    } else {
        (t.second(), nanos)
    };
    push(&digits::<2>(second));
    if nanos != 0 {
        push(b".");
        if nanos % 1_000_000 == 0 {
            push(&digits::<3>(nanos / 1_000_000));
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

pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0; MAX_LEN];
    s.serialize_str(format(t, &mut buf))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    DateTime::<Utc>::deserialize(d)
}

/// The same for optional times.
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => super::serialize(t, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<DateTime<Utc>>::deserialize(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::SecondsFormat;

    #[test]
    fn formats_like_chrono_with_z() {
        for text in [
            "2026-11-21T10:00:03Z",
            "2026-11-21T10:00:03.250Z",
            "2026-11-21T10:00:03.000000001Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            let t: DateTime<Utc> = text.parse().unwrap();
            let mut buf = [0; MAX_LEN];
            assert_eq!(format(&t, &mut buf), text);
            let chrono_form = t.to_rfc3339_opts(SecondsFormat::AutoSi, true);
            let back: DateTime<Utc> = chrono_form.parse().unwrap();
            assert_eq!(back, t);
        }
    }

    #[test]
    fn every_instant_round_trips() {
        let mut t: DateTime<Utc> = "1969-12-31T23:59:59.999Z".parse().unwrap();
        for _ in 0..1000 {
            let mut buf = [0; MAX_LEN];
            let text = format(&t, &mut buf).to_string();
            assert_eq!(text.parse::<DateTime<Utc>>().unwrap(), t, "{text}");
            t += chrono::TimeDelta::nanoseconds(987_654_321_123);
        }
        let far = DateTime::<Utc>::MAX_UTC;
        let mut buf = [0; MAX_LEN];
        assert!(format(&far, &mut buf).starts_with('+'));
    }
}
