/**
 * Requests racing on one named session, each with the same start and a last message of its own: each goes
 * upstream as its client sent it, and the session's history afterwards is the one a single client sent
 * (the last one answered), never messages of several of them one after another. The log itself only
 * grows: the other requests' last messages stay in it, hidden by the branch each later request made.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { anthropicReply, openAIReply } from '../testing/fake-provider-server-replies.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

let harness: ProxyHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RACERS = 10;

const textOf = (message: Message): string =>
  message.parts.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');

/** A wire message's text, whether its content is a string or blocks. */
const wireText = (message: { content: unknown }): string =>
  typeof message.content === 'string'
    ? message.content
    : (message.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');

const CASES = [
  { name: 'OpenAI, not streamed', path: '/v1/chat/completions', stream: false, format: 'openai' },
  { name: 'Anthropic, streamed', path: '/v1/messages', stream: true, format: 'anthropic' },
] as const;

describe(`${RACERS} requests at once on one named session, each with its own last message`, () => {
  it.each(CASES)('($name) leave the session holding one client’s history', async (race) => {
    harness = await startProxyHarness({ detectWindow: false });
    const h = harness;
    const reply =
      race.format === 'openai' ? openAIReply({ content: 'answered' }) : anthropicReply({ text: 'answered' });
    // Each answer takes a moment, and so does each sync (as on a slow store), so the requests overlap
    // everywhere one could step on another.
    h.upstream.setFallback(() => ({ ...reply, delayMs: 20 }));
    const sync = h.manager.sync.bind(h.manager);
    h.manager.sync = async (...args) => {
      const synced = await sync(...args);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return synced;
    };
    const start = [
      { role: 'user', content: 'the shared start' },
      { role: 'assistant', content: 'the shared reply' },
    ];
    const sent = Array.from({ length: RACERS }, (_unused, index) => [
      ...start,
      { role: 'user', content: `question ${index}` },
    ]);
    const responses = await Promise.all(
      sent.map((messages) =>
        postJson(
          `${h.proxy.url}${race.path}`,
          {
            model: race.format === 'openai' ? 'gpt-4o' : 'claude-sonnet-4-5',
            max_tokens: 100,
            stream: race.stream,
            messages,
          },
          {
            'x-ctxkit-session': 'raced',
            ...(race.format === 'anthropic' && { 'anthropic-version': '2023-06-01' }),
          },
        ),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(sent.map(() => 200));

    // Each request went upstream as its own client sent it: every question once, after the shared start.
    const upstream = h.upstream.requests
      .filter((request) => request.format === race.format)
      .map((request) => (request.body as { messages: Array<{ content: unknown }> }).messages.map(wireText));
    expect(upstream).toHaveLength(RACERS);
    for (const messages of upstream)
      expect(messages.slice(0, 2)).toEqual(['the shared start', 'the shared reply']);
    expect(upstream.map((messages) => messages.slice(2)).sort()).toEqual(
      sent.map((messages) => [messages[2]?.content]).sort(),
    );

    // The session holds the history the last request answered sent, as it sent it.
    const [listed] = await h.store.list();
    expect(listed?.id).toMatch(/:raced$/);
    const { log, edits } = await h.manager.history(listed?.id ?? '');
    const hidden = new Set(edits.flatMap((edit) => (edit.type === 'branch' ? edit.hiddenSeqs : [])));
    const held = log.filter((message) => !hidden.has(message.seq)).map(textOf);
    expect(held).toEqual(upstream.at(-1));
    // Every question is in the log (it only grows), all but the held one hidden by a later request's branch.
    const questions = log.filter((message) => textOf(message).startsWith('question '));
    expect(questions).toHaveLength(RACERS);
    expect(questions.filter((message) => hidden.has(message.seq))).toHaveLength(RACERS - 1);
  });
});
