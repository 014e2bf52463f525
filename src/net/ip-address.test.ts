import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyIpAddress,
  embeddedIpv4,
  formatIpAddress,
  isPublicIpAddress,
  parseIpAddress,
  parseIpv4,
  parseIpv6,
} from './ip-address.ts';

describe('parseIpv4', () => {
  const cases: Array<[string, string | undefined]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.0.0.01', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0x7f.0.0x0.0001', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['3232235521', '192.168.0.1'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['00000127.1', '87.0.0.1'],
    ['1.2.3', '1.2.0.3'],
    ['4294967295', '255.255.255.255'],
    ['4294967296', undefined],
    ['256.0.0.1', undefined],
    ['1.2.3.4.5', undefined],
    ['1..2', undefined],
    ['08.0.0.1', undefined],
    ['0x7g.1', undefined],
    ['example.com', undefined],
    ['', undefined],
    ['.', undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected ?? 'not IPv4'}`, () => {
      const value = parseIpv4(input);
      assert.equal(value === undefined ? undefined : formatIpAddress({ family: 4, value }), expected);
    });
  }

  it('agrees with the WHATWG URL parser on every obfuscated form', () => {
    for (const [input, expected] of cases) {
      if (expected === undefined || input === '') continue;
      assert.equal(new URL(`http://${input}/`).hostname, expected, input);
    }
  });
});

describe('parseIpv6', () => {
  const cases: Array<[string, string | undefined]> = [
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['::ffff:7f00:1', '::ffff:7f00:1'],
    ['0:0:0:0:0:ffff:127.0.0.1', '::ffff:7f00:1'],
    ['::127.0.0.1', '::7f00:1'],
    ['64:ff9b::10.0.0.1', '64:ff9b::a00:1'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['fe80::1%25eth0', 'fe80::1%eth0'],
    ['2001:DB8::1', '2001:db8::1'],
    ['::', '::'],
    ['1::2::3', undefined],
    ['::ffff:127.1', undefined],
    ['12345::', undefined],
    ['fe80::1%', undefined],
    ['127.0.0.1', undefined],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} → ${expected ?? 'not IPv6'}`, () => {
      const parsed = parseIpv6(input);
      assert.equal(parsed === undefined ? undefined : formatIpAddress({ family: 6, ...parsed }), expected);
    });
  }
});

describe('classifyIpAddress', () => {
  // [address, reason or undefined for public]
  const cases: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'this-network'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.1.1', 'link-local'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['192.88.99.1', '6to4-relay-anycast'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['8.8.8.8', undefined],
    ['1.1.1.1', undefined],
    ['93.184.216.34', undefined],
    ['172.15.255.255', undefined],
    ['172.32.0.0', undefined],
    ['100.63.255.255', undefined],
    ['100.128.0.0', undefined],
    ['198.20.0.0', undefined],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud-metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', undefined],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', undefined],
    ['64:ff9b:1::a00:1', 'nat64-local-use'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::', 'private'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', undefined],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'orchid'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard-only'],
    ['5f00::1', 'srv6-sid'],
    ['1::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['fe80::1%eth0', 'scoped'],
    ['2606:4700:4700::1111', undefined],
    ['2001:4860:4860::8888', undefined],
    ['2a00:1450:4001:80b::200e', undefined],
  ];
  for (const [input, reason] of cases) {
    it(`${input} → ${reason ?? 'public'}`, () => {
      const address = parseIpAddress(input);
      assert.ok(address, `parses ${input}`);
      assert.equal(classifyIpAddress(address)?.reason, reason);
      assert.equal(isPublicIpAddress(input), reason === undefined);
    });
  }

  it('names the embedded IPv4 address of mapped, NAT64 and 6to4 forms', () => {
    for (const input of ['::ffff:127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::']) {
      const address = parseIpAddress(input);
      assert.ok(address);
      assert.equal(classifyIpAddress(address)?.embeddedIpv4, '127.0.0.1', input);
    }
    assert.equal(embeddedIpv4(parseIpv6('2001:db8::1')?.value ?? 0n), undefined);
  });

  it('treats text that is not an IP literal as not public', () => {
    assert.equal(isPublicIpAddress('example.com'), false);
    assert.equal(isPublicIpAddress(''), false);
  });
});
