// Extracts the pages of a development set on worker threads, one page at a time to whichever thread is free, so
// the extraction floors use every core rather than one. The texts come back in the pages' order.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export interface PageToExtract {
  /** The page's file: raw bytes, or gzipped with `gzip`. */
  path: string;
  gzip?: boolean;
  /** Read as UTF-8 text first (invalid bytes become U+FFFD), as the readability set's tests read their pages. */
  asUtf8?: boolean;
  url: string;
}

const WORKER = new URL('./extract-worker.ts', import.meta.url);

/** Threads: the cores there are, at most 4 (each holds its own parser and heap). */
export const EXTRACT_THREADS = Math.max(1, Math.min(4, availableParallelism()));

export async function extractInWorkers(
  pages: readonly PageToExtract[],
  threads = EXTRACT_THREADS,
): Promise<string[]> {
  const texts: string[] = new Array(pages.length);
  let next = 0;
  const run = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(WORKER);
      const give = () => {
        if (next >= pages.length) return void worker.postMessage('stop');
        const index = next++;
        worker.postMessage({ index, page: pages[index] });
      };
      worker.on('message', (reply: 'ready' | { index: number; text: string }) => {
        if (reply !== 'ready') texts[reply.index] = reply.text;
        give();
      });
      worker.on('error', reject);
      worker.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`an extraction thread exited with ${code}`)),
      );
    });
  await Promise.all(Array.from({ length: Math.min(threads, pages.length) }, run));
  return texts;
}
