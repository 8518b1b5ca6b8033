/**
 * Every `code` a ctxkit error can carry: stable strings, part of the public API (callers switch on them,
 * the CLI maps them to exit codes, the trace records them). A code names a kind of failure, not a class:
 * the session store and the trace store both say `store_closed`.
 */
export const ERROR_CODES = [
  // Input: messages, ids, files, flags.
  'invalid_input',
  'invalid_message',
  'message_id_conflict',
  'invalid_session_id',
  'empty_message',
  'invalid_flag',
  'invalid_replay_input',
  'no_sessions',
  // Policy, configuration and models.
  'invalid_policy',
  'invalid_config',
  'unknown_model',
  'missing_api_key',
  'missing_dependency',
  'invalid_token_counter',
  'token_tally_range',
  // The budget.
  'context_budget_exceeded',
  // Model calls and summaries.
  'model_call_failed',
  'model_timeout',
  'model_call_aborted',
  'summarizer_failed',
  // Stores.
  'sequence_conflict',
  'invalid_append',
  'corrupt_session',
  'schema_too_new',
  'store_closed',
  'store_busy',
  'store_contended',
  'invalid_store_options',
  'invalid_migrations',
  'stored_data_invalid',
  'invalid_trace_event',
  'invalid_retention',
  // Offloaded content.
  'invalid_blob_id',
  'blob_not_found',
  'blob_integrity',
  'blob_path_escape',
  'blob_name_collision',
  'blob_record_invalid',
  'spill_mismatch',
  // Memory and skills.
  'invalid_memory_entry',
  'invalid_memory_path',
  'memory_note_not_found',
  'memory_unavailable',
  'invalid_skill',
  'skill_not_found',
  'invalid_skill_path',
  'skill_file_not_found',
  // The proxy: what a client sent, and what the upstream answered (each answered over HTTP, never thrown
  // to a caller).
  'invalid_session_request',
  'invalid_request_body',
  'request_body_too_large',
  'rest_request_refused',
  'dashboard_request_refused',
  'sse_event_too_large',
  'upstream_failed',
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_answer_too_large',
  'upstream_answer_cut_off',
  // The agent's workspace tools (answered to the model as a result).
  'workspace_tool_refused',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
