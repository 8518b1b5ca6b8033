import type { MemorySink } from '../core/memory-sink.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import type { AppendContext } from './append-messages.ts';
import type { CallContext, CounterChooser, PrepareRequest } from './call-context.ts';
import { Compactor } from './compactor.ts';
import { readIndexSources } from './context-indexes.ts';
import type { SessionResidency } from './session-residency.ts';
import type { SessionRuntime } from './session-runtime.ts';

export interface CallSetupOptions {
  store: SessionStore;
  blobs: BlobStore;
  memory: MemorySink;
  skills: SkillSource | undefined;
  summarizer: Summarizer;
  counters: CounterChooser;
  residency: SessionResidency;
  clock: () => number;
  newId: () => string;
  /** See `ContextManagerOptions.sharedStore`. */
  sharedStore: boolean;
}

/**
 * What a path needs for one call on a loaded session, made from the manager's parts: the call's context,
 * a Compactor committing through the session's residency, the context an append writes with.
 */
export class CallSetup {
  readonly #options: CallSetupOptions;

  constructor(options: CallSetupOptions) {
    this.#options = options;
  }

  async callContext(runtime: SessionRuntime, request: PrepareRequest): Promise<CallContext> {
    const { memory, skills, counters } = this.#options;
    // Read before every call: a skill added or a memory note written shows in the next request.
    const indexes = await readIndexSources(runtime.policy, { memory, skills });
    const call = runtime.resolveCall(request, counters, indexes);
    await runtime.useCounter(call.counter);
    return call;
  }

  compactor(runtime: SessionRuntime, call: CallContext, summarizer = this.#options.summarizer): Compactor {
    const { blobs, memory, clock, newId, residency, sharedStore } = this.#options;
    return new Compactor({
      runtime,
      call,
      policy: runtime.policy,
      summarizer,
      blobs,
      memory,
      clock,
      newId,
      commitEdits: (edits) => residency.commitEdits(runtime, edits),
      wholeLog: async () => (await residency.whole(runtime)).log,
      ...(sharedStore && { sharedStore: true }),
    });
  }

  /** The call's context (for `request`) and a Compactor for it. */
  async compactorFor(runtime: SessionRuntime, request: PrepareRequest): Promise<Compactor> {
    return this.compactor(runtime, await this.callContext(runtime, request));
  }

  appendContext(runtime: SessionRuntime): AppendContext {
    const { store, blobs, clock, newId, residency } = this.#options;
    return {
      runtime,
      store,
      blobs,
      policy: runtime.policy,
      clock,
      newId,
      forget: () => residency.unload(runtime.id),
    };
  }
}
