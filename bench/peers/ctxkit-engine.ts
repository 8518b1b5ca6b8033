/**
 * Which ctxkit the bench's ctxkit systems run: its sources (tests, and `--ctxkit-from src`), or the compiled
 * package (`dist/`, built by `npm run bench:peers` first), which is what an agent that installed ctxkit
 * runs. The peers run from their own compiled packages; from the sources ctxkit would run through the
 * TypeScript loader, whose `keepNames` wraps every function it creates in a naming call.
 */
import { PRESETS } from '../../src/core/policy/presets/index.ts';
import { replayWithCtxkit } from '../../src/replay/replay-with-ctxkit.ts';
import { createModelSummarizer } from '../../src/summarize/model-summarizer.ts';

export type CtxkitSource = 'src' | 'dist';

export interface CtxkitEngine {
  from: CtxkitSource;
  PRESETS: typeof PRESETS;
  replayWithCtxkit: typeof replayWithCtxkit;
  createModelSummarizer: typeof createModelSummarizer;
}

let engine: CtxkitEngine = { from: 'src', PRESETS, replayWithCtxkit, createModelSummarizer };

export function ctxkitEngine(): CtxkitEngine {
  return engine;
}

/** From now on, the ctxkit systems run the compiled package; fails when it has not been built. */
export async function useCompiledCtxkit(): Promise<void> {
  const dist = new URL('../../dist/', import.meta.url);
  const load = async (path: string): Promise<Record<string, unknown>> => {
    try {
      return (await import(new URL(path, dist).href)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(
        `cannot load ${path} from dist/ (run npm run build first): ${(error as Error).message}`,
      );
    }
  };
  const [presets, replay, summarizer] = await Promise.all([
    load('core/policy/presets/index.js'),
    load('replay/replay-with-ctxkit.js'),
    load('summarize/model-summarizer.js'),
  ]);
  engine = {
    from: 'dist',
    PRESETS: presets.PRESETS as typeof PRESETS,
    replayWithCtxkit: replay.replayWithCtxkit as typeof replayWithCtxkit,
    createModelSummarizer: summarizer.createModelSummarizer as typeof createModelSummarizer,
  };
}
