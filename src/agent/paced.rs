//! A run's events for a client that may read slowly (a browser's event stream, an MCP client's
//! progress notifications): a bounded channel whose reader paces the run.
//!
//! [`EventSink::record`] cannot wait — the agent calls it from its tasks while they hold no
//! await point — so [`Paced`] puts what does not fit in the channel into a queue, in order, and
//! the run waits before each model call ([`EventSink::ready`], which the agent awaits through
//! [`crate::agent::events::Emitter::recording`]) until that queue has gone into the channel. A
//! client that reads slowly so slows the run instead of growing a buffer: at most the channel's
//! capacity plus what the run's actors emit between two model calls (a step's decision, command,
//! observation and evidence per running Worker) is held. Every event the client reads comes in
//! the order it was recorded; none is dropped while the client is connected. Once the client is
//! gone, events are dropped and nothing waits.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::{channel, Receiver, Sender};

use super::events::{EventRecord, EventSink};
use crate::llm::BoxFuture;

/// How one event is shown to the client, `None` for events it is not shown.
type View<T> = Box<dyn Fn(&EventRecord) -> Option<T> + Send + Sync>;

/// The sending end: an [`EventSink`] for the run, and [`Paced::send`] for what follows it.
pub struct Paced<T> {
    sender: Sender<T>,
    /// Items that did not fit in the channel, oldest first; while it holds any, new items queue
    /// behind them so the client reads everything in order.
    queue: Mutex<VecDeque<T>>,
    view: View<T>,
}

impl<T: Send + 'static> Paced<T> {
    /// A sink showing each event as `view` gives it, and the receiver the client reads, through
    /// a channel holding `capacity` items (at least 1).
    pub fn channel(
        capacity: usize,
        view: impl Fn(&EventRecord) -> Option<T> + Send + Sync + 'static,
    ) -> (Arc<Paced<T>>, Receiver<T>) {
        let (sender, receiver) = channel(capacity.max(1));
        let paced = Paced {
            sender,
            queue: Mutex::new(VecDeque::new()),
            view: Box::new(view),
        };
        (Arc::new(paced), receiver)
    }

    fn queue(&self) -> MutexGuard<'_, VecDeque<T>> {
        // A panic while the lock was held left a whole queue (push and pop do not unwind midway).
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hand `item` on without waiting: into the channel when it has room and nothing is queued,
    /// else to the back of the queue. Dropped once the client is gone.
    pub fn push(&self, item: T) {
        if self.sender.is_closed() {
            return;
        }
        let mut queue = self.queue();
        if !queue.is_empty() {
            queue.push_back(item);
            return;
        }
        match self.sender.try_send(item) {
            Ok(()) | Err(TrySendError::Closed(_)) => {}
            Err(TrySendError::Full(item)) => queue.push_back(item),
        }
    }

    /// Wait until every queued item is in the channel (or the client is gone, and the queue
    /// with it).
    pub async fn drain(&self) {
        loop {
            if self.queue().is_empty() {
                return;
            }
            let Ok(permit) = self.sender.reserve().await else {
                self.queue().clear();
                return;
            };
            match self.queue().pop_front() {
                Some(item) => permit.send(item),
                None => return,
            }
        }
    }

    /// [`Paced::push`] `item`, then [`Paced::drain`]: the item is in the channel when this
    /// returns, after everything recorded before it.
    pub async fn send(&self, item: T) {
        self.push(item);
        self.drain().await;
    }

    /// Resolves when the client is gone (its receiver dropped).
    pub async fn closed(&self) {
        self.sender.closed().await;
    }
}

impl<T: Send + 'static> EventSink for Paced<T> {
    fn record(&self, record: EventRecord) {
        if let Some(item) = (self.view)(&record) {
            self.push(item);
        }
    }

    fn ready(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.drain())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::agent::AgentEvent;

    fn command(seq: u64) -> EventRecord {
        EventRecord {
            actor: "r1-w1-doc".into(),
            seq,
            event: AgentEvent::Command {
                line: format!("cat {seq}"),
            },
        }
    }

    fn seq_of(record: &EventRecord) -> Option<u64> {
        match record.event {
            AgentEvent::Command { .. } => Some(record.seq),
            _ => None,
        }
    }

    #[tokio::test]
    async fn a_slow_reader_gets_every_event_in_order_and_the_producer_waits_for_it() {
        let (paced, mut rx) = Paced::channel(2, seq_of);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(seq) = rx.recv().await {
                tokio::time::sleep(Duration::from_millis(2)).await;
                got.push(seq);
            }
            got
        });
        // Five events per "step", then the wait the agent makes before its next model call.
        for step in 0..8u64 {
            for i in 0..5 {
                paced.record(command(step * 5 + i));
            }
            // More than the channel holds was recorded, so some of it waits in the queue.
            assert!(
                paced.queue().len() >= 3,
                "step {step}: the queue held the rest"
            );
            paced.ready().await;
            assert_eq!(
                paced.queue().len(),
                0,
                "step {step}: ready drained the queue"
            );
        }
        paced.send(40).await;
        drop(paced);
        assert_eq!(reader.await.unwrap(), (0..=40).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn the_run_waits_while_the_reader_reads_nothing() {
        let (paced, mut rx) = Paced::channel(2, seq_of);
        for seq in 0..5 {
            paced.record(command(seq));
        }
        let waited = tokio::time::timeout(Duration::from_millis(50), paced.ready()).await;
        assert!(waited.is_err(), "ready returned with three events queued");
        assert_eq!(paced.queue().len(), 3);
        // Once the reader reads, the run goes on, and the reader gets everything, oldest first.
        let waiting = paced.clone();
        let drained = tokio::spawn(async move { waiting.ready().await });
        for want in 0..5 {
            assert_eq!(rx.recv().await, Some(want));
        }
        drained.await.unwrap();
        assert_eq!(paced.queue().len(), 0);
    }

    #[tokio::test]
    async fn once_the_reader_is_gone_nothing_waits_and_nothing_is_kept() {
        let (paced, rx) = Paced::channel(1, seq_of);
        for seq in 0..3 {
            paced.record(command(seq));
        }
        assert_eq!(paced.queue().len(), 2);
        drop(rx);
        paced.ready().await;
        assert_eq!(paced.queue().len(), 0);
        paced.record(command(3));
        assert_eq!(paced.queue().len(), 0);
        paced.closed().await;
    }

    #[tokio::test]
    async fn events_the_view_skips_are_not_sent() {
        let (paced, mut rx) = Paced::channel(4, seq_of);
        paced.record(EventRecord {
            actor: "orchestrator".into(),
            seq: 0,
            event: AgentEvent::Error {
                message: "shown nowhere".into(),
            },
        });
        paced.record(command(1));
        drop(paced);
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, None);
    }
}
