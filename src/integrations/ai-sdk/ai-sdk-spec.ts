/**
 * The AI SDK's language model specification as ctxkit reads and writes it, declared here rather than
 * imported: AI SDK 6 speaks `LanguageModelV3` (`@ai-sdk/provider` 3), AI SDK 7 speaks `LanguageModelV4`
 * (`@ai-sdk/provider` 4), and a user has one of the two installed, so ctxkit's published types may name
 * neither package. `ai-sdk-spec.test.ts` checks these against both packages, both ways.
 *
 * - The prompt of each version is copied exactly (`AiSdkV3Prompt`, `AiSdkV4Prompt`): what ctxkit writes
 *   is the version's own type, and what it reads (`AiSdkPrompt`) is either.
 * - Responses, stream parts, usage and call settings are only read: their types say what ctxkit reads,
 *   in a shape both versions' values fit.
 *
 * V4 changed, for what ctxkit touches: file data is tagged (`{ type: 'data' | 'url' | 'reference' |
 * 'text' }`, the URL's `originalUrl` inside it), a tool output's files are one `file` item with such data
 * (V3's `file-data`, `file-url`, `file-id`, `image-*` are gone), assistant messages carry `custom` and
 * `reasoning-file` parts, streams carry `ping`, `custom` and `reasoning-file` parts, an empty text with
 * provider metadata stays in the next prompt, and JSON is readonly.
 */

export type AiSdkSpecificationVersion = 'v3' | 'v4';

/** JSON as V3 declares it, and as ctxkit keeps it in `meta`. */
export type JSONValue = null | string | number | boolean | JSONObject | JSONValue[];
export type JSONObject = { [key: string]: JSONValue | undefined };

/** JSON as V4 declares it: readonly. Every `JSONValue` is one. */
export type ReadonlyJSONValue =
  | null
  | string
  | number
  | boolean
  | Readonly<ReadonlyJSONObject>
  | readonly ReadonlyJSONValue[];
export type ReadonlyJSONObject = { [key: string]: ReadonlyJSONValue | undefined };

/** `providerOptions` as V3 declares them, and as ctxkit keeps them. */
export type ProviderOptions = Record<string, JSONObject>;
/** `providerOptions` (and `providerMetadata`) as V4 declares them. */
export type ReadonlyProviderOptions = Record<string, ReadonlyJSONObject>;

// ---------------------------------------------------------------------------------------------------------
// Prompt parts both versions share (V4's with readonly options).

export interface AiSdkTextPart<O = ProviderOptions> {
  type: 'text';
  text: string;
  providerOptions?: O;
}

export interface AiSdkReasoningPart<O = ProviderOptions> {
  type: 'reasoning';
  text: string;
  providerOptions?: O;
}

export interface AiSdkToolCallPart<O = ProviderOptions> {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerExecuted?: boolean;
  providerOptions?: O;
}

export interface AiSdkToolResultPart<Output, O = ProviderOptions> {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: Output;
  providerOptions?: O;
}

export interface AiSdkToolApprovalResponsePart<O = ProviderOptions> {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
  providerOptions?: O;
}

/** A prompt message of a version: its options, file part, tool output and the assistant parts only it has. */
export type AiSdkPromptMessage<O, File, Output, AssistantExtra> = (
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<AiSdkTextPart<O> | File> }
  | {
      role: 'assistant';
      content: Array<
        | AiSdkTextPart<O>
        | File
        | AiSdkReasoningPart<O>
        | AiSdkToolCallPart<O>
        | AiSdkToolResultPart<Output, O>
        | AssistantExtra
      >;
    }
  | { role: 'tool'; content: Array<AiSdkToolResultPart<Output, O> | AiSdkToolApprovalResponsePart<O>> }
) & { providerOptions?: O };

// ---------------------------------------------------------------------------------------------------------
// V3 (`@ai-sdk/provider` 3, AI SDK 6).

