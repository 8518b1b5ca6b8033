import { InvalidPolicyError } from '../core/errors/index.ts';
import type { Policy, PolicyOverride } from '../core/policy/policy-schema.ts';
import type { SessionStore } from '../store/session-store.ts';
import { applyMergePatch, resolveSessionPolicy, type SessionPolicy } from './session-policy.ts';
import type { SessionResidency } from './session-residency.ts';

/**
 * The session's policy from its stored override, refused as the session's when it no longer fits the
 * manager's `policy` (an `InvalidPolicyError` naming the session, to change with setPolicyOverride).
 */
export function storedSessionPolicy(
  policy: Policy,
  sessionId: string,
  override: PolicyOverride | undefined,
): SessionPolicy {
  if (override === undefined) return { override: {}, policy };
  try {
    return resolveSessionPolicy(policy, override);
  } catch (error) {
    if (!InvalidPolicyError.isInstance(error)) throw error;
    const { key: _key, reason, ...details } = error.details;
    throw new InvalidPolicyError(
      error.key,
      `${String(reason)} (in the stored policy override of session ${JSON.stringify(sessionId)}: change it with setPolicyOverride)`,
      // The reason as the policy gave it, for a caller that says it in its own words (ctxkit serve).
      { ...details, sessionId, overrideReason: reason },
    );
  }
}

/**
 * Sessions' policy overrides: checked against the manager's policy, kept in the session store, and put to
 * use in the loaded session at once. Each change takes the session's lock without loading the session: an
 * override that no longer fits can still be replaced.
 */
export class PolicyOverrides {
  readonly #policy: Policy;
  readonly #store: SessionStore;
  readonly #residency: SessionResidency;
  readonly #clock: () => number;

  constructor(options: {
    policy: Policy;
    store: SessionStore;
    residency: SessionResidency;
    clock: () => number;
  }) {
    this.#policy = options.policy;
    this.#store = options.store;
    this.#residency = options.residency;
    this.#clock = options.clock;
  }

  /** Replaces the session's override (`null` removes it); refused before anything is stored. */
  set(sessionId: string, override: PolicyOverride | null): Promise<SessionPolicy> {
    let resolved: SessionPolicy;
    try {
      resolved =
        override === null
          ? { override: {}, policy: this.#policy }
          : resolveSessionPolicy(this.#policy, override);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#residency.serialized(sessionId, () => this.#keep(sessionId, resolved));
  }

  /** Changes the session's override by a JSON merge patch applied to the override as stored now. */
  patch(sessionId: string, patch: Readonly<Record<string, unknown>>): Promise<SessionPolicy> {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
      return Promise.reject(
        new InvalidPolicyError('patch', 'must be an object (a JSON merge patch of the override)'),
      );
    return this.#residency.serialized(sessionId, async () => {
      const stored = await this.#store.loadPolicyOverride(sessionId);
      const patched = applyMergePatch(stored?.override ?? {}, patch);
      return this.#keep(sessionId, resolveSessionPolicy(this.#policy, patched));
    });
  }

  /** Stores a checked override and puts it to use in the loaded session, if there is one. */
  async #keep(sessionId: string, resolved: SessionPolicy): Promise<SessionPolicy> {
    const empty = Object.keys(resolved.override).length === 0;
    await this.#store.setPolicyOverride(sessionId, empty ? null : resolved.override, this.#clock());
    this.#residency.loaded(sessionId)?.usePolicy(resolved);
    return structuredClone(resolved);
  }
}
