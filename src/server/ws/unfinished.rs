//! Streams the client left unfinished: a metered connection whose pings go unanswered while a
//! message waits half read.

use super::*;

/// Pings a message may stay unfinished across while it still comes (with `ping_interval` at
/// 30 s: two minutes).
const UNFINISHED_PINGS: u32 = 4;

/// What a client has sent of a data message it has not finished: bytes read past the last
/// complete one, less what control frames (pings, pongs) took. A message left unfinished is
/// closed (1008, see [`Unfinished::stuck`]): its fragments are buffered, and would be for as
/// long as the client answers pings.
#[derive(Debug)]
pub(super) struct Unfinished {
    meter: Arc<Meter>,
    /// Bytes read when the last data message was complete.
    mark: u64,
    /// Bytes of control frames since (at most: their headers are counted at their largest).
    control: u64,
    /// While something is unfinished: the mark, the bytes read at the last ping, and at how
    /// many pings it was seen unfinished.
    seen_at: Option<(u64, u64, u32)>,
}

impl Unfinished {
    pub(super) fn new(meter: Arc<Meter>) -> Unfinished {
        let mark = meter.read();
        Unfinished {
            meter,
            mark,
            control: 0,
            seen_at: None,
        }
    }

    pub(super) fn on_message(&mut self, message: &Message) {
        match message {
            Message::Text(_) | Message::Binary(_) => {
                self.mark = self.meter.read();
                self.control = 0;
            }
            Message::Ping(p) | Message::Pong(p) => self.control += p.len() as u64 + 14,
            Message::Close(_) => {}
        }
    }

    /// At a ping: whether a message was left unfinished. It is when it was unfinished at the
    /// last ping too and nothing of it came since, or when it has been unfinished for
    /// [`UNFINISHED_PINGS`] pings however slowly it comes (a message trickled a byte at a time
    /// would hold its buffer for ever).
    pub(super) fn stuck(&mut self) -> bool {
        let read = self.meter.read();
        let pending = read.saturating_sub(self.mark + self.control);
        if pending == 0 {
            self.seen_at = None;
            return false;
        }
        match &mut self.seen_at {
            Some((mark, at_read, pings)) if *mark == self.mark => {
                *pings += 1;
                let idle = *at_read == read;
                *at_read = read;
                idle || *pings >= UNFINISHED_PINGS
            }
            _ => {
                self.seen_at = Some((self.mark, read, 1));
                false
            }
        }
    }
}
