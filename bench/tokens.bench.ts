// What the model is handed for each page of ../shared/corpus/readability/: characters and estimated tokens of
// web_fetch's text (the whole document, before windowing) next to what the raw HTML would have cost.
// Run: npx node bench/tokens.bench.ts
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderContent } from '../src/content/render-content.ts';
import { estimateTokens } from '../src/content/token-estimate.ts';

const CORPUS = new URL('../../shared/corpus/readability/', import.meta.url).pathname;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
};

if (!existsSync(CORPUS)) {
  console.log(`skipped: the shared corpus (${CORPUS}) is not beside this checkout`);
} else {
  const rows = {
    rawChars: [] as number[],
    rawTokens: [] as number[],
    chars: [] as number[],
    tokens: [] as number[],
  };
  const textRows = { chars: [] as number[], tokens: [] as number[] };
  for (const name of readdirSync(CORPUS).sort()) {
    const path = join(CORPUS, name, 'source.html');
    if (!existsSync(path)) continue;
    const body = readFileSync(path);
    const html = body.toString('utf8');
    const input = { url: `http://fakehost/${name}/`, headers: { 'content-type': 'text/html' }, body };
    const markdown = await renderContent({ ...input, mode: 'markdown' });
    const text = await renderContent({ ...input, mode: 'text' });
    rows.rawChars.push(html.length);
    rows.rawTokens.push(estimateTokens(html));
    rows.chars.push(markdown.text.length);
    rows.tokens.push(estimateTokens(markdown.text));
    textRows.chars.push(text.text.length);
    textRows.tokens.push(estimateTokens(text.text));
  }
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const line = (label: string, chars: number[], tokens: number[]) =>
    `${label.padEnd(18)} ${String(percentile(chars, 0.5)).padStart(9)} ${String(percentile(chars, 0.95)).padStart(9)} ${String(
      percentile(tokens, 0.5),
    ).padStart(9)} ${String(percentile(tokens, 0.95)).padStart(9)} ${String(sum(tokens)).padStart(11)}`;
  console.log(
    `Tokens per page over ${rows.chars.length} readability-corpus pages (estimate: token-estimate.ts, an upper bound)`,
  );
  console.log('                   chars p50 chars p95 tokens p50 tokens p95 tokens total');
  console.log(line('raw HTML', rows.rawChars, rows.rawTokens));
  console.log(line('web_fetch markdown', rows.chars, rows.tokens));
  console.log(line('web_fetch text', textRows.chars, textRows.tokens));
  const over = rows.tokens.filter((tokens) => tokens > 20_000).length;
  console.log(
    `markdown is ${(sum(rows.rawTokens) / sum(rows.tokens)).toFixed(1)}× fewer tokens than raw HTML; ` +
      `${over} page(s) exceed one 20 000-token window and are paginated`,
  );
}
