/**
 * What a measured server process (`serve-proxy.ts`, `serve-floor.ts`) says to `bench/serve.ts` over IPC:
 * `{ type: 'ready', url }`, then every `sampleMs` its memory and CPU; a `{ type: 'gc' }` is answered with
 * the heap after a full collection, `{ type: 'stop' }` runs `stop` (which exits). Leaving with the parent.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';

export type ProxyMessage =
  | { type: 'ready'; url: string }
  | { type: 'sample'; rss: number; heapUsed: number; cpuMs: number; gcMs: number; majorGcMs: number }
  | { type: 'gc'; rss: number; heapUsed: number; cpuMs: number; gcMs: number; majorGcMs: number };

/** Time spent collecting garbage so far, all of it and the full (mark-compact) collections. */
const collected = { gcMs: 0, majorGcMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    collected.gcMs += entry.duration;
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collected.majorGcMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const send = (message: ProxyMessage): void => {
  process.send?.(message);
};

/** Starts sampling and answering the parent; call the returned function once the server listens at `url`. */
export function answerParent(sampleMs: number, stop: () => void): (url: string) => void {
  const sample = (type: 'sample' | 'gc'): void => {
    const memory = process.memoryUsage();
    send({ type, rss: memory.rss, heapUsed: memory.heapUsed, cpuMs: cpuMs(), ...collected });
  };
  const timer = setInterval(() => sample('sample'), sampleMs);
  process.on('message', (message: { type: string }) => {
    if (message.type === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      sample('gc');
    } else if (message.type === 'stop') {
      clearInterval(timer);
      stop();
    }
  });
  process.on('disconnect', () => process.exit(0));
  return (url) => {
    sample('sample');
    send({ type: 'ready', url });
  };
}
