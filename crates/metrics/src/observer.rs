//! The one interface through which the engine reports what it measured.

use crate::records::{LinkRow, QueueRow, RequestRecord};

/// Receives every record the engine produces. Default bodies ignore the record.
pub trait Observer {
    fn on_request(&mut self, _r: RequestRecord) {}
    fn on_queue_row(&mut self, _r: QueueRow) {}
    fn on_link_row(&mut self, _r: LinkRow) {}
}

/// Keeps every record in memory, in the order produced.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub requests: Vec<RequestRecord>,
    pub queue: Vec<QueueRow>,
    pub links: Vec<LinkRow>,
}

impl Observer for Recorder {
    fn on_request(&mut self, r: RequestRecord) {
        self.requests.push(r);
    }
    fn on_queue_row(&mut self, r: QueueRow) {
        self.queue.push(r);
    }
    fn on_link_row(&mut self, r: LinkRow) {
        self.links.push(r);
    }
}
