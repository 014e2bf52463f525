// /openapi.json as the gateway serves it, checked by Redocly's OpenAPI linter with its `recommended` ruleset
// (structural validity against OpenAPI 3.1 included). The document has only local $refs: nothing is fetched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BaseResolver, createConfig, lintFromString, type Source } from '@redocly/openapi-core';
import { createPeriscope } from '../../index.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import { createGateway } from './gateway.ts';

/** Refuses every $ref outside the document: the check reads nothing from disk or network (a remote $ref fails it). */
class LocalOnlyResolver extends BaseResolver {
  override loadExternalRef(absoluteRef: string): Promise<Source> {
    return Promise.reject(new Error(`external $ref ${absoluteRef}: the document must be self-contained`));
  }
}

test("/openapi.json passes Redocly's recommended ruleset with no error and no warning", async () => {
  const store = createMemoryStore();
  const periscope = createPeriscope({ gateway: { port: 0 } }, { store });
  const gateway = createGateway({ periscope, version: '1.2.3' });
  try {
    const { url } = await gateway.listen();
    const response = await fetch(`${url}/openapi.json`);
    assert.equal(response.status, 200);
    const source = await response.text();
    const problems = await lintFromString({
      source,
      absoluteRef: `${process.cwd()}/openapi.json`,
      config: await createConfig({ extends: ['recommended'] }),
      externalRefResolver: new LocalOnlyResolver(),
    });
    const found = problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`,
    );
    assert.deepEqual(found, []);
    const document = JSON.parse(source) as {
      info: { license?: { name?: string; identifier?: string } };
      paths: Record<string, { get?: { security?: unknown[] } }>;
    };
    assert.equal(document.info.license?.identifier, 'MIT');
    assert.deepEqual(document.paths['/healthz']?.get?.security, [], '/healthz needs no key');
  } finally {
    await gateway.close();
    await periscope.close();
    await store.close();
  }
});
