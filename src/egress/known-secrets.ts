import { SECRET_KEY } from '../config/redact.ts';

/** Shorter values are too likely to occur in ordinary text to be told apart from it. */
export const MIN_SECRET_LENGTH = 8;

/** Words in an environment variable's name that say its value is a secret (`OPENAI_API_KEY`, `npm_config_…_authToken`). */
const SECRET_WORD = /^(?:(?:API)?KEY|\w*(?:APIKEY|TOKEN|SECRET|PASSWORD|PASSWD))$/;

/** An Authorization-style value's scheme, which is not part of the secret. */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Bot|Key)\s+/i;

/**
 * The literal values of the secrets Periscope holds: every string in the config under a key that names a secret
 * (`apiKey`, an `Authorization` header, `extras.accessToken`, as src/config/redact.ts masks them), the password of
 * every URL in the config (a Redis `store.url`, a proxy), and the value of every environment variable whose name
 * has the word KEY, TOKEN, SECRET or PASSWORD (`BRAVE_API_KEY`, `GITHUB_TOKEN`; not `KEYBOARD` or `MAX_TOKENS`).
 * Values shorter than MIN_SECRET_LENGTH are left out. Sorted longest first, without duplicates.
 */
export function knownSecrets(config: unknown, env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  const add = (value: string) => {
    const secret = value.trim().replace(AUTH_SCHEME, '');
    if (secret.length >= MIN_SECRET_LENGTH) found.add(secret);
  };
  walk(config, '', add);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && isSecretName(name)) add(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** Whether an environment variable's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.toUpperCase());
  return words.some((word) => SECRET_WORD.test(word));
}

function walk(value: unknown, key: string, add: (value: string) => void): void {
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key)) add(value);
    else passwordOf(value, add);
  } else if (Array.isArray(value)) {
    for (const item of value) walk(item, key, add);
  } else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) walk(item, name, add);
  }
}

function passwordOf(text: string, add: (value: string) => void): void {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(text)) return;
  const url = URL.parse(text);
  if (url?.password) add(decodeURIComponentSafely(url.password));
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The forms a secret can be carried in without looking like itself: as it is, in hex (either case), and in base64
 * and base64url at each of the three alignments it can start at inside longer encoded text (only the characters
 * that depend on the secret alone). A scanner looks for each in the text and in its percent-decoding.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set([secret, hex, hex.toUpperCase()]);
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      const stable = padded.toString(encoding).slice(first, last);
      if (stable.length >= MIN_SECRET_LENGTH) forms.add(stable);
    }
  }
  return [...forms];
}
