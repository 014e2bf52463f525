import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { createAllowList, parseCidr } from './allow-list.ts';
import { parseIpAddress } from './ip-address.ts';
import { checkAddress, checkUrl, isLocalHostName, parseHttpUrl, redactUrl } from './url-policy.ts';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    assert.ok(isPeriscopeError(error), `expected a PeriscopeError, got ${String(error)}`);
    return error.code;
  }
}

function errorOf(run: () => unknown): PeriscopeError {
  try {
    run();
  } catch (error) {
    if (isPeriscopeError(error)) return error;
    throw error;
  }
  throw new Error('expected a PeriscopeError');
}

describe('checkUrl: literal non-public hosts are refused (pure, nothing is sent)', () => {
  const blocked = [
    // loopback, every encoding
    'http://127.0.0.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0x7f.0.0.1/',
    'http://0x7f.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
    'http://127.000.000.001/',
    'http://localhost/',
    'http://LOCALHOST/',
    'http://localhost./',
    'http://sub.localhost/',
    'http://a.b.localhost./',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    // private, link-local, metadata, CGNAT, this-network
    'http://10.0.0.1/',
    'http://012.0.0.1/',
    'http://167772161/',
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0xa9fea9fe/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://0251.0376.0251.0376/',
    'http://[::ffff:169.254.169.254]/',
    'http://192.168.0.1/',
    'http://3232235521/',
    'http://172.16.5.4/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'https://[fd00::1]/',
    'https://[fc00::1]:8443/',
    'http://[fe80::1]/',
    'http://[fe80::1%25eth0]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://[::]/',
    'http://[64:ff9b::a00:1]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://[64:ff9b:1::a00:1]/',
    'http://[2002:a00:1::]/',
    'http://[2002:c0a8:1::1]/',
    'http://[2001:db8::1]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://user:pass@10.0.0.1/',
  ];
  for (const url of blocked) {
    it(`${url} → URL_BLOCKED`, () => {
      assert.equal(
        codeOf(() => checkUrl(url)),
        'URL_BLOCKED',
      );
    });
  }

  it('names the address and the reason, without credentials', () => {
    const error = errorOf(() => checkUrl('http://user:secret@0xa9fea9fe/x'));
    assert.equal(error.code, 'URL_BLOCKED');
    assert.match(error.message, /169\.254\.169\.254/);
    assert.match(error.message, /cloud-metadata/);
    assert.doesNotMatch(error.message, /secret/);
    assert.equal(error.details.reason, 'cloud-metadata');
    const mapped = errorOf(() => checkUrl('http://[::ffff:7f00:1]/'));
    assert.match(mapped.message, /embeds 127\.0\.0\.1/);
  });

  it('lets public literals and host names through (names are checked after resolution)', () => {
    for (const url of [
      'http://8.8.8.8/',
      'http://134744072/',
      'https://[2606:4700:4700::1111]/',
      'https://[::ffff:8.8.8.8]/',
      'https://[64:ff9b::808:808]/',
      'https://example.com/',
      'https://example.com./path?q=1',
      'http://localhost.example.com/',
      'http://127.0.0.1.nip.io/',
    ]) {
      assert.doesNotThrow(() => checkUrl(url), url);
    }
    const target = checkUrl('https://Example.COM.:8443/x');
    assert.equal(target.hostname, 'example.com');
    assert.equal(target.port, 8443);
    assert.equal(target.address, undefined);
    assert.equal(checkUrl('http://[2606:4700:4700::1111]/').hostname, '2606:4700:4700::1111');
  });
});

describe('parseHttpUrl', () => {
  for (const url of [
    'file:///etc/passwd',
    'ftp://example.com/x',
    'gopher://example.com:70/',
    'data:text/html,hi',
  ]) {
    it(`${url} → URL_BLOCKED naming the scheme`, () => {
      const error = errorOf(() => parseHttpUrl(url));
      assert.equal(error.code, 'URL_BLOCKED');
      assert.match(error.message, new RegExp(`"${new URL(url).protocol}"`));
      assert.match(error.message, /only http and https/);
    });
  }

  it('javascript: → URL_BLOCKED', () => {
    assert.equal(
      codeOf(() => parseHttpUrl('javascript:alert(1)')),
      'URL_BLOCKED',
    );
  });

  for (const input of [
    'not a url',
    '/relative/path',
    'http://',
    'https://exa mple.com/',
    'http://[::1/',
    '',
  ]) {
    it(`${JSON.stringify(input)} → INVALID_INPUT`, () => {
      const error = errorOf(() => parseHttpUrl(input));
      assert.equal(error.code, 'INVALID_INPUT');
      assert.match(error.message, /is not a valid URL; give an absolute http\(s\) URL/);
    });
  }

  it('accepts URL objects and trims whitespace', () => {
    assert.equal(parseHttpUrl(new URL('https://example.com/a')).href, 'https://example.com/a');
    assert.equal(parseHttpUrl('  https://example.com/b  ').href, 'https://example.com/b');
  });
});

