import type { Edit } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import { toolResultOf } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { normalizeEdit } from '../layers/normalize-tool-output/normalize-edit.ts';
import { normalizeToolOutput } from '../layers/normalize-tool-output/normalize-tool-output.ts';
import {
  DEFAULT_RENDER_MAX_CHARS,
  type NormalizeToolOutputOptions,
  resolveNormalizeOptions,
} from '../layers/normalize-tool-output/options.ts';
import { renderToolOutput } from '../layers/normalize-tool-output/render-tool-output.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { blobRef, sanitizeBlobId } from '../store/blob-store-ids.ts';
import type { SessionRuntime } from './session-runtime.ts';

export interface NormalizeAppendedInput {
  runtime: SessionRuntime;
  message: Message;
  policy: Policy;
  blobs: BlobStore;
  at: number;
  newId: () => string;
  events: ContextEvent[];
}

const resolvedOptions = new WeakMap<Policy['toolOutput'], NormalizeToolOutputOptions>();

/** The layer's options for a policy, resolved once per policy rather than on every result. */
function settingsFor(policy: Policy): NormalizeToolOutputOptions {
  let settings = resolvedOptions.get(policy.toolOutput);
  if (!settings) {
    settings = resolveNormalizeOptions(normalizeOptionsFrom(policy));
    resolvedOptions.set(policy.toolOutput, settings);
  }
  return settings;
}

/** The policy's tool-output settings as the normalize layer's options (0 = no cap). */
export function normalizeOptionsFrom(policy: Policy): Partial<NormalizeToolOutputOptions> {
  const { toolOutput } = policy;
  const cap = (value: number) => (value > 0 ? value : Number.POSITIVE_INFINITY);
  return {
    maxLines: cap(toolOutput.maxLines),
    maxBytes: cap(toolOutput.maxBytes),
    maxChars: cap(toolOutput.maxChars),
    largeOutputThreshold: cap(toolOutput.spillThresholdChars),
    spillTokenThreshold: cap(toolOutput.spillThresholdTokens),
    truncateMode: toolOutput.truncateMode,
    capBeforeSpill: toolOutput.capBeforeSpill,
    renderTerminal: toolOutput.renderTerminal,
    previewLines: Math.max(1, toolOutput.previewHeadLines + toolOutput.previewTailLines),
  };
}

/**
 * "Normalize tool output" as a result arrives (tiancai, deepagents): the log keeps the result exactly as it
 * came; an edit records what the model sees instead — rendered, capped with a stats notice, or spilled
 * to a blob (sha256 + pointer the agent can follow). With `spillWhenTruncated`, what a cap cut is
 * stored too, so nothing is lost.
 */
export async function normalizeAppendedResult(input: NormalizeAppendedInput): Promise<Edit[]> {
  const { message, policy, runtime } = input;
  const result = toolResultOf(message);
  if (!policy.toolOutput.enabled || message.role !== 'tool' || !result) return [];
  const id = sanitizeBlobId(`${message.seq}-${result.callId || 'result'}`);
  const spillRef = blobRef('large_tool_results', id);
  const output = await normalizeToolOutput(
    {
      content: result.content,
      spillRef,
      countTokens: (text) => runtime.counter.count(text),
      ...(runtime.counter.maxTokensPerByte !== undefined
        ? { maxTokensPerByte: runtime.counter.maxTokensPerByte }
        : {}),
    },
    settingsFor(policy),
  );
  if (!output.changed) return [];
  const tokensBefore = runtime.historyTokens;
  let stored: { ref: string; sha256: string; bytes: number } | undefined;
  // A truncated output is built as a splice of the rendered one, which the spill check counted whole: a
  // counter that can then counts the kept text around its cuts and remembers it, so measuring the
  // message is a lookup instead of a second scan of tens of kilobytes.
  const truncated = (suffix: string): string => {
    const spliced = output.contentSplice;
    if (!spliced || !runtime.counter.countSplice) return `${output.content}${suffix}`;
    return runtime.counter.countSplice(spliced.source, [...spliced.splice, suffix]).text();
  };
  let content = output.content;
  if (output.spill) {
    stored = await input.blobs.put(runtime.id, 'large_tool_results', id, output.spill.content);
  } else if (output.action === 'truncated' && !policy.toolOutput.spillWhenTruncated) {
    content = truncated('');
  } else if (output.action === 'truncated') {
    const full = await renderToolOutput(result.content, {
      renderTerminal: policy.toolOutput.renderTerminal,
      renderMaxChars: DEFAULT_RENDER_MAX_CHARS,
    });
    stored = await input.blobs.put(runtime.id, 'large_tool_results', id, full.text);
    content = truncated(
      `\n[full output (${stored.bytes} bytes, sha256 ${stored.sha256}) saved as ${stored.ref}; read it with read_offloaded("${stored.ref}")]`,
    );
  }
  const edit = stored
    ? {
        id: input.newId(),
        at: input.at,
        type: 'evict' as const,
        layer: 'normalize' as const,
        reason: 'tool_output_limit' as const,
        target: message.seq,
        blobRef: stored.ref,
        sha256: stored.sha256,
        bytes: stored.bytes,
        content,
        tokensBefore,
        tokensAfter: tokensBefore,
      }
    : normalizeEdit(content === output.content ? output : { ...output, content }, {
        id: input.newId(),
        at: input.at,
        target: message.seq,
        tokensBefore,
        tokensAfter: tokensBefore,
      });
  if (!edit) return [];
  if (edit.type === 'evict') {
    input.events.push({
      type: 'tool-output-spilled',
      sessionId: runtime.id,
      at: input.at,
      seq: message.seq,
      blobRef: edit.blobRef,
      sha256: edit.sha256,
      bytes: edit.bytes,
    });
  } else {
    input.events.push({
      type: 'tool-output-normalized',
      sessionId: runtime.id,
      at: input.at,
      seq: message.seq,
      charsBefore: result.content.length,
      charsAfter: edit.content.length,
    });
  }
  return [edit];
}
