//! Line numbers of a flow file's offsets, for its error messages: the newlines are found once,
//! and each offset's line by a binary search (finding them again for every state made reading
//! a file of many states quadratic).

/// Where each line of a text starts.
#[derive(Debug)]
pub struct Lines(Vec<usize>);

impl Lines {
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines(starts)
    }

    /// The line (from 1) of the byte at `offset`.
    pub fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|start| *start <= offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one() {
        let lines = Lines::new("a\nbc\n\nd");
        let got: Vec<usize> = (0..7).map(|o| lines.of(o)).collect();
        assert_eq!(got, [1, 1, 2, 2, 2, 3, 4]);
        assert_eq!(lines.of(100), 4);
    }
}
