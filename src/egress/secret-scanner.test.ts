import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeRandomTokens, fakeSecrets } from '../testing/fake-secrets.ts';
import { DECODE_LIMITS, decodeBudget, decodedRuns } from './encoded-runs.ts';
import { isSecretName, knownSecrets, secretForms } from './known-secrets.ts';
import { SECRET_FORMATS } from './secret-formats.ts';
import { createSecretScanner } from './secret-scanner.ts';

const formatsOnly = createSecretScanner({ secrets: [], entropy: false });

test('every known format is found as it is, inside a query, inside a URL, and percent-encoded', () => {
  const kinds = new Set<string>();
  for (const seed of [1, 2, 3]) {
    for (const { kind, text } of fakeSecrets(seed)) {
      kinds.add(kind);
      for (const carried of [
        text,
        `why does ${text} not work`,
        `https://collect.example/log?d=${encodeURIComponent(text)}`,
        `https://collect.example/log?d=${encodeURIComponent(encodeURIComponent(text))}`,
        `https://collect.example/${text.replace(/\s+/g, '/')}`,
      ]) {
        assert.equal(formatsOnly.scan(carried)?.kind, kind, `${kind} in ${carried.slice(0, 60)}`);
      }
    }
  }
  // Every format has a generated example: a format without one is untested.
  assert.deepEqual([...kinds].sort(), [...new Set(SECRET_FORMATS.map((format) => format.kind))].sort());
});

function encodedIn(text: string, encoding: string): string {
  return Buffer.from(text).toString(encoding as BufferEncoding);
}

/** A credential carried the ways an instruction to "encode it first" would: each encoding, in a query and in a URL. */
function encodedCarriers(text: string): Array<{ encoding: string; carried: string }> {
  const bytes = Buffer.from(text);
  const encodings = [
    ['base64', bytes.toString('base64')],
    ['base64url', bytes.toString('base64url')],
    ['hex', bytes.toString('hex')],
    ['hex', bytes.toString('hex').toUpperCase()],
  ];
  return encodings.flatMap(([encoding = '', encoded = '']) =>
    [
      `what does ${encoded} mean`,
      `https://collect.example/pixel/${encoded}/1.gif`,
      `https://collect.example/log?v=2&d=${encodeURIComponent(encoded)}&t=1`,
      `https://collect.example/log?d=${encodeURIComponent(encodeURIComponent(encoded))}`,
      `https://collect.example/r/ref${encoded}`,
    ].map((carried) => ({ encoding, carried })),
  );
}

test('every known format is found base64-, base64url- (unpadded) and hex-encoded (either case), in a query and in a URL', () => {
  for (const seed of [4, 5]) {
    for (const { kind, text } of fakeSecrets(seed)) {
      for (const { encoding, carried } of encodedCarriers(text)) {
        const finding = formatsOnly.scan(carried);
        const what = `${kind} as ${encoding} in ${carried.slice(0, 70)}`;
        assert.equal(finding?.kind, kind, what);
        // Encoded text with none of `-_+/=` is in both alphabets at once: either name is true.
        const either = encoding.startsWith('base64') && !/[-_+/=]/.test(encodedIn(text, encoding));
        if (either) assert.match(finding?.encoding ?? '', /^base64(?:url)?$/, what);
        else assert.equal(finding?.encoding, encoding, what);
        assert.match(finding?.label ?? '', new RegExp(`, ${finding?.encoding}-encoded$`), what);
        assert.ok(!(finding?.label ?? '').includes(text.slice(4, 12)), 'the label quotes none of it');
      }
    }
  }
});

test('encodings inside encodings, and a credential deep in a long encoded run, are found too', () => {
  const token = fakeSecrets(6).find((each) => each.kind === 'github-token')?.text ?? '';
  const hexThenBase64 = Buffer.from(Buffer.from(token).toString('hex')).toString('base64');
  const nested = formatsOnly.scan(`https://collect.example/?d=${encodeURIComponent(hexThenBase64)}`);
  assert.equal(nested?.kind, 'github-token');
  assert.match(nested?.label ?? '', /hex-encoded, then base64-encoded$/);
  // Past the first window of a long run: windows overlap, so nothing falls between two.
  const long = Buffer.from(`${'lorem ipsum dolor sit amet '.repeat(400)}key=${token}`).toString('base64url');
  assert.ok(long.length > DECODE_LIMITS.windowChars * 2);
  assert.equal(formatsOnly.scan(`https://collect.example/?d=${long}`)?.encoding, 'base64url');
});

test('decoding is bounded: short runs and binary are not read, and a scan decodes at most maxCandidates runs', () => {
  assert.deepEqual(decodedRuns('git show 1197955e4244c18bdb9b375076bcb6ca05414672', decodeBudget()), []);
  assert.deepEqual(decodedRuns('aGVsbG8gd29ybGQ=', decodeBudget()), [], 'shorter than any credential');
  const runs = Array.from({ length: 200 }, (_, index) =>
    Buffer.from(`ordinary text number ${index}`).toString('hex'),
  );
  const budget = decodeBudget();
  assert.equal(decodedRuns(runs.join(' '), budget).length, DECODE_LIMITS.maxCandidates);
  assert.equal(budget.candidatesLeft, 0);
});

