import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toIsoUtc } from './iso-time.ts';

test('toIsoUtc writes what Date#toISOString writes, across eras, leap days and month ends', () => {
  const edges = [
    0,
    -1,
    1,
    951_782_400_000, // 2000-02-29
    951_868_800_000 - 1, // 2000-02-29T23:59:59.999Z
    4_107_542_400_000, // 2100-03-01 (2100 is not a leap year)
    Date.UTC(1600, 1, 29, 12, 30, 45, 7),
    Date.UTC(1969, 11, 31, 23, 59, 59, 999),
    Date.UTC(2024, 11, 31, 23, 59, 59, 999),
    Date.UTC(2025, 0, 1),
    -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
    253_402_300_799_999, // 9999-12-31T23:59:59.999Z
  ];
  // A fixed pseudo-random walk over years 0–9999, so a failure is reproducible.
  let seed = 12_345;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const span = 253_402_300_799_999 + 62_167_219_200_000;
  const samples = Array.from({ length: 20_000 }, () => Math.floor(random() * span) - 62_167_219_200_000);
  for (const ms of [...edges, ...samples]) assert.equal(toIsoUtc(ms), new Date(ms).toISOString(), String(ms));
});

test('toIsoUtc leaves years outside 0–9999 and invalid times to the built-in', () => {
  assert.equal(toIsoUtc(253_402_300_800_000), '+010000-01-01T00:00:00.000Z');
  assert.equal(toIsoUtc(-62_167_219_200_001), '-000001-12-31T23:59:59.999Z');
  assert.equal(toIsoUtc(1.5), new Date(1.5).toISOString());
  assert.throws(() => toIsoUtc(Number.NaN), RangeError);
});
