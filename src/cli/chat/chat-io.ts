/** Where `ctxkit chat` reads and writes, and the environment it reads: the process's, or a test's. */
export interface ChatIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
}
