import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { it } from 'vitest';
import { createContextManager } from '../engine/context-manager.ts';
import { PRESETS } from '../core/policy/index.ts';
import { startProxyServer } from './start-proxy-server.ts';
import { startWindowEnforcingUpstream } from './testing/window-enforcing-upstream.ts';
import { anthropicWire } from './wire/anthropic-wire.ts';
import { openAIWire } from './wire/openai-wire.ts';
import { assignStableIds } from '../core/stable-id.ts';

const parts = [{ type: 'text' as const, text: 'Let me look.' }, { type: 'tool-call' as const, callId: 'toolu_01', name: 'bash', args: '{"command":"ls"}' }];
const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: {} } } }];

it('debug', async () => {
  const upstream = await startWindowEnforcingUpstream({ window: 12000, models: ['claude-sonnet-4-6', 'gpt-4o'] });
  const manager = createContextManager({ policy: PRESETS.default });
  const proxy = await startProxyServer({ manager, upstream: upstream.server.openAIBaseUrl, contextWindow: 12000 });
  upstream.answerWith(parts);
  const seen: unknown[] = [];
  const fetcher = (async (url: string, init: RequestInit) => { const r = await fetch(url, init); seen.push(r.headers.get('x-ctxkit-session')); return r; }) as typeof fetch;
  const oa = new OpenAI({ baseURL: proxy.url + '/v1', apiKey: 'k1', maxRetries: 0, fetch: fetcher });
  for (const stream of [false, true]) {
    const history: any[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi ' + stream }];
    const c = stream ? await ChatCompletionStream.fromReadableStream((await oa.chat.completions.create({ model: 'gpt-4o', messages: history, tools, max_tokens: 100, stream: true })).toReadableStream()).finalChatCompletion()
      : await oa.chat.completions.create({ model: 'gpt-4o', messages: history, tools, max_tokens: 100 });
    const msg = c.choices[0]!.message;
    history.push(msg, { role: 'tool', tool_call_id: 'toolu_01', content: 'out' });
    await oa.chat.completions.create({ model: 'gpt-4o', messages: history, tools, max_tokens: 100 });
    const parsed = openAIWire.parseRequest({ model: 'gpt-4o', messages: history });
    const log = (await manager.history(((await (manager as any).store?.list?.()) ?? [])[0]?.id ?? 'x').catch(() => undefined));
    console.log('openai stream', stream, JSON.stringify(msg), '\nparsed:', JSON.stringify(assignStableIds(parsed.history).slice(1, 2)));
  }
  const an = new Anthropic({ baseURL: proxy.url, apiKey: 'k2', maxRetries: 0, fetch: fetcher });
  const atools = [{ name: 'bash', input_schema: { type: 'object' as const, properties: {} } }];
  for (const stream of [false, true]) {
    const history: any[] = [{ role: 'user', content: 'hi ' + stream }];
    const m = stream ? await an.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: history, tools: atools }).finalMessage() : await an.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: history, tools: atools });
    history.push({ role: 'assistant', content: m.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'out' }] });
    await an.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: history, tools: atools });
    const parsed = anthropicWire.parseRequest({ model: 'x', messages: history });
    console.log('anthropic stream', stream, JSON.stringify(m.content), '\nparsed:', JSON.stringify(assignStableIds(parsed.history).slice(1, 2)));
  }
  console.log(seen);
  await proxy.close(); await upstream.close();
});
