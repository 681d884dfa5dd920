//! Configuration values shared by the commands.

use chrono::TimeDelta;

/// The longest idle timeout accepted: longer ones are surely a typo, and keeping deadlines far
/// inside chrono's range means adding one to a time never overflows.
const MAX_DURATION: TimeDelta = TimeDelta::days(3650);

/// Parses a human duration such as `2s`, `10m`, `1h 30m` or `500ms`.
pub fn parse_duration(text: &str) -> Result<TimeDelta, String> {
    let std = humantime::parse_duration(text.trim())
        .map_err(|e| format!("invalid duration \"{text}\": {e} (examples: 2s, 10m, 1h30m)"))?;
    let delta = TimeDelta::from_std(std).map_err(|_| format!("duration \"{text}\" is too long"))?;
    if delta <= TimeDelta::zero() {
        return Err(format!("duration \"{text}\" must be longer than zero"));
    }
    if delta > MAX_DURATION {
        return Err(format!("duration \"{text}\" is longer than ten years"));
    }
    Ok(delta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_in_human_units() {
        assert_eq!(parse_duration("2s"), Ok(TimeDelta::seconds(2)));
        assert_eq!(parse_duration("10m"), Ok(TimeDelta::minutes(10)));
        assert_eq!(parse_duration("1h 30m"), Ok(TimeDelta::minutes(90)));
        assert_eq!(parse_duration("500ms"), Ok(TimeDelta::milliseconds(500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("ten minutes").is_err());
        assert!(parse_duration("100000 days").is_err());
    }
}
