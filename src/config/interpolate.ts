/** A `${VAR}` reference that names no set environment variable, with where it was found. */
export interface MissingVariable {
  name: string;
  path: string;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replace `${VAR}` (and `${VAR:-default}`) in every string of a parsed config file.
 * Every missing variable is collected, so all of them can be reported at once.
 */
export function interpolateEnvironment(
  value: unknown,
  env: NodeJS.ProcessEnv,
  path = '',
  missing: MissingVariable[] = [],
): { value: unknown; missing: MissingVariable[] } {
  if (typeof value === 'string') {
    const replaced = value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      missing.push({ name, path: path || '(root)' });
      return '';
    });
    return { value: replaced, missing };
  }
  if (Array.isArray(value)) {
    return {
      value: value.map(
        (item, index) => interpolateEnvironment(item, env, `${path}[${index}]`, missing).value,
      ),
      missing,
    };
  }
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      result[key] = interpolateEnvironment(item, env, path ? `${path}.${key}` : key, missing).value;
    }
    return { value: result, missing };
  }
  return { value, missing };
}
