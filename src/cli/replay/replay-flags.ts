import { existsSync } from 'node:fs';
import { ReplayInputError } from '../../core/errors/index.ts';
import { type CachePricing, DEFAULT_CACHE_PRICING } from '../../replay/replay-types.ts';
import type { PolicyFlags } from '../policy-flags.ts';

/** Everything `ctxkit replay` accepts. */
export interface ReplayFlags extends PolicyFlags {
  demo?: boolean;
  seed?: string;
  pricing?: string;
  modelSummaries?: boolean;
  /** `--calls` / `--no-calls`; unset: per-call tables when there is a single session. */
  calls?: boolean;
  verbose?: boolean;
  json?: boolean;
  /** Exit 1 when any replayed call overflowed the window or orphaned a tool pair. */
  check?: boolean;
  report?: string;
  /** `sqlite` (default: the embedded stores under --data) or `memory` (nothing written). */
  store?: string;
  /** `--data`: the data directory of the embedded stores. */
  data?: string;
}

/**
 * `--policy default,tiancai` is several presets; `--policy my-policy.yaml` one file (a path that exists
 * is never split, commas and all). No flag: one run with whatever the config sources say.
 */
export function policyEntries(policy: string | undefined): (string | undefined)[] {
  if (policy === undefined) return [undefined];
  if (existsSync(policy)) return [policy];
  const entries = policy.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry.length === 0)) {
    throw new ReplayInputError(`--policy: empty name in "${policy}" (use NAME[,NAME…] or a config file)`, {
      flag: 'policy',
      value: policy,
    });
  }
  return entries;
}

/** `--pricing read=0.1,write=1.25`: prompt-cache prices relative to the list input price; either may be left out. */
export function parsePricing(text: string | undefined): CachePricing {
  const pricing = { ...DEFAULT_CACHE_PRICING };
  if (text === undefined) return pricing;
  for (const piece of text.split(',')) {
    const [key, value, extra] = piece.split('=').map((part) => part.trim());
    const number = value !== undefined && /^(\d+\.?\d*|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
    if (extra !== undefined || !Number.isFinite(number) || number < 0) {
      throw new ReplayInputError(
        `--pricing: "${piece.trim()}" is not key=number (e.g. --pricing read=0.1,write=1.25)`,
        { flag: 'pricing', value: text },
      );
    }
    if (key === 'read') pricing.readMultiplier = number;
    else if (key === 'write') pricing.writeMultiplier = number;
    else {
      throw new ReplayInputError(`--pricing: unknown price "${key}" (read, write)`, {
        flag: 'pricing',
        value: text,
      });
    }
  }
  return pricing;
}

export function parseSeed(text: string | undefined, demo: boolean, fallback: number): number {
  if (text === undefined) return fallback;
  if (!demo) throw new ReplayInputError('--seed applies to --demo only', { flag: 'seed', value: text });
  const seed = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(seed) || seed > 0xffff_ffff) {
    throw new ReplayInputError(`--seed: expected an integer from 0 to 4294967295, got "${text}"`, {
      flag: 'seed',
      value: text,
    });
  }
  return seed;
}
