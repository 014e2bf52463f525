// `periscope ask` / runAgent(): the whole loop against a local stand-in that speaks Chat Completions (JSON and
// streaming), scripted to call tools the way models do, plus search and page stand-ins.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ChatEndpoint } from '../src/agent/chat-completions.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { createPeriscope } from '../src/index.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import {
  type ChatRequestBody,
  type ScriptedReply,
  sendChatReply,
  toolMessages,
} from '../src/testing/chat-stand-in.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { runCli as runPeriscope } from './support/run-cli.ts';

const ARTICLE = `<!doctype html><html><head><title>What's new in Python 3.13</title></head><body><article>
<h1>What's new in Python 3.13</h1>${'<p>Python 3.13 ships a new interactive interpreter and an experimental free-threaded build.</p>'.repeat(6)}
</article></body></html>`;

type Script = (body: ChatRequestBody) => ScriptedReply | 'malformed';
const scripts = new Map<string, Script>();
let server: TestServer;
const pageHits: number[] = [];

before(async () => {
  server = await startTestServer((request: IncomingMessage, response: ServerResponse, raw: string) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const chat = /^\/(\w+)\/v1\/chat\/completions$/.exec(url.pathname);
    if (chat && request.method === 'POST') {
      const body = JSON.parse(raw) as ChatRequestBody;
      if (chat[1] === 'unauthorised') {
        return response
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
      }
      const reply = scripts.get(chat[1] as string)?.(body) ?? { content: 'no script' };
      if (reply === 'malformed') {
        return response
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end('data: {"choices":[{"delta":{"content":"Hal\n\ndata: [DONE]\n\n');
      }
      return sendChatReply(response, body, reply);
    }
    if (url.pathname === '/brave/res/v1/web/search') {
      return response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          web: {
            results: [
              {
                title: "What's New In Python 3.13",
                url: `${pageBase}/whatsnew`,
                description: 'Summary of release highlights',
              },
            ],
          },
        }),
      );
    }
    if (url.pathname.startsWith('/slow/')) {
      pageHits.push(Date.now());
      setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE), 400);
      return;
    }
    if (url.pathname === '/whatsnew')
      return response.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
    response.writeHead(404).end();
  });
  pageBase = `http://articles.test:${server.port}`;
});
after(() => server.close());
let pageBase = '';

/** Pages live at articles.test (resolved to the stand-in and allow-listed by name); 127.0.0.1 itself stays blocked. */
const lookup = async (hostname: string) => {
  if (hostname === 'articles.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
};

function setup(script: Script, config: Record<string, unknown> = {}) {
  const name = `m${scripts.size}`;
  scripts.set(name, script);
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['articles.test'] },
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      ...config,
    },
    { lookup },
  );
  const endpoint: ChatEndpoint = {
    baseUrl: `${server.url}/${name}/v1`,
    model: 'test-model',
    timeoutMs: 5000,
  };
  return { periscope, endpoint, http: createHttpClient({}) };
}

const searchThenFetchThenAnswer: Script = (body) => {
  const done = toolMessages(body);
  if (done.length === 0)
    return { toolCalls: [{ name: 'web_search', arguments: { query: 'python 3.13 new features' } }] };
  if (done.length === 1)
    return { toolCalls: [{ name: 'web_fetch', arguments: { url: `${pageBase}/whatsnew` } }] };
  return {
    content: `Python 3.13 adds a new interactive interpreter and a free-threaded build (${pageBase}/whatsnew).`,
  };
};

test('search → fetch → answer: the answer streams, hints come in order, the page is a source', async () => {
  const { periscope, endpoint, http } = setup(searchThenFetchThenAnswer);
  const events: string[] = [];
  let streamed = '';
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'What is new in Python 3.13?',
    onToolCall: (hint) => events.push(`hint:${hint}`),
    onText: (text) => {
      if (!streamed) events.push('text');
      streamed += text;
    },
  });
  assert.deepEqual(events, [
    'hint:search "python 3.13 new features"',
    `hint:fetch articles.test:${server.port}/whatsnew`,
    'text',
  ]);
  assert.equal(streamed, transcript.answer);
  assert.match(transcript.answer, /free-threaded build/);
  assert.deepEqual(transcript.sources, [`${pageBase}/whatsnew`]);
  assert.equal(transcript.turns, 3);
  assert.deepEqual(
    transcript.toolCalls.map((call) => [call.name, call.isError]),
    [
      ['web_search', false],
      ['web_fetch', false],
    ],
  );
  // The model received the page as untrusted content.
  const pageMessage = transcript.messages.find(
    (message) => message.role === 'tool' && message.content?.includes('free-threaded'),
  );
  assert.match(pageMessage?.content ?? '', /<<<untrusted_web_content/);
  await periscope.close();
});