/** A V3 file's data: bytes, base64 text (or a provider's file id) or a URL. */
export type AiSdkV3DataContent = Uint8Array | string | URL;

export interface AiSdkV3FilePart {
  type: 'file';
  filename?: string;
  data: AiSdkV3DataContent;
  /** The URL as written, when parsing it into `data` changed it. */
  originalUrl?: string;
  mediaType: string;
  providerOptions?: ProviderOptions;
}

export type AiSdkV3ToolResultContentItem =
  | { type: 'text'; text: string; providerOptions?: ProviderOptions }
  | {
      type: 'file-data';
      data: string;
      mediaType: string;
      filename?: string;
      providerOptions?: ProviderOptions;
    }
  | { type: 'file-url'; url: string; mediaType?: string; providerOptions?: ProviderOptions }
  | { type: 'file-id'; fileId: string | Record<string, string>; providerOptions?: ProviderOptions }
  | { type: 'image-data'; data: string; mediaType: string; providerOptions?: ProviderOptions }
  | { type: 'image-url'; url: string; providerOptions?: ProviderOptions }
  | { type: 'image-file-id'; fileId: string | Record<string, string>; providerOptions?: ProviderOptions }
  | { type: 'custom'; providerOptions?: ProviderOptions };

export type AiSdkV3ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json' | 'error-json'; value: JSONValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions }
  | { type: 'content'; value: AiSdkV3ToolResultContentItem[] };

export type AiSdkV3Message = AiSdkPromptMessage<
  ProviderOptions,
  AiSdkV3FilePart,
  AiSdkV3ToolResultOutput,
  never
>;
export type AiSdkV3Prompt = AiSdkV3Message[];

// ---------------------------------------------------------------------------------------------------------
// V4 (`@ai-sdk/provider` 4, AI SDK 7).

export interface AiSdkV4FileDataData {
  type: 'data';
  data: Uint8Array | string;
}

export interface AiSdkV4FileDataUrl {
  type: 'url';
  url: URL;
  /** The URL as written, when parsing it changed it. */
  originalUrl?: string;
}

/** A file's id at each provider that holds it: `{ openai: 'file-…', anthropic: 'file_…' }`. */
export type AiSdkV4ProviderReference = Record<string, string> & { type?: never };

export interface AiSdkV4FileDataReference {
  type: 'reference';
  reference: AiSdkV4ProviderReference;
}

export interface AiSdkV4FileDataText {
  type: 'text';
  text: string;
}

export type AiSdkV4FileData =
  | AiSdkV4FileDataData
  | AiSdkV4FileDataUrl
  | AiSdkV4FileDataReference
  | AiSdkV4FileDataText;

export interface AiSdkV4FilePart {
  type: 'file';
  filename?: string;
  data: AiSdkV4FileData;
  /** A full media type (`image/png`) or only its top-level segment (`image`). */
  mediaType: string;
  providerOptions?: ReadonlyProviderOptions;
}

/** A file the model produced while reasoning. */
export interface AiSdkV4ReasoningFilePart {
  type: 'reasoning-file';
  data: AiSdkV4FileDataData | AiSdkV4FileDataUrl;
  mediaType: string;
  providerOptions?: ReadonlyProviderOptions;
}

/** A provider's own part, all of it in its provider options. */
export interface AiSdkV4CustomPart {
  type: 'custom';
  kind: `${string}.${string}`;
  providerOptions?: ReadonlyProviderOptions;
}

export type AiSdkV4ToolResultContentItem =
  | { type: 'text'; text: string; providerOptions?: ReadonlyProviderOptions }
  | {
      type: 'file';
      data: AiSdkV4FileData;
      mediaType: string;
      filename?: string;
      providerOptions?: ReadonlyProviderOptions;
    }
  | { type: 'custom'; providerOptions?: ReadonlyProviderOptions };

