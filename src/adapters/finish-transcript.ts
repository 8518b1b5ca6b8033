/** The last step every converter shares: tool names recovered, seq numbered, stable ids assigned. */
import type { Message, MessageMeta, Part, Role, Transcript, Usage } from '../core/message.ts';
import { assignStableIds } from '../core/stable-id.ts';
import { pairToolCalls } from '../core/turns/pair-tool-calls.ts';

export interface MessageDraft {
  role: Role;
  parts: Part[];
  meta?: MessageMeta;
  usage?: Usage;
}

export function finishTranscript(system: string[], drafts: MessageDraft[]): Transcript {
  recoverToolNames(drafts);
  const numbered = drafts.map((draft, seq) => ({
    seq,
    role: draft.role,
    parts: draft.parts,
    meta: draft.meta ?? {},
    ...(draft.usage && { usage: draft.usage }),
  }));
  // Rebuilt so `id` comes first when a message is printed or stored as JSON.
  const messages: Message[] = assignStableIds(numbered).map(({ id, seq, role, parts, meta, usage }) => ({
    id,
    seq,
    role,
    parts,
    meta,
    ...(usage && { usage }),
  }));
  return { system, messages };
}

/** Fills in the tool name of results whose format does not carry it (OpenAI, corpus) from their call. */
export function recoverToolNames(drafts: MessageDraft[]): void {
  // Each call message's names by call id, built once: one message may carry thousands of calls, and
  // looking each result's call up in it again would be quadratic.
  const namesOfMessage = new Map<number, Map<string, string>>();
  const namesAt = (callIndex: number): Map<string, string> => {
    let names = namesOfMessage.get(callIndex);
    if (!names) {
      names = new Map();
      for (const part of drafts[callIndex]?.parts ?? [])
        if (part.type === 'tool-call' && !names.has(part.callId)) names.set(part.callId, part.name);
      namesOfMessage.set(callIndex, names);
    }
    return names;
  };
  for (const [resultIndex, callIndex] of pairToolCalls(drafts).callIndexOfResult) {
    for (const part of drafts[resultIndex]?.parts ?? []) {
      if (part.type !== 'tool-result' || part.name !== '') continue;
      const name = namesAt(callIndex).get(part.callId);
      if (name !== undefined) part.name = name;
    }
  }
}
