import { seededRandom } from './seeded-random.ts';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const BASE62 = UPPER + LOWER + DIGITS;
const BASE64URL = `${BASE62}-_`;

/** A made-up credential in a well-known format, with the kind the secret scanner should name. */
export interface FakeSecret {
  kind: string;
  text: string;
}

/**
 * One made-up credential of each format src/egress/secret-formats.ts knows, drawn from `seed` (so a failure can be
 * replayed), built at run time so that no key-shaped string sits in the repository. None was ever issued.
 */
export function fakeSecrets(seed: number): FakeSecret[] {
  const random = seededRandom(seed);
  const pick = (alphabet: string, length: number) => {
    let text = '';
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * alphabet.length)];
    return text;
  };
  // A random body with each character class, as issued keys have (looksRandom).
  const body = (alphabet: string, length: number) =>
    `${pick(UPPER, 1)}${pick(LOWER, 1)}${pick(DIGITS, 1)}${pick(alphabet, length - 3)}`;
  const jwtPart = (json: object) => Buffer.from(JSON.stringify(json)).toString('base64url');
  const pem = (label: string) =>
    `-----BEGIN ${label}PRIVATE KEY-----\n${pick(`${BASE62}+/`, 64)}\n${pick(`${BASE62}+/`, 40)}\n-----END ${label}PRIVATE KEY-----`;
  return [
    { kind: 'private-key', text: pem('RSA ') },
    { kind: 'private-key', text: pem('') },
    { kind: 'private-key', text: pem('OPENSSH ') },
    { kind: 'aws-access-key', text: `AKIA${pick(UPPER + DIGITS, 16)}` },
    { kind: 'aws-access-key', text: `ASIA${pick(UPPER + DIGITS, 16)}` },
    { kind: 'github-token', text: `ghp_${body(BASE62, 36)}` },
    { kind: 'github-token', text: `gho_${body(BASE62, 36)}` },
    { kind: 'github-token', text: `github_pat_${body(BASE62, 22)}_${body(BASE62, 59)}` },
    { kind: 'gitlab-token', text: `glpat-${body(BASE64URL, 20)}` },
    { kind: 'slack-token', text: `xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${body(BASE62, 24)}` },
    {
      kind: 'slack-token',
      text: `xoxp-${pick(DIGITS, 12)}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick('0123456789abcdef', 32)}`,
    },
    {
      kind: 'slack-token',
      text: `https://hooks.slack.com/services/T${pick(UPPER + DIGITS, 8)}/B${pick(UPPER + DIGITS, 10)}/${body(BASE62, 24)}`,
    },
    { kind: 'anthropic-key', text: `sk-ant-api03-${body(BASE64URL, 93)}AA` },
    { kind: 'openai-key', text: `sk-${body(BASE62, 20)}T3BlbkFJ${body(BASE62, 20)}` },
    { kind: 'openai-key', text: `sk-proj-${body(BASE64URL, 74)}T3BlbkFJ${body(BASE64URL, 74)}` },
    { kind: 'openai-key', text: `sk-${body(BASE62, 48)}` },
    { kind: 'google-api-key', text: `AIza${body(BASE64URL, 35)}` },
    { kind: 'stripe-key', text: `sk_live_${body(BASE62, 24)}` },
    { kind: 'stripe-key', text: `rk_live_${body(BASE62, 24)}` },
    { kind: 'huggingface-token', text: `hf_${pick(UPPER + LOWER, 34)}` },
    { kind: 'npm-token', text: `npm_${body(BASE62, 36)}` },
    { kind: 'sendgrid-key', text: `SG.${body(BASE64URL, 22)}.${body(BASE64URL, 43)}` },
    {
      kind: 'azure-storage-key',
      text: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${pick(`${BASE62}+/`, 86)}==`,
    },
    {
      kind: 'jwt',
      text: `${jwtPart({ alg: 'HS256', typ: 'JWT' })}.${jwtPart({ sub: pick(DIGITS, 10), iat: 1_700_000_000 })}.${pick(BASE64URL, 43)}`,
    },
    { kind: 'url-password', text: `https://admin:${body(BASE62, 14)}@db.internal.example/` },
    { kind: 'url-password', text: `postgres://app:${body(BASE62, 12)}@10.0.0.5:5432/prod` },
  ];
}

/** Long random tokens in no known format (what `egress.secretScan.entropy` is for): base62 and base64 of each length. */
export function fakeRandomTokens(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const pick = (alphabet: string, length: number) => {
    let text = '';
    for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * alphabet.length)];
    return text;
  };
  const tokens: string[] = [];
  for (let round = 0; round < count; round++) {
    for (const length of [24, 32, 40, 64]) tokens.push(pick(BASE62, length));
    tokens.push(pick(`${BASE62}+/`, 40));
  }
  return tokens;
}