test('a fetch of a loopback URL: the model receives the blocked-URL sentence and the loop goes on', async () => {
  let sentence = '';
  const { periscope, endpoint, http } = setup((body) => {
    const done = toolMessages(body);
    if (done.length === 0)
      return {
        toolCalls: [{ name: 'web_fetch', arguments: { url: `http://127.0.0.1:${server.port}/whatsnew` } }],
      };
    sentence = done[0]?.content ?? '';
    return { content: 'I could not read that address.' };
  });
  const before = server.calls.filter((call) => call.url.pathname === '/whatsnew').length;
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'read it',
    stream: false,
  });
  assert.equal(transcript.answer, 'I could not read that address.');
  assert.equal(transcript.toolCalls[0]?.code, 'URL_BLOCKED');
  assert.match(sentence, /private|local|blocked/i);
  assert.equal(
    server.calls.filter((call) => call.url.pathname === '/whatsnew').length,
    before,
    'the page was never asked',
  );
  await periscope.close();
});

test('an agent with no credits: the model receives the credits sentence and nothing reaches the provider', async () => {
  let sentence = '';
  const { periscope, endpoint, http } = setup(
    (body) => {
      const done = toolMessages(body);
      if (done.length === 0)
        return { toolCalls: [{ name: 'web_search', arguments: { query: 'anything at all' } }] };
      sentence = done[0]?.content ?? '';
      return { content: 'Out of credits.' };
    },
    { limits: { credits: { enabled: true } } },
  );
  const before = server.calls.filter((call) => call.url.pathname.startsWith('/brave/')).length;
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'q',
    agentId: 'broke',
  });
  assert.equal(transcript.toolCalls[0]?.code, 'CREDITS_EXHAUSTED');
  assert.equal(transcript.creditsSpent, 0);
  assert.match(sentence, /credit/i);
  assert.equal(server.calls.filter((call) => call.url.pathname.startsWith('/brave/')).length, before);
  await periscope.close();
});

test('an agent with credits: the transcript adds up what its tool calls cost', async () => {
  const { periscope, endpoint, http } = setup(
    (body) => {
      if (toolMessages(body).length === 0)
        return { toolCalls: [{ name: 'web_search', arguments: { query: 'tide tables' } }] };
      return { content: 'Low tide at noon.' };
    },
    { limits: { credits: { enabled: true } } },
  );
  await periscope.credits.grant('funded', 10);
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'q',
    agentId: 'funded',
  });
  assert.equal(transcript.toolCalls[0]?.isError, false, transcript.toolCalls[0]?.display);
  assert.equal(transcript.toolCalls[0]?.creditsSpent, 2);
  assert.equal(transcript.creditsSpent, 2);
  assert.equal(await periscope.credits.balance('funded'), 8);
  await periscope.close();
});

test("a task's budget (runAgent budget): the calls past it are POLICY_DENIED budget, and the model is told to answer", async () => {
  let told = '';
  const { periscope, endpoint, http } = setup((body) => {
    const done = toolMessages(body);
    if (done.length === 0)
      return {
        toolCalls: ['a', 'b', 'c'].map((query) => ({ name: 'web_search', arguments: { query } })),
      };
    told =
      done.map((message) => message.content ?? '').find((content) => /POLICY_DENIED/.test(content)) ?? '';
    return { content: 'From what I have.' };
  });
  const before = server.calls.filter((call) => call.url.pathname.startsWith('/brave/')).length;
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'q',
    budget: { maxCalls: { web_search: 2 } },
  });
  assert.deepEqual(transcript.toolCalls.map((call) => call.code ?? 'ok').sort(), [
    'POLICY_DENIED',
    'ok',
    'ok',
  ]);
  assert.match(
    told,
    /budget for this tool is used up; retrying will not help, answer from what you already have/,
  );
  assert.match(told, /may make 2 web_search calls, and has used 2 \(the caller's session budget/);
  assert.equal(server.calls.filter((call) => call.url.pathname.startsWith('/brave/')).length - before, 2);
  await periscope.close();
});

