//! Structured decisions: ask the model for one JSON object, parse it, repair once, or fail loudly.
//!
//! DESIGN.md §5: every decision the agent asks for is a small JSON object whose schema is stated in
//! the prompt (and sent as `response_format` json_schema where the server supports it). A reply that
//! does not parse gets exactly one repair round quoting the parse error; after that the step fails
//! with [`LlmError::BadReply`] — never a silent guess.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::{excerpt, LlmError};
use super::extract::extract_json;
use super::{ChatMessage, ChatModel, ChatRequest, ChatResponse, ResponseSchema, Usage};

/// Chars of the last bad reply quoted in [`LlmError::BadReply`].
const REPLY_EXCERPT_CHARS: usize = 200;

/// One request sent and the response received, kept for the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// What was sent.
    pub request: ChatRequest,
    /// What came back.
    pub response: ChatResponse,
}

/// A parsed decision with the exchanges that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision<T> {
    /// The decision itself.
    pub value: T,
    /// One exchange, or two when the repair round was needed, in order.
    pub exchanges: Vec<Exchange>,
    /// Token usage summed over the exchanges.
    pub usage: Usage,
}

impl<T> Decision<T> {
    /// Whether the first reply failed to parse and the repair round produced the value.
    pub fn repaired(&self) -> bool {
        self.exchanges.len() > 1
    }
}

/// The user message of the repair round: the parse error, then the schema again.
fn repair_message(error: &str, schema: &ResponseSchema) -> ChatMessage {
    ChatMessage::user(format!(
        "Your previous reply could not be parsed: {error}\n{}",
        schema.instruction()
    ))
}

/// Ask `model` for a decision of type `T` over `messages` (whose prompt should state `schema`,
/// e.g. with [`ResponseSchema::instruction`]); the request carries `schema` as its json_schema.
///
/// The reply may wrap the object in code fences or prose (see [`extract_json`]). If it does not
/// yield a `T`, one repair request follows: the original messages, the bad reply as an assistant
/// message, and a user message quoting the parse error and restating the schema.
///
/// Errors: whatever [`ChatModel::complete`] returns, unchanged; [`LlmError::BadReply`] (with both
/// raw replies) when the repaired reply does not parse either.
pub async fn decide<T: DeserializeOwned>(
    model: &dyn ChatModel,
    messages: Vec<ChatMessage>,
    schema: &ResponseSchema,
) -> Result<Decision<T>, LlmError> {
    let request = ChatRequest::new(messages).with_schema(schema.clone());
    let response = model.complete(request.clone()).await?;
    let first_error = match extract_json::<T>(&response.text) {
        Ok(value) => {
            let usage = response.usage;
            return Ok(Decision {
                value,
                exchanges: vec![Exchange { request, response }],
                usage,
            });
        }
        Err(e) => e.to_string(),
    };
    tracing::warn!(model = model.model_id(), error = %first_error, "model reply did not parse, sending one repair round");

    let mut repair = request.clone();
    repair
        .messages
        .push(ChatMessage::assistant(response.text.clone()));
    repair.messages.push(repair_message(&first_error, schema));
    let second = model.complete(repair.clone()).await?;
    let usage = response.usage + second.usage;
    match extract_json::<T>(&second.text) {
        Ok(value) => Ok(Decision {
            value,
            exchanges: vec![
                Exchange { request, response },
                Exchange {
                    request: repair,
                    response: second,
                },
            ],
            usage,
        }),
        Err(e) => Err(LlmError::BadReply {
            excerpt: excerpt(second.text.trim(), REPLY_EXCERPT_CHARS),
            error: e.to_string(),
            replies: vec![response.text, second.text],
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repair_message_quotes_the_error_and_the_schema() {
        let schema = ResponseSchema::new("cmd", json!({"type": "object", "required": ["command"]}));
        let m = repair_message("missing field `command`", &schema);
        assert_eq!(m.role, super::super::Role::User);
        assert_eq!(
            m.content,
            "Your previous reply could not be parsed: missing field `command`\nReply with exactly one \
             JSON object and nothing else. It must match this JSON Schema:\n\
             {\"required\":[\"command\"],\"type\":\"object\"}"
        );
    }
}
