import { InvalidInputError } from './errors/index.ts';

/**
 * How a tool reaches the model, as digitorn's compaction snapshot records it ("_snapshot_tools - current
 * tool inventory + injection mode"; digitorn's `tool_injection`):
 * - `direct`: its definition is in every request and the model calls it by name;
 * - `compact_direct`: called by name too, from a shortened definition;
 * - `discovery`: not in the request; the agent finds it with a tool search and calls it as that says.
 */
export const TOOL_INJECTION_MODES = ['direct', 'compact_direct', 'discovery'] as const;
export type ToolInjectionMode = (typeof TOOL_INJECTION_MODES)[number];

/**
 * A tool with no `injection` is `direct`. Digitorn's runtime defaults to `discovery` because it keeps
 * the schemas out of the request; ctxkit's caller sends every definition it passes to `prepare` (they are
 * counted as the `tools` region), so a resumed agent told to look such a tool up would be told wrong.
 */
export const DEFAULT_TOOL_INJECTION: ToolInjectionMode = 'direct';

/** A tool the model may call, as supplied per call (never stored in history). JSON-safe. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: Record<string, unknown>;
  /** How the tool reaches the model (digitorn); unset = {@link DEFAULT_TOOL_INJECTION}. */
  injection?: ToolInjectionMode;
}

export function isToolInjectionMode(value: unknown): value is ToolInjectionMode {
  return typeof value === 'string' && (TOOL_INJECTION_MODES as readonly string[]).includes(value);
}

/**
 * The injection mode of `tools[index]`, checked (a JavaScript caller can pass anything, and the resume
 * note is built from it): `InvalidInputError` naming `tools[index].injection` for a value not in
 * {@link TOOL_INJECTION_MODES}.
 */
export function toolInjectionOf(tool: ToolDefinition, index: number): ToolInjectionMode {
  const mode: unknown = tool.injection;
  if (mode === undefined) return DEFAULT_TOOL_INJECTION;
  if (isToolInjectionMode(mode)) return mode;
  throw new InvalidInputError(
    `must be one of ${TOOL_INJECTION_MODES.join(' | ')}, got ${String(JSON.stringify(mode)).slice(0, 40)}`,
    { field: `tools[${index}].injection` },
  );
}
