//! The agent as an eval navigator: one `ask` per question with the configured model; each run's
//! trace is kept (written by `eval --out`).

use std::sync::Arc;

use super::run::{Navigation, Navigator, NavigatorError};
use super::QaItem;
use crate::agent::{ask, AgentOptions, SharedModel};
use crate::llm::ChatModel;
use crate::trace::replay::MemorySink;
use crate::trace::TraceHeader;
use crate::workspace::Library;

/// Runs the agent for each question on its own multi-threaded tokio runtime.
pub struct AgentNavigator {
    /// Where documents come from.
    pub library: Arc<dyn Library>,
    /// The model.
    pub model: Arc<dyn ChatModel>,
    /// Budgets; `doc_ids` is replaced per question by the set's `doc` field.
    pub options: AgentOptions,
    /// Evidence items kept per question (hit@k looks at the top k).
    pub k: usize,
    /// The runtime the agent runs on.
    pub runtime: tokio::runtime::Runtime,
}

impl Navigator for AgentNavigator {
    fn navigate(
        &self,
        item: &QaItem,
        doc_ids: Option<&[String]>,
    ) -> Result<Navigation, NavigatorError> {
        let mut options = self.options.clone();
        options.doc_ids = doc_ids.map(<[String]>::to_vec).unwrap_or_default();
        let sink = Arc::new(MemorySink::default());
        let run = self.runtime.block_on(ask(
            self.library.clone(),
            Arc::new(SharedModel(self.model.clone())),
            sink.clone(),
            &options,
            &item.question,
        ));
        let header = TraceHeader::for_run(
            self.library.as_ref(),
            &item.question,
            self.model.model_id(),
            &options,
            0,
        );
        let trace = Some(header.to_jsonl(&sink.events()));
        let mut run = run?;
        if let Some((worker, message)) = run.worker_errors.first() {
            return Err(format!("worker {worker} failed: {message}").into());
        }
        run.answer.evidence.truncate(self.k.max(1));
        Ok(Navigation {
            answer: run.answer,
            trace,
        })
    }
}
