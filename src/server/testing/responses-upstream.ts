/**
 * A stand-in for OpenAI's Responses API (`POST /v1/responses`) over real HTTP, for proxy tests. It
 * enforces the rules the real API refuses requests by, with the real error bodies:
 * - the context window: input counted with exact o200k (text, call arguments, outputs, reasoning
 *   summaries, any other item as its JSON, the tools as JSON) over `window − max_output_tokens` is a 400
 *   `context_length_exceeded`, or (with `overflowAs: 'event'`) a stream that fails with it;
 * - every `function_call_output` / `custom_tool_call_output` answers a call earlier in `input`, and every
 *   call is answered before the next message;
 * - every reasoning item's `encrypted_content` is one it issued, byte for byte (it signs what it issues);
 * - without `store`, no item may be a bare reference (`item_reference`, or a reasoning item with an id
 *   and nothing to read).
 * Answers are scripted per request (`answer`); each reasoning item it returns carries encrypted content
 * it signed when the request asks for it (`include: ['reasoning.encrypted_content']`), as the API does. Streams follow the real event sequence, numbered by `sequence_number`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';

type Item = Record<string, unknown>;

/** What the model answers: reasoning first (when set), then text, then calls. */
export interface ResponsesAnswer {
  reasoning?: string;
  text?: string;
  calls?: readonly { name: string; arguments: string; custom?: boolean }[];
  /** Cut the stream off after this many events (no `response.completed`). */
  cutAfterEvents?: number;
}

export interface ResponsesRequestFigure {
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The input as the window counts it. */
  input: number;
  /** Why it was refused, when it was. */
  refusal?: string;
  overWindow: boolean;
}

export interface ResponsesUpstream {
  /** `baseUrl` for an OpenAI client: `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly window: number;
  readonly requests: readonly ResponsesRequestFigure[];
  /** Every reasoning item it issued, as issued. */
  readonly issuedReasoning: readonly Item[];
  /** The id of every response it answered, in order. */
  readonly responseIds: readonly string[];
  close(): Promise<void>;
}

export interface ResponsesUpstreamOptions {
  window: number;
  /** The answer to each accepted request; default a short text. */
  answer?: (body: Record<string, unknown>, index: number) => ResponsesAnswer;
  /** How a streamed request over the window is refused: a 400 (default), or a `response.failed` event. */
  overflowAs?: 'status' | 'event';
}

export const OVERFLOW_MESSAGE =
  'Your input exceeds the context window of this model. Please adjust your input and try again.';

const counter = createExactCounter('o200k');