test('the same search a third time in one question is refused by the repeat throttle', async () => {
  const { periscope, endpoint, http } = setup((body) => {
    const done = toolMessages(body);
    if (done.length < 3) return { toolCalls: [{ name: 'web_search', arguments: { query: 'Same   Query' } }] };
    return { content: 'done' };
  });
  const transcript = await runAgent({ endpoint, http, tools: periscope.tools, question: 'q' });
  assert.deepEqual(
    transcript.toolCalls.map((call) => call.code ?? 'ok'),
    ['ok', 'ok', 'REPEATED_LOOKUP'],
  );
  await periscope.close();
});

test('two tool calls of one model turn run concurrently', async () => {
  const { periscope, endpoint, http } = setup((body) => {
    if (toolMessages(body).length === 0) {
      return {
        toolCalls: [
          { name: 'web_fetch', arguments: { url: `${pageBase}/slow/a` } },
          { name: 'web_fetch', arguments: { url: `${pageBase}/slow/b` } },
        ],
      };
    }
    return { content: 'both read' };
  });
  pageHits.length = 0;
  const started = Date.now();
  const transcript = await runAgent({ endpoint, http, tools: periscope.tools, question: 'q' });
  assert.equal(transcript.answer, 'both read');
  assert.equal(pageHits.length, 2);
  assert.ok(
    Math.abs((pageHits[1] as number) - (pageHits[0] as number)) < 300,
    'the second started before the first ended',
  );
  assert.ok(Date.now() - started < 1500);
  await periscope.close();
});

test('the turn cap stops a model that never stops calling tools', async () => {
  let requests = 0;
  const { periscope, endpoint, http } = setup(() => {
    requests++;
    return { toolCalls: [{ name: 'web_search', arguments: { query: `query ${requests}` } }] };
  });
  await assert.rejects(
    runAgent({ endpoint, http, tools: periscope.tools, question: 'loop forever', maxTurns: 3 }),
    /kept calling tools for 3 turns/,
  );
  assert.equal(requests, 4, 'three turns with tools, then one asked to answer without them');
  await periscope.close();
});

// The CLI, spawned as a user runs it.
function runAsk(args: string[], env: Record<string, string> = {}) {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-ask-'));
  const config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      agent: { timeoutMs: 5000 },
    }),
  );
  return runPeriscope(['ask', '--config', config, ...args], { cwd: folder, env });
}

test('periscope ask: hints on stderr in order, the answer then the sources on stdout', async () => {
  const name = 'cli';
  scripts.set(name, (body) => {
    const done = toolMessages(body);
    if (done.length === 0)
      return { toolCalls: [{ name: 'web_search', arguments: { query: 'python 3.13' } }] };
    if (done.length === 1)
      return { toolCalls: [{ name: 'web_fetch', arguments: { url: `${server.url}/whatsnew` } }] };
    return { content: `A new REPL and free threading (${server.url}/whatsnew).` };
  });
  const result = await runAsk([
    '--model',
    'm',
    '--base-url',
    `${server.url}/${name}/v1`,
    'What is new in Python 3.13?',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 3, result.stderr);
  assert.match(lines[0] as string, /^search "python 3\.13" → ok, 1 result from brave in \d+ ms$/);
  assert.match(lines[1] as string, /^fetch 127\.0\.0\.1:\d+\/whatsnew → ok, \d+ chars in \d+ ms$/);
  assert.match(lines[2] as string, /^2 tool calls \(0 failed\) · credits off · \d+\.\d s$/);
  assert.equal(
    result.stdout,
    `A new REPL and free threading (${server.url}/whatsnew).\n\nSources:\n1. ${server.url}/whatsnew\n`,
  );
});

test('periscope ask: a blocked URL, a 404 and a refused repeat each show on their line; exit 0 with an answer', async () => {
  scripts.set('outcomes', (body) => {
    const calls = [
      { name: 'web_fetch', arguments: { url: `http://[::1]:${server.port}/whatsnew` } },
      { name: 'web_fetch', arguments: { url: `${server.url}/missing` } },
      { name: 'web_search', arguments: { query: 'tides' } },
      { name: 'web_search', arguments: { query: 'tides' } },
      { name: 'web_search', arguments: { query: 'tides' } },
    ];
    const next = calls[toolMessages(body).length];
    return next ? { toolCalls: [next] } : { content: 'Partly answered.' };
  });
  const result = await runAsk(['--model', 'm', '--base-url', `${server.url}/outcomes/v1`, 'tides?']);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'Partly answered.\n');
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 6, result.stderr);
  assert.match(lines[0] as string, /^fetch \S+\/whatsnew → URL_BLOCKED in \d+ ms$/);
  assert.match(lines[1] as string, /^fetch 127\.0\.0\.1:\d+\/missing → HTTP_STATUS 404 in \d+ ms$/);
  assert.match(lines[2] as string, /^search "tides" → ok, 1 result from brave in \d+ ms$/);
  assert.match(lines[3] as string, /^search "tides" → ok, 1 result from brave \(cached\) in \d+ ms$/);
  assert.match(lines[4] as string, /^search "tides" → REPEATED_LOOKUP in \d+ ms$/);
  assert.match(lines[5] as string, /^5 tool calls \(3 failed\) · credits off · \d+\.\d s$/);
});

