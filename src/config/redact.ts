/** A config key whose string value is a secret (`apiKey`, `accessToken`, an `Authorization` header). */
export const SECRET_KEY = /(key|token|secret|password|authorization|credential)/i;

/** A copy of `value` safe to print: secret-looking keys masked, passwords in URLs removed. */
export function redactConfig(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key) && value !== '') return '[redacted]';
    return redactUrlCredentials(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactConfig(item, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactConfig(item, name)]));
  }
  return value;
}

/** `http://user:secret@proxy:8080` → `http://user:[redacted]@proxy:8080`. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^@/\s]+@/gi, '$1:[redacted]@');
}