describe('allow-list (allowPrivateNetwork)', () => {
  it('opens CIDRs and single addresses, v4 and v6, and IPv4-mapped forms of opened v4', () => {
    const allowList = createAllowList(['10.1.0.0/16', '127.0.0.2', 'fd00:1::/32', '::1']);
    assert.doesNotThrow(() => checkUrl('http://10.1.2.3/', { allowList }));
    assert.doesNotThrow(() => checkUrl('http://127.0.0.2/', { allowList }));
    assert.doesNotThrow(() => checkUrl('http://[::ffff:127.0.0.2]/', { allowList }));
    assert.doesNotThrow(() => checkUrl('http://[fd00:1::5]/', { allowList }));
    assert.doesNotThrow(() => checkUrl('http://[::1]/', { allowList }));
    assert.equal(
      codeOf(() => checkUrl('http://10.2.0.1/', { allowList })),
      'URL_BLOCKED',
    );
    assert.equal(
      codeOf(() => checkUrl('http://127.0.0.1/', { allowList })),
      'URL_BLOCKED',
    );
    assert.equal(
      codeOf(() => checkUrl('http://[fd00:2::1]/', { allowList })),
      'URL_BLOCKED',
    );
    // An opened v4 range does not open NAT64 / 6to4 spellings of it (they go through a translator).
    assert.equal(
      codeOf(() => checkUrl('http://[64:ff9b::7f00:2]/', { allowList })),
      'URL_BLOCKED',
    );
  });

  it('opens exact host names and subdomain suffixes', () => {
    const allowList = createAllowList(['intranet.example', '.corp.example', '*.lan.example', 'localhost']);
    assert.ok(allowList.allowsHost('intranet.example'));
    assert.ok(allowList.allowsHost('INTRANET.example.'));
    assert.ok(!allowList.allowsHost('www.intranet.example'));
    assert.ok(allowList.allowsHost('a.corp.example'));
    assert.ok(allowList.allowsHost('a.b.corp.example'));
    assert.ok(!allowList.allowsHost('corp.example'));
    assert.ok(!allowList.allowsHost('evilcorp.example'));
    assert.ok(allowList.allowsHost('x.lan.example'));
    assert.doesNotThrow(() => checkUrl('http://localhost/', { allowList }));
    assert.equal(
      codeOf(() => checkUrl('http://sub.localhost/', { allowList })),
      'URL_BLOCKED',
    );
  });

  it('rejects malformed entries with CONFIG_INVALID', () => {
    for (const entry of ['*', '10.0.0.0/33', 'fd00::/129', 'not a host', '2130706433', '10/8', 'http://x']) {
      assert.equal(
        codeOf(() => createAllowList([entry])),
        'CONFIG_INVALID',
        entry,
      );
    }
  });

  it('parses CIDRs', () => {
    assert.deepEqual(parseCidr('10.0.0.0/8'), { family: 4, base: 0x0a000000, prefix: 8 });
    assert.deepEqual(parseCidr('::1'), { family: 6, base: 1n, prefix: 128 });
    assert.equal(parseCidr('example.com'), undefined);
  });

  it('checkAddress consults the allow-list only for non-public addresses', () => {
    const allowList = createAllowList(['192.168.0.0/16']);
    const address = (text: string) => parseIpAddress(text) ?? assert.fail(text);
    assert.equal(checkAddress(address('192.168.4.4'), allowList), undefined);
    assert.equal(checkAddress(address('8.8.8.8'), allowList), undefined);
    assert.equal(checkAddress(address('10.0.0.1'), allowList)?.reason, 'private');
  });
});

describe('trusted hops', () => {
  it('skip the address policy but not the scheme check', () => {
    assert.doesNotThrow(() => checkUrl('http://127.0.0.1:8080/', { trusted: true }));
    assert.doesNotThrow(() => checkUrl('http://localhost:8080/', { trusted: true }));
    assert.equal(
      codeOf(() => checkUrl('file:///etc/passwd', { trusted: true })),
      'URL_BLOCKED',
    );
  });
});

describe('helpers', () => {
  it('isLocalHostName', () => {
    for (const name of [
      'localhost',
      'localhost.',
      'LocalHost',
      'a.localhost',
      'ip6-localhost',
      'localhost.localdomain',
    ]) {
      assert.ok(isLocalHostName(name), name);
    }
    for (const name of ['localhost.example.com', 'mylocalhost', 'example.com'])
      assert.ok(!isLocalHostName(name), name);
  });

  it('redactUrl removes userinfo and masks credential-like query values', () => {
    assert.equal(redactUrl('https://user:pw@example.com/a?b=1'), 'https://example.com/a?b=1');
    assert.equal(
      redactUrl('https://example.com/s?q=a&api_key=k1&token=t&Signature=s&apikey=z'),
      'https://example.com/s?q=a&api_key=***&token=***&Signature=***&apikey=***',
    );
    assert.equal(redactUrl('https://example.com/a'), 'https://example.com/a');
    assert.equal(redactUrl('not a url'), 'not a url');
  });
});