test('periscope ask with credits: the call that runs out says CREDITS_EXHAUSTED, the last line what was spent', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-ask-'));
  const config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      limits: { credits: { enabled: true } },
      agent: { timeoutMs: 5000 },
    }),
  );
  const grant = await runPeriscope(['credits', 'grant', 'cli', '2', '--config', config], { cwd: folder });
  assert.equal(grant.code, 0, grant.stderr);
  scripts.set('credits', (body) => {
    const calls = [
      { name: 'web_search', arguments: { query: 'tides' } },
      { name: 'web_fetch', arguments: { url: `${server.url}/whatsnew` } },
    ];
    const next = calls[toolMessages(body).length];
    return next ? { toolCalls: [next] } : { content: 'Out of credits.' };
  });
  const result = await runPeriscope(
    ['ask', '--config', config, '--model', 'm', '--base-url', `${server.url}/credits/v1`, 'tides?'],
    { cwd: folder },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stderr.trim().split('\n');
  assert.match(lines[0] as string, /^search "tides" → ok, 1 result from brave in \d+ ms$/);
  assert.match(lines[1] as string, /^fetch 127\.0\.0\.1:\d+\/whatsnew → CREDITS_EXHAUSTED in \d+ ms$/);
  assert.match(lines[2] as string, /^2 tool calls \(1 failed\) · 2 credits spent, 0 left · \d+\.\d s$/);
  assert.equal(lines.length, 3, result.stderr);
});

test('periscope ask --json prints the transcript', async () => {
  scripts.set('json', () => ({ content: 'Plain answer.' }));
  const result = await runAsk(['--json', '--model', 'm', '--base-url', `${server.url}/json/v1`, 'hi?']);
  assert.equal(result.code, 0, result.stderr);
  const transcript = JSON.parse(result.stdout);
  assert.equal(transcript.answer, 'Plain answer.');
  assert.equal(transcript.messages[0].role, 'system');
  assert.equal(typeof transcript.timings.totalMs, 'number');
});

test('the endpoint down, a 401, a malformed stream: one clear line, exit 1', async () => {
  const down = await runAsk(['--model', 'm', '--base-url', 'http://127.0.0.1:9/v1', 'q?']);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /^periscope: the model endpoint http:\/\/127\.0\.0\.1:9\/v1 is unreachable/);
  assert.equal(down.stderr.trim().split('\n').length, 1);

  const refused = await runAsk(['--model', 'm', '--base-url', `${server.url}/unauthorised/v1`, 'q?']);
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr.trim(),
    'periscope: the model endpoint refused the API key (401): Incorrect API key provided; set agent.apiKey or OPENAI_API_KEY',
  );

  scripts.set('broken', () => 'malformed');
  const broken = await runAsk(['--model', 'm', '--base-url', `${server.url}/broken/v1`, 'q?']);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr.trim(), /^periscope: the model endpoint sent a malformed response/);
  assert.equal(broken.stderr.trim().split('\n').length, 1);
});

test('no model configured, or an empty question: one line, exit 2', async () => {
  const noModel = await runAsk(['what?']);
  assert.equal(noModel.code, 2);
  assert.match(
    noModel.stderr.trim(),
    /no model configured: give --model NAME .* agent\.model .* PERISCOPE_MODEL \/ OPENAI_MODEL$/,
  );
  const empty = await runAsk(['--model', 'm', '   ']);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /missing question/);
});

