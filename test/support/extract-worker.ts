// A worker thread of extract-in-workers.ts: reads each page it is sent, extracts it as `periscope extract` does
// (renderContent, text mode) and sends the text back; a page judged not to be content is an empty text.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { renderContent } from '../../src/content/render-content.ts';
import type { PageToExtract } from './extract-in-workers.ts';

async function extractText(page: PageToExtract): Promise<string> {
  const raw = readFileSync(page.path);
  const bytes = page.gzip ? gunzipSync(raw) : raw;
  const body = page.asUtf8 ? new TextEncoder().encode(bytes.toString('utf8')) : bytes;
  try {
    const result = await renderContent({
      url: page.url,
      headers: { 'content-type': 'text/html' },
      body,
      mode: 'text',
    });
    return result.text;
  } catch {
    return '';
  }
}

parentPort?.on('message', async (job: { index: number; page: PageToExtract } | 'stop') => {
  if (job === 'stop') return parentPort?.close();
  parentPort?.postMessage({ index: job.index, text: await extractText(job.page) });
});
parentPort?.postMessage('ready');