export type AiSdkV4ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string; providerOptions?: ReadonlyProviderOptions }
  | { type: 'json' | 'error-json'; value: ReadonlyJSONValue; providerOptions?: ReadonlyProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ReadonlyProviderOptions }
  | { type: 'content'; value: AiSdkV4ToolResultContentItem[] };

export type AiSdkV4Message = AiSdkPromptMessage<
  ReadonlyProviderOptions,
  AiSdkV4FilePart,
  AiSdkV4ToolResultOutput,
  AiSdkV4CustomPart | AiSdkV4ReasoningFilePart
>;
export type AiSdkV4Prompt = AiSdkV4Message[];

// ---------------------------------------------------------------------------------------------------------
// What ctxkit reads, from either version.

export type AiSdkMessage = AiSdkV3Message | AiSdkV4Message;
export type AiSdkPrompt = readonly AiSdkMessage[];
export type AiSdkToolResultOutput = AiSdkV3ToolResultOutput | AiSdkV4ToolResultOutput;

export interface AiSdkUsage {
  inputTokens: {
    total: number | undefined;
    noCache: number | undefined;
    cacheRead: number | undefined;
    cacheWrite: number | undefined;
  };
  outputTokens: {
    total: number | undefined;
    text: number | undefined;
    reasoning: number | undefined;
  };
}

/** A response's content, as a generate result holds it and a stream sends it (the parts ctxkit reads). */
export type AiSdkContent =
  | { type: 'text' | 'reasoning'; text: string; providerMetadata?: ReadonlyProviderOptions }
  | { type: 'custom'; kind: `${string}.${string}`; providerMetadata?: ReadonlyProviderOptions }
  | {
      type: 'file' | 'reasoning-file';
      mediaType: string;
      /** V3: bytes or base64; V4: tagged. */
      data: string | Uint8Array | AiSdkV4FileDataData | AiSdkV4FileDataUrl;
      providerMetadata?: ReadonlyProviderOptions;
    }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      /** The input as JSON text. */
      input: string;
      providerExecuted?: boolean;
      providerMetadata?: ReadonlyProviderOptions;
    }
  | {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      result: ReadonlyJSONValue;
      isError?: boolean;
      preliminary?: boolean;
      providerMetadata?: ReadonlyProviderOptions;
    }
  | { type: 'source' | 'tool-approval-request' };

/** A generate call's result (what ctxkit reads of it). */
export interface AiSdkGenerateResult {
  content: readonly AiSdkContent[];
  usage: AiSdkUsage;
  response?: { modelId?: string };
  warnings: readonly unknown[];
}

/** The stream parts ctxkit reads; the rest pass through untouched. */
export type AiSdkStreamPart =
  | {
      type: 'text-start' | 'reasoning-start' | 'text-end' | 'reasoning-end';
      id: string;
      providerMetadata?: ReadonlyProviderOptions;
    }
  | {
      type: 'text-delta' | 'reasoning-delta';
      id: string;
      delta: string;
      providerMetadata?: ReadonlyProviderOptions;
    }
  | { type: 'stream-start'; warnings: readonly unknown[] }
  | { type: 'response-metadata'; modelId?: string }
  | { type: 'finish'; usage: AiSdkUsage }
  | { type: 'error'; error: unknown }
  | { type: 'ping' | 'raw' | 'tool-input-start' | 'tool-input-delta' | 'tool-input-end' }
  | AiSdkContent;

/** A function tool or a provider tool, as a call lists them. */
export type AiSdkTool =
  | { type: 'function'; name: string; description?: string; inputSchema: unknown }
  | { type: 'provider'; name: string; id: string };

/** The settings of one model call, as a middleware receives them (the fields ctxkit reads). */
export interface AiSdkCallOptions {
  prompt: AiSdkPrompt;
  maxOutputTokens?: number;
  tools?: readonly AiSdkTool[];
  headers?: Record<string, string | undefined>;
  providerOptions?: ReadonlyProviderOptions;
}

/** The model a middleware wraps: the specification version it speaks tells the version of each call. */
export interface AiSdkModelInfo {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
}
