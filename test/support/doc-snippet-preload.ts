// Preloaded (`node --import`) into the process that runs one README/docs code block as written
// (test/doc-code-blocks.test.ts). The process runs in a network namespace of its own that has only loopback, so
// nothing a block does can leave the machine; this module supplies what a reader's machine would:
// - `periscope` and `periscope/<entry>` resolve through package.json `exports` to the source files the build
//   compiles (dist/X.js is src/X.ts), so a block runs against the code under test, not a stale build;
// - a relative `./x.js` that does not exist resolves to `./x.ts` beside it (how a block imports the block before it);
// - the model endpoints the blocks name answer on 127.0.0.1:11434: OpenAI-compatible Chat Completions
//   (`/v1/chat/completions`, Ollama's address) and Anthropic Messages (`/v1/messages`).
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ChatRequestBody, sendChatReply } from '../../src/testing/chat-stand-in.ts';

const ROOT = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  name: string;
  exports: Record<string, { default: string }>;
};

/** `./dist/index.js` → the URL of `src/index.ts`. */
function sourceOf(target: string): string {
  return new URL(target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'), ROOT).href;
}

module.registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === manifest.name || specifier.startsWith(`${manifest.name}/`)) {
      const entry = `.${specifier.slice(manifest.name.length)}`;
      const target = manifest.exports[entry];
      if (!target) throw new Error(`${specifier}: not an entry of package.json "exports"`);
      return { url: sourceOf(target.default), shortCircuit: true, format: 'module-typescript' };
    }
    if (/^\.\.?\//.test(specifier) && specifier.endsWith('.js') && context.parentURL) {
      const url = new URL(specifier, context.parentURL);
      const typescript = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (!existsSync(fileURLToPath(url)) && existsSync(fileURLToPath(typescript)))
        return nextResolve(pathToFileURL(fileURLToPath(typescript)).href, context);
    }
    return nextResolve(specifier, context);
  },
});

const ANTHROPIC_REPLY = {
  id: 'msg_stand_in',
  type: 'message',
  role: 'assistant',
  model: 'stand-in',
  content: [{ type: 'text', text: 'A stand-in answer.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
};

const models = createServer(async (request, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  if (request.method === 'POST' && request.url?.endsWith('/chat/completions'))
    return sendChatReply(response, JSON.parse(body) as ChatRequestBody, {
      content: 'Node.js 24 [1].\n\nSources:\n[1] https://nodejs.org/en "Node.js"',
    });
  if (request.method === 'POST' && request.url?.endsWith('/v1/messages'))
    return response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(ANTHROPIC_REPLY));
  response.writeHead(404).end();
});
await new Promise<void>((resolve) => models.listen(11434, '127.0.0.1', resolve));
models.unref();