export async function startResponsesUpstream(options: ResponsesUpstreamOptions): Promise<ResponsesUpstream> {
  const secret = randomBytes(16);
  const requests: ResponsesRequestFigure[] = [];
  const issuedReasoning: Item[] = [];
  const responseIds: string[] = [];
  let accepted = 0;
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_${(++ids).toString(16).padStart(8, '0')}`;
  const sign = (text: string) => {
    const payload = Buffer.from(text).toString('base64');
    return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
  };
  const verified = (content: string) => {
    const [payload = '', mac] = content.split('.');
    return mac === createHmac('sha256', secret).update(payload).digest('base64url');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
    );
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/v1/responses' && path !== '/responses')) {
      return json(
        res,
        404,
        error(`Invalid URL (${req.method} ${path})`, 'invalid_request_error', null, null),
      );
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return json(
        res,
        400,
        error('We could not parse the JSON body of your request.', 'invalid_request_error', null, null),
      );
    }
    const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
    const figure: ResponsesRequestFigure = { body, headers, input: 0, overWindow: false };
    requests.push(figure);
    const refuse = (message: string, param: string | null, code: string | null) => {
      figure.refusal = message;
      return json(res, 400, error(message, 'invalid_request_error', param, code));
    };
    if (typeof body.model !== 'string')
      return refuse("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
    if (!Array.isArray(input))
      return refuse("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
    const broken = ruleBroken(input as unknown[], body.store !== false, verified);
    if (broken) return refuse(broken, 'input', null);
    figure.input = countRequest(body, input as unknown[]);
    const maxOutput = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : 0;
    if (figure.input + maxOutput > options.window) {
      figure.overWindow = true;
      figure.refusal = OVERFLOW_MESSAGE;
      if (body.stream === true && options.overflowAs === 'event') {
        const id = nextId('resp');
        const response = { id, object: 'response', status: 'failed', model: body.model, output: [] };
        return stream(res, [
          ['response.created', { response: { ...response, status: 'in_progress' } }],
          ['response.in_progress', { response: { ...response, status: 'in_progress' } }],
          [
            'response.failed',
            {
              response: {
                ...response,
                error: { code: 'context_length_exceeded', message: OVERFLOW_MESSAGE },
              },
            },
          ],
        ]);
      }
      return json(
        res,
        400,
        error(OVERFLOW_MESSAGE, 'invalid_request_error', 'input', 'context_length_exceeded'),
      );
    }
    const answer = options.answer?.(body, accepted) ?? { text: 'Noted.' };
    accepted += 1;
    const output: Item[] = [];
    if (answer.reasoning !== undefined) {
      const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
      const item: Item = {
        id: nextId('rs'),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: answer.reasoning }],
        ...(encrypted && { encrypted_content: sign(answer.reasoning) }),
      };
      issuedReasoning.push(item);
      output.push(item);
    }
    if (answer.text !== undefined)
      output.push({
        id: nextId('msg'),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: answer.text, annotations: [] }],
      });
    for (const call of answer.calls ?? [])
      output.push(
        call.custom
          ? {
              id: nextId('ctc'),
              type: 'custom_tool_call',
              status: 'completed',
              call_id: nextId('call'),
              name: call.name,
              input: call.arguments,
            }
          : {
              id: nextId('fc'),
              type: 'function_call',
              status: 'completed',
              call_id: nextId('call'),
              name: call.name,
              arguments: call.arguments,
            },
      );
    const responseId = nextId('resp');
    responseIds.push(responseId);
    const response = {
      id: responseId,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      model: body.model,
      output,
      usage: {
        input_tokens: figure.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 12,
        output_tokens_details: { reasoning_tokens: answer.reasoning ? 8 : 0 },
        total_tokens: figure.input + 12,
      },
    };
    if (body.stream !== true) return json(res, 200, response);
    const events = streamEvents(response, output);
    return stream(res, answer.cutAfterEvents === undefined ? events : events.slice(0, answer.cutAfterEvents));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((caught: unknown) => {
      res.statusCode = 500;
      res.end(String(caught));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    window: options.window,
    requests,
    issuedReasoning,
    responseIds,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first rule of the real API the input breaks, in its words; undefined when it breaks none. */
function ruleBroken(
  input: readonly unknown[],
  stored: boolean,
  verified: (content: string) => boolean,
): string | undefined {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const value of input) {
    if (!isRecord(value)) return 'Invalid input: every item must be an object.';
    const type = value.type ?? 'message';
    if ((type === 'function_call' || type === 'custom_tool_call') && typeof value.call_id === 'string') {
      calls.add(value.call_id);
      continue;
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      if (typeof value.call_id !== 'string' || !calls.has(value.call_id))
        return `No tool call found for function call output with call_id ${String(value.call_id)}.`;
      answered.add(value.call_id);
      continue;
    }
    if (type === 'reasoning') {
      if (typeof value.encrypted_content === 'string') {
        if (!verified(value.encrypted_content))
          return `The encrypted content for item ${String(value.id ?? 'rs')} could not be verified.`;
      } else if (!stored) {
        return `Item with id '${String(value.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
      }
      continue;
    }
    if (type === 'item_reference' && !stored)
      return `Item with id '${String(value.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
    if (type === 'message') {
      for (const callId of calls)
        if (!answered.has(callId)) return `No tool output found for function call ${callId}.`;
      if (value.content === '' || (Array.isArray(value.content) && value.content.length === 0))
        return "Invalid 'input': a message's content must not be empty.";
    }
  }
  return undefined;
}

/** The request as the window counts it: text, arguments, outputs, summaries; other items as JSON. */
export function countRequest(body: Record<string, unknown>, input: readonly unknown[]): number {
  let tokens = typeof body.instructions === 'string' ? counter.count(body.instructions) : 0;
  if (Array.isArray(body.tools)) tokens += counter.count(JSON.stringify(body.tools));
  for (const item of input) {
    tokens += 4;
    if (!isRecord(item)) continue;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const content = item.content;
      if (typeof content === 'string') tokens += counter.count(content);
      else if (Array.isArray(content))
        for (const part of content)
          tokens += isRecord(part) && typeof part.text === 'string' ? counter.count(part.text) : 85;
    } else if (type === 'function_call')
      tokens += counter.count(`${String(item.name)}${String(item.arguments)}`);
    else if (type === 'custom_tool_call')
      tokens += counter.count(`${String(item.name)}${String(item.input)}`);
    else if (type === 'function_call_output' || type === 'custom_tool_call_output')
      tokens += counter.count(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
    else if (type === 'reasoning')
      tokens += counter.count(
        (Array.isArray(item.summary) ? item.summary : [])
          .map((part) => (isRecord(part) ? String(part.text) : ''))
          .join('\n'),
      );
    else tokens += counter.count(JSON.stringify(item));
  }
  return tokens;
}

/** The real event sequence of a response, numbered. */
function streamEvents(
  response: Record<string, unknown>,
  output: readonly Item[],
): [string, Record<string, unknown>][] {
  const opening = { ...response, status: 'in_progress', output: [], usage: null };
  const events: [string, Record<string, unknown>][] = [
    ['response.created', { response: opening }],
    ['response.in_progress', { response: opening }],
  ];
  output.forEach((item, index) => {
    const base = { output_index: index, item_id: item.id };
    if (item.type === 'reasoning') {
      const text = String((item.summary as Item[])[0]?.text ?? '');
      events.push([
        'response.output_item.added',
        { output_index: index, item: { ...item, summary: [], encrypted_content: null } },
      ]);
      events.push([
        'response.reasoning_summary_part.added',
        { ...base, summary_index: 0, part: { type: 'summary_text', text: '' } },
      ]);
      events.push(['response.reasoning_summary_text.delta', { ...base, summary_index: 0, delta: text }]);
      events.push(['response.reasoning_summary_text.done', { ...base, summary_index: 0, text }]);
      events.push([
        'response.reasoning_summary_part.done',
        { ...base, summary_index: 0, part: { type: 'summary_text', text } },
      ]);
    } else if (item.type === 'message') {
      const text = String(((item.content as Item[])[0] as Item).text);
      events.push([
        'response.output_item.added',
        { output_index: index, item: { ...item, status: 'in_progress', content: [] } },
      ]);
      events.push([
        'response.content_part.added',
        { ...base, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      ]);
      for (const delta of text.match(/.{1,8}/gs) ?? [])
        events.push(['response.output_text.delta', { ...base, content_index: 0, delta, logprobs: [] }]);
      events.push(['response.output_text.done', { ...base, content_index: 0, text, logprobs: [] }]);
      events.push([
        'response.content_part.done',
        { ...base, content_index: 0, part: { type: 'output_text', text, annotations: [] } },
      ]);
    } else if (item.type === 'function_call') {
      events.push([
        'response.output_item.added',
        { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } },
      ]);
      events.push(['response.function_call_arguments.delta', { ...base, delta: item.arguments }]);
      events.push(['response.function_call_arguments.done', { ...base, arguments: item.arguments }]);
    } else {
      events.push([
        'response.output_item.added',
        { output_index: index, item: { ...item, status: 'in_progress', input: '' } },
      ]);
      events.push(['response.custom_tool_call_input.delta', { ...base, delta: item.input }]);
      events.push(['response.custom_tool_call_input.done', { ...base, input: item.input }]);
    }
    events.push(['response.output_item.done', { output_index: index, item }]);
  });
  events.push(['response.completed', { response }]);
  return events;
}

function stream(res: ServerResponse, events: readonly [string, Record<string, unknown>][]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  events.forEach(([type, fields], sequence) => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence })}\n\n`);
  });
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function error(message: string, type: string, param: string | null, code: string | null): unknown {
  return { error: { message, type, param, code } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