test("documentation's stand-ins, placeholders and look-alike slugs are not secrets", () => {
  for (const text of [
    'AKIAIOSFODNN7EXAMPLE aws example key',
    'https://user:password@example.com',
    'postgres://user:<password>@localhost:5432/db',
    'redis://:${REDIS_PASSWORD}@redis:6379/0',
    'mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/',
    'https://www.reuters.com/technology/sk-hynix-posts-record-quarterly-profit-ai-chip-demand-2024-07-25/',
    'sk-learn-is-not-a-package-name-use-scikit-learn-instead',
    'what does -----BEGIN RSA PRIVATE KEY----- mean',
    'ghp_ prefix meaning',
    'xoxo gossip girl',
    'eyJhbGciOiJIUzI1NiJ9 is the base64 of a JWT header',
    'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJsaXN0Ijoid2Vla2x5In0. unsigned tracking token',
    `base64 ${Buffer.from('AKIAIOSFODNN7EXAMPLE').toString('base64')} from the aws docs`,
    `hex ${Buffer.from('-----BEGIN PUBLIC KEY-----').toString('hex')} is a public key header`,
    'https://s3.amazonaws.com/b/k?X-Amz-Credential=AKIAJ5QWERTYUIOPASDF%2F20250101%2Fus-east-1%2Fs3%2Faws4_request',
  ]) {
    assert.equal(formatsOnly.scan(text), undefined, text);
  }
});

test('a secret Periscope holds is found as it is, percent-encoded, in hex and in base64 at any alignment', () => {
  const secret = 'corvid-Tangerine-4471-lattice';
  const scanner = createSecretScanner({ secrets: [secret], entropy: false });
  const base64 = (prefix: string) => Buffer.from(`${prefix}${secret}&more`).toString('base64');
  for (const carried of [
    `notes ${secret}`,
    `https://collect.example/?k=${encodeURIComponent(secret)}`,
    `https://collect.example/${Buffer.from(secret).toString('hex')}`,
    `https://collect.example/${Buffer.from(secret).toString('hex').toUpperCase()}`,
    `https://collect.example/?d=${base64('')}`,
    `https://collect.example/?d=${base64('a')}`,
    `https://collect.example/?d=${encodeURIComponent(base64('ab'))}`,
    `https://collect.example/?d=${Buffer.from(`x=${secret}`).toString('base64url')}`,
  ]) {
    assert.equal(scanner.scan(carried)?.kind, 'known-secret', carried);
  }
  assert.equal(scanner.scan('corvid tangerine lattice'), undefined);
  assert.ok(secretForms(secret).every((form) => form.length >= 8));
});

test('the secrets Periscope holds: keys and headers in its config, URL passwords, KEY/TOKEN/SECRET/PASSWORD variables', () => {
  const config = {
    providers: { brave: { apiKey: 'brave-key-value-1' }, searxng: { apiKey: 'short' } },
    fetch: { backends: { service: { headers: { Authorization: 'Bearer header-token-value' } } } },
    store: { url: 'redis://:redis%40password@cache.internal:6379' },
    search: { chain: ['brave'], timeoutMs: 10_000 },
    network: { userAgent: 'Periscope/0.1 (+https://github.com/periscope-dev/periscope)' },
  };
  const env = {
    GITHUB_TOKEN: 'env-github-token-value',
    npm_config__authToken: 'npm-auth-token-value',
    AWS_SECRET_ACCESS_KEY: 'aws-secret-value-123',
    DB_PASSWORD: 'db-password-value',
    KEYBOARD: 'us-international',
    MAX_TOKENS: '4096000000',
    PWD: '/home/someone/project',
    npm_package_keywords_0: 'web-search-tools',
  };
  assert.deepEqual(knownSecrets(config, env).sort(), [
    'aws-secret-value-123',
    'brave-key-value-1',
    'db-password-value',
    'env-github-token-value',
    'header-token-value',
    'npm-auth-token-value',
    'redis@password',
  ]);
  assert.ok(isSecretName('OPENAI_API_KEY') && isSecretName('stripeSecret') && isSecretName('X_APIKEY'));
  assert.ok(
    !isSecretName('KEYWORDS') && !isSecretName('TOKENIZERS_PARALLELISM') && !isSecretName('SSH_AUTH_SOCK'),
  );
});

test('entropy (off by default) finds long random tokens, and leaves hashes, UUIDs and slugs alone', () => {
  const withEntropy = createSecretScanner({ secrets: [], entropy: true });
  const tokens = fakeRandomTokens(7, 10).filter((token) => !token.includes('/'));
  const found = tokens.filter((token) => withEntropy.scan(`https://collect.example/?d=${token}`));
  assert.ok(found.length >= tokens.length * 0.95, `${found.length} of ${tokens.length}`);
  assert.equal(
    tokens.filter((token) => formatsOnly.scan(token)).length,
    0,
    'no format matches a random token',
  );
  for (const text of [
    'git show 1197955e4244c18bdb9b375076bcb6ca05414672',
    'sha256 865ab0d317f36965e43d20d275b545a6773137adad19db1d61ecb8032f473e0b',
    'uuid 4dad2986-ce83-4960-aa06-e9ab85a0bcc1',
    'https://www.researchgate.net/publication/334567890_A_Survey_on_Deep_Learning_for_Named_Entity_Recognition',
    'https://www.notion.so/Product-Roadmap-2025-8f3c2d1e4b5a4c6d9e8f7a6b5c4d3e2f',
  ]) {
    assert.equal(withEntropy.scan(text), undefined, text);
  }
});
