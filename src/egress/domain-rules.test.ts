import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDomainPattern, parseDomainPattern } from '../net/domain-pattern.ts';
import { allowsHost, compileRules, type DomainRules, intersectRules, rulesToLists } from './domain-rules.ts';

const rules = (allow: string[], block: string[] = []): DomainRules => compileRules({ allow, block });
const passes = (rule: DomainRules, hosts: string[]) => hosts.filter((host) => allowsHost(rule, host));

describe('domain patterns', () => {
  test('the three forms, normalised', () => {
    assert.deepEqual(parseDomainPattern('Example.COM.'), { mode: 'tree', domain: 'example.com' });
    assert.deepEqual(parseDomainPattern('*.example.com'), { mode: 'subdomains', domain: 'example.com' });
    assert.deepEqual(parseDomainPattern('=www.example.com'), { mode: 'exact', domain: 'www.example.com' });
    assert.deepEqual(parseDomainPattern('192.0.2.7'), { mode: 'exact', domain: '192.0.2.7' });
    assert.deepEqual(parseDomainPattern('[2001:DB8::1]'), { mode: 'exact', domain: '[2001:db8::1]' });
  });

  test('IDN in Unicode or punycode is one pattern', () => {
    const unicode = parseDomainPattern('Bücher.de');
    assert.deepEqual(unicode, parseDomainPattern('xn--bcher-kva.de'));
    assert.equal(formatDomainPattern(unicode as never), 'xn--bcher-kva.de');
    // A URL with the Unicode host is compared in punycode, as the URL parser gives it.
    assert.deepEqual(passes(rules(['bücher.de']), [new URL('https://shop.Bücher.de/').hostname]), [
      'shop.xn--bcher-kva.de',
    ]);
  });

  test('what is not a pattern says why in one line', () => {
    for (const [text, why] of [
      ['https://example.com/', /not a URL/],
      ['example.com/docs', /not a URL/],
      ['example.com:8080', /leave the port out/],
      ['*.192.0.2.7', /no subdomains/],
      ['exa mple.com', /not a URL/],
      ['a..b', /not a domain pattern/],
      ['', /empty/],
    ] as const) {
      const parsed = parseDomainPattern(text);
      assert.ok('error' in parsed, text);
      assert.match(parsed.error, why, text);
      assert.ok(!parsed.error.includes('\n'));
    }
  });
});

describe('rules', () => {
  const hosts = ['example.com', 'docs.example.com', 'a.b.example.com', 'notexample.com', 'other.org'];

  test('example.com covers its subdomains; *. only subdomains; = that host only', () => {
    assert.deepEqual(passes(rules(['example.com']), hosts), [
      'example.com',
      'docs.example.com',
      'a.b.example.com',
    ]);
    assert.deepEqual(passes(rules(['*.example.com']), hosts), ['docs.example.com', 'a.b.example.com']);
    assert.deepEqual(passes(rules(['=example.com']), hosts), ['example.com']);
  });

  test('no allow list lets everything through but the blocks; a block wins over an allow', () => {
    assert.deepEqual(passes(rules([], ['example.com']), hosts), ['notexample.com', 'other.org']);
    assert.deepEqual(passes(rules(['example.com'], ['=docs.example.com']), hosts), [
      'example.com',
      'a.b.example.com',
    ]);
  });

  test('an IP address matches only itself', () => {
    assert.deepEqual(passes(rules(['2.7']), ['192.0.2.7', '2.7']), ['2.7']);
  });

  test('intersection narrows, never widens, and is exact', () => {
    const operator = rules(['example.com', 'other.org'], ['=ads.example.com']);
    const narrower = rules(['docs.example.com', 'elsewhere.net']);
    const both = intersectRules(operator, narrower);
    const all = [...hosts, 'ads.example.com', 'elsewhere.net', 'x.docs.example.com'];
    assert.deepEqual(
      passes(both, all),
      all.filter((host) => allowsHost(operator, host) && allowsHost(narrower, host)),
    );
    assert.deepEqual(rulesToLists(both), { allow: ['docs.example.com'], block: [] });
    // Disjoint allow lists leave nothing.
    assert.deepEqual(intersectRules(rules(['a.com']), rules(['b.com'])).allow, []);
    // `*.x` and `=x` have no host in common; `x` and `*.x` leave `*.x`.
    assert.deepEqual(intersectRules(rules(['*.x.com']), rules(['=x.com'])).allow, []);
    assert.deepEqual(rulesToLists(intersectRules(rules(['x.com']), rules(['*.x.com']))).allow, ['*.x.com']);
    // A block that covers an allowed pattern removes it; blocks add up.
    assert.deepEqual(intersectRules(rules(['docs.x.com']), rules([], ['x.com'])).allow, []);
    assert.deepEqual(rulesToLists(intersectRules(rules([], ['a.com']), rules([], ['b.com']))).block, [
      'a.com',
      'b.com',
    ]);
  });

  test('random hosts: the intersection passes exactly what both layers pass', () => {
    const domains = ['a.com', 'b.a.com', 'c.b.a.com', 'x.org', 'y.x.org'];
    const forms = (domain: string) => [domain, `*.${domain}`, `=${domain}`];
    const patterns = domains.flatMap(forms);
    let seed = 7;
    const pick = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return patterns[seed % patterns.length] as string;
    };
    const hostsToTry = [...domains, 'z.c.b.a.com', 'q.y.x.org', 'a.org'];
    for (let round = 0; round < 200; round += 1) {
      const left = rules([pick(), pick()], round % 3 === 0 ? [pick()] : []);
      const right = rules(round % 4 === 0 ? [] : [pick()], round % 2 === 0 ? [pick()] : []);
      const both = intersectRules(left, right);
      for (const host of hostsToTry)
        assert.equal(
          allowsHost(both, host),
          allowsHost(left, host) && allowsHost(right, host),
          `round ${round}, ${host}: ${JSON.stringify([rulesToLists(left), rulesToLists(right)])}`,
        );
    }
  });
});
