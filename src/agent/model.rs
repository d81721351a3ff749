//! The one way an agent stage asks the model for a decision: the prompt is fitted to the cap,
//! the reply parsed against the stage's schema (with the repair round of [`decide`]), and the
//! call and its decision (or error) recorded as events. Shared by analyze, evaluate, the Worker,
//! the answer and the follow-up rewrite.

use super::budget::enforce_cap;
use super::events::{AgentEvent, Emitter};
use crate::llm::{decide, ChatMessage, ChatModel, LlmError, ResponseSchema};

/// Ask the model for a decision, each call recorded as it happens (request when sent, then its
/// response or error); a failure is recorded and returned.
pub(crate) async fn ask_model<T: serde::Serialize + serde::de::DeserializeOwned>(
    model: &dyn ChatModel,
    emitter: &Emitter,
    kind: &str,
    mut messages: Vec<ChatMessage>,
    schema: &ResponseSchema,
    cap_tokens: usize,
) -> Result<T, LlmError> {
    enforce_cap(&mut messages, cap_tokens);
    match decide::<T>(&emitter.recording(model), messages, schema).await {
        Ok(decision) => {
            emitter.decision(kind, &decision.value);
            Ok(decision.value)
        }
        Err(err) => {
            emitter.emit(AgentEvent::Error {
                message: format!("{kind}: {err}"),
            });
            Err(err)
        }
    }
}
