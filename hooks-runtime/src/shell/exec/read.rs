//! Bounded pipe readers: keep at most a cap, drain and count the rest.

use tokio::io::{AsyncRead, AsyncReadExt};

use super::outcome::Captured;

/// Size of the read buffer of a stream with more to read than the first
/// buffer holds (bytes).
const CHUNK: usize = 16 * 1024;

/// Size of the first read buffer, kept in the reading future (bytes): most
/// hooks print less, and read no further buffer.
const FIRST: usize = 512;

/// Accumulates at most `cap` bytes of a stream and counts all of them.
///
/// Memory stays within `cap` plus the read buffers: the kept vector never
/// grows past `cap` (its capacity is clamped to `cap`).
#[derive(Debug)]
pub(crate) struct BoundedCapture {
    cap: usize,
    bytes: Vec<u8>,
    total: u64,
}

impl BoundedCapture {
    pub(crate) fn new(cap: usize) -> Self {
        BoundedCapture {
            cap,
            bytes: Vec::new(),
            total: 0,
        }
    }

    /// Records one chunk read from the stream.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.total = self.total.saturating_add(chunk.len() as u64);
        let room = self.cap - self.bytes.len();
        let take = room.min(chunk.len());
        if take == 0 {
            return;
        }
        let needed = self.bytes.len() + take;
        if needed > self.bytes.capacity() {
            // Double, but never past the cap: the cap is a memory bound.
            let target = (self.bytes.capacity() * 2).max(needed).min(self.cap);
            self.bytes.reserve_exact(target - self.bytes.len());
        }
        self.bytes.extend_from_slice(&chunk[..take]);
    }

    pub(crate) fn finish(self) -> Captured {
        let truncated = self.total > self.bytes.len() as u64;
        Captured {
            bytes: self.bytes,
            total_len: self.total,
            truncated,
        }
    }
}

/// Reads `reader` to its end into `sink`. A read error ends the stream like
/// an EOF (the process's status still tells what happened).
///
/// Reads go to a small buffer inside the future first; a read that fills it
/// (more output is likely) moves the rest to a [`CHUNK`]-byte buffer on the
/// heap. A stream that stays short or empty costs no heap buffer.
///
/// Cancel safety: dropping the future loses nothing already pushed to `sink`.
pub(crate) async fn drain_into<R: AsyncRead + Unpin>(mut reader: R, sink: &mut BoundedCapture) {
    let mut first = [0u8; FIRST];
    let mut more: Vec<u8> = Vec::new();
    loop {
        let buf: &mut [u8] = if more.is_empty() {
            &mut first
        } else {
            &mut more
        };
        match reader.read(buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                sink.push(&buf[..n]);
                if n == FIRST && more.is_empty() {
                    more = vec![0u8; CHUNK];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_cap_and_counts_everything() {
        let mut c = BoundedCapture::new(10);
        c.push(b"hello");
        c.push(b"world!!");
        c.push(b"more");
        assert!(c.bytes.capacity() <= 10);
        let got = c.finish();
        assert_eq!(got.bytes, b"helloworld");
        assert_eq!(got.total_len, 16);
        assert!(got.truncated);
    }

    #[test]
    fn exact_cap_is_not_truncated() {
        let mut c = BoundedCapture::new(4);
        c.push(b"abcd");
        c.push(b"");
        let got = c.finish();
        assert_eq!(got.bytes, b"abcd");
        assert_eq!(got.total_len, 4);
        assert!(!got.truncated);
    }

    #[test]
    fn zero_cap_counts_only() {
        let mut c = BoundedCapture::new(0);
        c.push(b"abc");
        let got = c.finish();
        assert!(got.bytes.is_empty());
        assert_eq!(got.total_len, 3);
        assert!(got.truncated);
    }

    #[tokio::test]
    async fn drains_short_and_long_readers() {
        for len in [0, 1, FIRST - 1, FIRST, FIRST + 1, CHUNK + 3] {
            let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut c = BoundedCapture::new(usize::MAX);
            drain_into(&data[..], &mut c).await;
            let got = c.finish();
            assert_eq!(got.bytes, data, "{len}");
            assert_eq!(got.total_len, len as u64);
        }
    }

    #[tokio::test]
    async fn drains_a_reader() {
        let data = vec![7u8; 100_000];
        let mut c = BoundedCapture::new(1000);
        drain_into(&data[..], &mut c).await;
        let got = c.finish();
        assert_eq!(got.bytes, vec![7u8; 1000]);
        assert_eq!(got.total_len, 100_000);
    }
}
