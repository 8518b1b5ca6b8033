import { MissingDependencyError } from '../core/errors/index.ts';

/** A package ctxkit loads only when a feature needs it, and that feature, as the error names them. */
export interface OptionalDependency {
  /** As npm names it, which is also the specifier `load` imports. */
  packageName: string;
  /** What needs it, the subject of the error's sentence: `the Anthropic model client`. */
  feature: string;
}

/**
 * The module `load` imports (a dynamic `import()` of the package, so that nothing loads it before a
 * feature needs it). `load` gets the package's name rather than writing it in its `import()`, so that a
 * bundler can leave the import to run time (see `importOptionalDependency`).
 * The package's absence becomes a MissingDependencyError that says what to install; any other failure (a
 * broken install, a dependency of the package itself missing, an error while the package runs) is
 * rethrown as it was, since installing the package would not fix it.
 */
export async function loadOptionalDependency<T>(
  dependency: OptionalDependency,
  load: (packageName: string) => Promise<T>,
): Promise<T> {
  try {
    return await load(dependency.packageName);
  } catch (error) {
    if (isPackageNotFound(error, dependency.packageName))
      throw new MissingDependencyError(dependency.packageName, dependency.feature, { cause: error });
    throw error;
  }
}

/**
 * The optional package itself, imported by name: the specifier is a variable, marked for webpack and Vite
 * to leave alone, so a bundler keeps the import for run time and a program bundled without the package
 * still builds. `T` is the package's module type, which only the caller's own code may name.
 */
export function importOptionalDependency<T>(dependency: OptionalDependency): Promise<T> {
  return loadOptionalDependency(
    dependency,
    (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name) as Promise<T>,
  );
}

/**
 * Whether `error` is Node's failure to find `packageName` itself: `ERR_MODULE_NOT_FOUND` with "Cannot find
 * package '<packageName>'". The code alone is not enough: it is the same when a package the SDK imports
 * is missing ("Cannot find package 'x' imported from …/node_modules/<packageName>/…"), or a file of it.
 */
export function isPackageNotFound(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'ERR_MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.includes(`Cannot find package '${packageName}'`)
  );
}