// Citations: the model cites a passage it read and one it made up; each is checked against the document cache.
const REAL_QUOTE = 'Python 3.13 ships a new interactive interpreter and an experimental free-threaded build.';
const INVENTED_QUOTE = 'Python 3.13 removes the global interpreter lock for good.';
// [2] is invented, [3] from a page never read, [4] listed nowhere: each is marked where it is cited.
const BODY =
  'Python 3.13 has a new interactive interpreter [1]. It removes the GIL for good [2][4], in a build of its own [1, 3].';
const MARKED_BODY =
  'Python 3.13 has a new interactive interpreter [1]. It removes the GIL for good [2 unverified][4 unverified], in a build of its own [1][3 unverified].';

function citingAnswer(base: string): Script {
  return (body) => {
    if (toolMessages(body).length === 0)
      return { toolCalls: [{ name: 'web_fetch', arguments: { url: `${base}/whatsnew` } }] };
    return {
      content: [
        BODY,
        '',
        'Sources:',
        `[1] ${base}/whatsnew "${REAL_QUOTE}"`,
        `[2] ${base}/whatsnew "${INVENTED_QUOTE}"`,
        `[3] ${base}/never-read "Anything at all."`,
      ].join('\n'),
    };
  };
}

test('citations: a quote from the page read is verified, an invented one and one from a page never read are not', async () => {
  const { periscope, endpoint, http } = setup(citingAnswer(pageBase));
  const pages = server.calls.length;
  const transcript = await runAgent({
    endpoint,
    http,
    tools: periscope.tools,
    question: 'What is new in Python 3.13?',
    verifyCitation: (citation) => periscope.verifyCitation({ ...citation, cacheOnly: true }),
  });
  // The answer itself says which citations did not verify; the raw text stays in `answer`.
  assert.equal(transcript.answerBody, MARKED_BODY);
  assert.ok(transcript.answer.startsWith(BODY));
  const [real, invented, unread] = transcript.citations ?? [];
  assert.deepEqual(
    [real?.n, real?.status, real?.verified, real?.match, real?.quote],
    [1, 'found', true, 'exact', REAL_QUOTE],
  );
  assert.equal(typeof real?.start, 'number');
  assert.deepEqual([invented?.n, invented?.status, invented?.verified], [2, 'changed', false]);
  assert.deepEqual(
    [unread?.status, unread?.verified, unread?.error?.details?.reason],
    ['unreachable', false, 'not-cached'],
  );
  // Checking read the cache only: the one page web_fetch read (and its robots.txt), nothing more.
  const asked = server.calls.slice(pages).map((call) => call.url.pathname);
  assert.deepEqual(
    asked.filter((path) => !path.endsWith('/chat/completions') && path !== '/robots.txt'),
    ['/whatsnew'],
  );
  // The model was told how to cite.
  assert.match(transcript.messages[0]?.content ?? '', /\[n\] URL "passage"/);
  await periscope.close();
});

test('periscope ask: citations are printed once checked, the unverified ones marked in the answer and the sources; --json has both', async () => {
  scripts.set('cites', citingAnswer(server.url));
  for (const streaming of [true, false]) {
    const result = await runAsk([
      '--model',
      'm',
      '--base-url',
      `${server.url}/cites/v1`,
      ...(streaming ? [] : ['--no-stream']),
      'What is new in Python 3.13?',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout,
      // Streamed, the answer is written up to its first marker and waits there for the checks: no unmarked [2].
      [
        MARKED_BODY,
        '',
        'Sources:',
        `[1] ✓ ${server.url}/whatsnew — "${REAL_QUOTE}"`,
        `[2] unverified (not on the page) ${server.url}/whatsnew — "${INVENTED_QUOTE}"`,
        `[3] unverified (page not read by the tools) ${server.url}/never-read — "Anything at all."`,
        '',
      ].join('\n'),
      streaming ? 'streamed' : 'not streamed',
    );
  }
  const json = await runAsk(['--json', '--model', 'm', '--base-url', `${server.url}/cites/v1`, 'q?']);
  assert.equal(json.code, 0, json.stderr);
  const transcript = JSON.parse(json.stdout) as {
    answerBody: string;
    citations: Array<{ n: number; url: string; quote: string; status: string; verified: boolean }>;
  };
  assert.equal(transcript.answerBody, MARKED_BODY);
  assert.deepEqual(
    transcript.citations.map(({ n, status, verified }) => [n, status, verified]),
    [
      [1, 'found', true],
      [2, 'changed', false],
      [3, 'unreachable', false],
    ],
  );
  assert.equal(transcript.citations[1]?.quote, INVENTED_QUOTE);
});
