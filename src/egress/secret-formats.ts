/** One well-known credential format. */
export interface SecretFormat {
  /** `github-token`, …: `details.kind` of the refusal. */
  kind: string;
  /** What the model is told it looked like: `a GitHub token`. Never any of the text. */
  label: string;
  pattern: RegExp;
  /** A further test of a match (a random-looking body, not a placeholder); true when absent. */
  accept?: (match: RegExpExecArray, text: string) => boolean;
}

/** A body with upper-case letters, lower-case letters and digits: a random token, not a slug of words. */
export function looksRandom(body: string): boolean {
  return /[A-Z]/.test(body) && /[a-z]/.test(body) && /\d/.test(body);
}

/** Documentation's stand-ins (AWS's `AKIAIOSFODNN7EXAMPLE`, `sk_test_…EXAMPLE…`): searched for, never secret. */
const EXAMPLE = /EXAMPLE/i;

/** A password in a URL that only says where one goes: `user:password@`, `:<password>@`, `:${PASS}@`, `:***@`. */
const PLACEHOLDER_PASSWORD =
  /^(?:pass(?:word|wd)?|pwd|pw|secret|changeme|example|your[-_]?pass(?:word)?|x+|\*+|\.+|<[^>]*>|\{[^}]*\}|\[[^\]]*\]|\$\{?\w+\}?|%[A-Z_]+%)$/i;

/** A JWT whose header says `alg: none` and whose signature is empty. */
function isUnsignedJwt(token: string): boolean {
  const [header, , signature] = token.split('.');
  if (signature !== '') return false;
  try {
    return (
      (JSON.parse(Buffer.from(header ?? '', 'base64url').toString('utf8')) as { alg?: unknown }).alg ===
      'none'
    );
  } catch {
    return false;
  }
}

/**
 * Credential formats whose shape alone says "secret" (prefixes their issuers chose so that scanners find them),
 * after gitleaks and GitHub secret scanning. The scanner tries every match of a pattern (in the text as given and
 * percent-decoded) until one is accepted. Kept narrow on purpose: slugs (`sk-hynix-…`), hashes and ids must pass.
 */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  {
    kind: 'private-key',
    label: 'a private key (PEM block)',
    // The header's words may be joined by anything a URL or query puts in place of a space.
    // Then the base64 body (after an encrypted key's `Proc-Type:` and `DEK-Info:` lines), not just the header.
    pattern:
      /-----BEGIN[\sA-Z/+_.]{1,24}PRIVATE[\s/+_.]KEY(?:[\s/+_.]BLOCK)?-----(?:[\s/+_.]*[\w-]+:[^\n]*)*[\s/+_.]*[A-Za-z0-9+/=]{32,}/,
  },
  {
    kind: 'aws-access-key',
    label: 'an AWS access key id',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/,
    // A pre-signed S3 link carries its key id in X-Amz-Credential: a page's link, not a secret of ours.
    accept: (match, text) =>
      !EXAMPLE.test(match[0]) &&
      !/X-Amz-Credential=$/i.test(text.slice(Math.max(0, match.index - 17), match.index)),
  },
  {
    kind: 'github-token',
    label: 'a GitHub token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,})/,
  },
  { kind: 'gitlab-token', label: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  {
    kind: 'slack-token',
    label: 'a Slack token or webhook',
    pattern:
      /\bxox[abeoprs]-\d+-[A-Za-z0-9-]{8,}|hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{16,}/,
  },
  { kind: 'anthropic-key', label: 'an Anthropic API key', pattern: /\bsk-ant-[a-z]*\d*-?[A-Za-z0-9_-]{32,}/ },
  {
    kind: 'openai-key',
    label: 'an OpenAI API key',
    pattern: /\bsk-(?:(?:proj|svcacct|admin)-)?([A-Za-z0-9_-]{32,})/,
    accept: (match) => looksRandom(match[1] ?? '') && !EXAMPLE.test(match[0]),
  },
  { kind: 'google-api-key', label: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  {
    kind: 'stripe-key',
    label: 'a Stripe secret key',
    pattern: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}/,
    accept: (match) => !EXAMPLE.test(match[0]),
  },
  { kind: 'huggingface-token', label: 'a Hugging Face token', pattern: /\bhf_[A-Za-z]{34}\b/ },
  { kind: 'npm-token', label: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'sendgrid-key', label: 'a SendGrid API key', pattern: /\bSG\.[\w-]{22}\.[\w-]{43}\b/ },
  {
    kind: 'azure-storage-key',
    label: 'an Azure storage account key',
    pattern: /AccountKey=[A-Za-z0-9+/]{86}==/,
  },
  {
    kind: 'jwt',
    label: 'a JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/,
    // An unsigned token (`alg: none`, no signature: a tracking parameter's shape) proves nothing to anyone.
    accept: (match) => !isUnsignedJwt(match[0]),
  },
  {
    kind: 'url-password',
    label: 'a password in a URL (user:password@host)',
    pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]+)@[^\s/?#@]/i,
    accept: (match) => !PLACEHOLDER_PASSWORD.test(match[1] ?? ''),
  },
];
