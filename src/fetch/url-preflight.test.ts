/**
 * The preflight's verdict on a URL the policy let through: public, or internal (opened by
 * `network.allowPrivateNetwork`, a local or single-label name). Internal URLs go to `local` and `browser` only.
 * Pure: the resolver is injected and nothing is fetched, so addresses outside loopback are safe to name here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { createNetworkPolicy } from '../net/network-policy.ts';
import type { LookupFunction } from '../net/types.ts';
import { createUrlPreflight } from './url-preflight.ts';

const ANSWERS: Record<string, string[]> = {
  'public.example': ['93.184.215.14'],
  'wiki.example': ['10.1.1.1'],
  'mixed.example': ['93.184.215.14', '10.1.1.2'],
  'intranet.corp': ['93.184.215.14'],
  'docs.corp.example': ['93.184.215.14'],
  printer: ['93.184.215.14'],
  localhost: ['127.0.0.1'],
  'v6.example': ['fd00::5'],
};

function resolver() {
  const asked: string[] = [];
  const lookup: LookupFunction = async (hostname) => {
    asked.push(hostname);
    const answers = ANSWERS[hostname];
    if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, asked };
}

describe('url preflight verdict', () => {
  const allowPrivateNetwork = [
    '10.0.0.0/8',
    'fd00::/8',
    '127.0.0.1',
    'intranet.corp',
    '.corp.example',
    'localhost',
    'printer',
  ];

  test('internal URLs, allow-listed or local, are named with the reason; public ones are not', async () => {
    const { lookup, asked } = resolver();
    const preflight = createUrlPreflight(createNetworkPolicy({ allowPrivateNetwork }, { lookup }));
    const internal: Array<[string, RegExp]> = [
      ['http://10.0.0.1/', /^10\.0\.0\.1 is a non-public address \(private, 10\.0\.0\.0\/8\)/],
      ['http://127.0.0.1:8080/', /^127\.0\.0\.1 is a non-public address \(loopback/],
      ['http://[fd00::1]/', /^fd00::1 is a non-public address/],
      ['http://wiki.example/', /^host "wiki\.example" resolves to 10\.1\.1\.1, a non-public address/],
      ['http://mixed.example/', /^host "mixed\.example" resolves to 10\.1\.1\.2/],
      ['http://v6.example/', /^host "v6\.example" resolves to fd00::5/],
      ['http://intranet.corp/', /^"intranet\.corp" is opened by network\.allowPrivateNetwork/],
      ['http://docs.corp.example/', /^"docs\.corp\.example" is opened by network\.allowPrivateNetwork/],
      ['http://localhost/', /^"localhost" is a local host name/],
      ['http://printer/', /^"printer" is opened by network\.allowPrivateNetwork/],
    ];
    for (const [url, reason] of internal) {
      const verdict = await preflight(new URL(url));
      assert.match(verdict.internal ?? '(public)', reason, url);
    }
    assert.equal((await preflight(new URL('https://public.example/page'))).internal, undefined);
    // One resolution per host name (literals are not resolved): the verdict reuses the policy's own answers.
    assert.deepEqual(asked, [
      'wiki.example',
      'mixed.example',
      'v6.example',
      'intranet.corp',
      'docs.corp.example',
      'localhost',
      'printer',
      'public.example',
    ]);
  });

  test('a single-label name is internal even when it is not on the allow-list', async () => {
    const { lookup } = resolver();
    const preflight = createUrlPreflight(createNetworkPolicy({ allowPrivateNetwork: [] }, { lookup }));
    const verdict = await preflight(new URL('http://printer/status'));
    assert.match(verdict.internal ?? '(public)', /^"printer" is a single-label name/);
  });

  test('without the allow-list the same URLs are URL_BLOCKED, as before', async () => {
    const { lookup } = resolver();
    const preflight = createUrlPreflight(createNetworkPolicy({}, { lookup }));
    for (const url of ['http://10.0.0.1/', 'http://wiki.example/', 'http://localhost/']) {
      await assert.rejects(
        preflight(new URL(url)),
        (error) => isPeriscopeError(error) && error.code === 'URL_BLOCKED',
        url,
      );
    }
  });
});
