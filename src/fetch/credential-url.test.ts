import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialReason } from './credential-url.ts';

test('credential-bearing URLs are recognised: userinfo, token-like parameters, pre-signed URLs, JWTs', () => {
  for (const url of [
    'https://user:pass@example.com/',
    'https://user@example.com/',
    'https://example.com/?token=abc',
    'https://example.com/?access_token=abc',
    'https://example.com/?id_token=abc',
    'https://example.com/?api_key=abc',
    'https://example.com/?apikey=abc',
    'https://example.com/?key=abc',
    'https://example.com/?sig=abc&se=2030-01-01',
    'https://example.com/?Signature=abc&Key-Pair-Id=K1',
    'https://bucket.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA&X-Amz-Signature=abc',
    'https://storage.googleapis.com/b/o?X-Goog-Signature=abc',
    'https://example.com/callback?code=4/0Ab&state=x',
    'https://example.com/?client_secret=abc',
    'https://example.com/?session=abc',
    'https://example.com/?q=x&t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc',
  ]) {
    assert.ok(credentialReason(new URL(url)), url);
  }
});

test('ordinary URLs are not: search queries, pages, ids, keyword-like names', () => {
  for (const url of [
    'https://example.com/',
    'https://example.com/articles/2024/rivers?page=2&sort=new',
    'https://www.google.com/search?q=api+key+rotation',
    'https://example.com/?monkey=1&keyword=rivers&tokens=3',
    'https://example.com/watch?v=dQw4w9WgXcQ&t=42',
  ]) {
    assert.equal(credentialReason(new URL(url)), undefined, url);
  }
});

test('the reason names parameters, never their values', () => {
  const reason = credentialReason(new URL('https://example.com/?token=s3cr3t&api_key=k3y'));
  assert.match(reason ?? '', /token, api_key/);
  assert.doesNotMatch(reason ?? '', /s3cr3t|k3y/);
});
