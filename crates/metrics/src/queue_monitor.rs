//! Queue monitor of seed 000 §4.1.3: every `interval` (100 ms) a row with packets forwarded,
//! early/forced/overflow/dequeue-time drops, marks, min and max queue length since the last row, and mean and
//! variance of the queue length sampled every `sample` (3 ms).
//!
//! The engine reports each happening (`on_enqueue`, `on_drop`, `on_dequeue`) with the queue
//! length after it, calls `sample` at every sampling instant and `close_interval` at every
//! interval end. Validation: tests below (`interval_row_*`).

use crate::observer::Observer;
use crate::records::QueueRow;

/// Aggregator for one link's queue.
#[derive(Clone, Debug)]
pub struct QueueMonitor {
    link: String,
    forwarded: u64,
    early: u64,
    forced: u64,
    overflow: u64,
    dequeue: u64,
    marks: u64,
    min_q: u32,
    max_q: u32,
    n: u64,
    sum: f64,
    sum_sq: f64,
}

impl QueueMonitor {
    /// A monitor for `link` whose queue currently holds `qlen` packets.
    pub fn new(link: &str, qlen: u32) -> Self {
        QueueMonitor {
            link: link.to_string(),
            forwarded: 0,
            early: 0,
            forced: 0,
            overflow: 0,
            dequeue: 0,
            marks: 0,
            min_q: qlen,
            max_q: qlen,
            n: 0,
            sum: 0.0,
            sum_sq: 0.0,
        }
    }
    #[inline]
    fn seen(&mut self, qlen: u32) {
        self.min_q = self.min_q.min(qlen);
        self.max_q = self.max_q.max(qlen);
    }
    /// A packet was stored; `qlen` after storing.
    #[inline]
    pub fn on_enqueue(&mut self, qlen: u32, marked: bool) {
        self.marks += marked as u64;
        self.seen(qlen);
    }
    /// A packet was dropped: 0 = early, 1 = forced, 2 = overflow, 3 = at dequeue.
    #[inline]
    pub fn on_drop(&mut self, reason: u8, qlen: u32) {
        match reason {
            0 => self.early += 1,
            2 => self.overflow += 1,
            3 => self.dequeue += 1,
            _ => self.forced += 1,
        }
        self.seen(qlen);
    }
    /// The packet leaving for the wire was CE-marked at dequeue time (CoDel, FQ-CoDel).
    #[inline]
    pub fn on_dequeue_mark(&mut self) {
        self.marks += 1;
    }
    /// A packet left the queue for the wire; `qlen` after.
    #[inline]
    pub fn on_dequeue(&mut self, qlen: u32) {
        self.forwarded += 1;
        self.seen(qlen);
    }
    /// A periodic sample of the queue length.
    #[inline]
    pub fn sample(&mut self, qlen: u32) {
        let q = qlen as f64;
        self.n += 1;
        self.sum += q;
        self.sum_sq += q * q;
    }
    /// Emit the row for the interval ending at `t_ns` and start the next one with `qlen`.
    pub fn close_interval(&mut self, t_ns: u64, qlen: u32, obs: &mut impl Observer) {
        let (mean, var) = if self.n == 0 {
            (qlen as f64, 0.0)
        } else {
            let m = self.sum / self.n as f64;
            (m, (self.sum_sq / self.n as f64 - m * m).max(0.0))
        };
        obs.on_queue_row(QueueRow {
            link: self.link.clone(),
            t_ns,
            forwarded: self.forwarded,
            early_drops: self.early,
            forced_drops: self.forced,
            overflow_drops: self.overflow,
            dequeue_drops: self.dequeue,
            marks: self.marks,
            min_qlen: self.min_q,
            max_qlen: self.max_q,
            mean_qlen: mean,
            var_qlen: var,
        });
        *self = QueueMonitor::new(&self.link, qlen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observer::Recorder;

    #[test]
    fn interval_row_counts_min_max_mean_variance() {
        let mut m = QueueMonitor::new("l", 2);
        let mut r = Recorder::default();
        m.on_enqueue(3, false);
        m.on_enqueue(4, true);
        m.on_drop(0, 4);
        m.on_drop(2, 4);
        m.on_drop(3, 4);
        m.on_drop(3, 4);
        m.on_dequeue(3);
        m.on_dequeue(2);
        m.on_dequeue(1);
        for q in [1, 2, 3, 6] {
            m.sample(q);
        }
        m.close_interval(100, 1, &mut r);
        let row = &r.queue[0];
        assert_eq!(
            (
                row.forwarded,
                row.early_drops,
                row.overflow_drops,
                row.forced_drops,
                row.dequeue_drops,
                row.marks
            ),
            (3, 1, 1, 0, 2, 1)
        );
        assert_eq!((row.min_qlen, row.max_qlen), (1, 4));
        // samples 1,2,3,6: mean 3, E[q²] = (1+4+9+36)/4 = 12.5, var = 12.5 − 9 = 3.5
        assert_eq!(row.mean_qlen, 3.0);
        assert_eq!(row.var_qlen, 3.5);
        // next interval starts from the current queue length
        m.close_interval(200, 1, &mut r);
        assert_eq!(
            (
                r.queue[1].min_qlen,
                r.queue[1].max_qlen,
                r.queue[1].forwarded
            ),
            (1, 1, 0)
        );
    }
}
