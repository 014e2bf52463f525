import { readFile } from 'node:fs/promises';
import { extractPage } from '../../../content/extract-page.ts';
import type { ExtractMode } from '../../../content/types.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { asUsageError } from '../flag-input.ts';
import { COMMON_FLAGS, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

export const EXTRACT_HELP = `Usage: periscope extract [file|-] [options]

Offline: read HTML from a file or stdin and print its main content. No network access.

Options:
  --url URL               the page's address, for resolving relative links (default http://localhost/)
  --mode markdown|text    output format (default markdown)
  --json                  print title, metadata and text as JSON
  -h, --help              this help`;

// `--config` is parsed only to refuse it with a clear message: extract is offline and reads no configuration.
const FLAGS = { ...COMMON_FLAGS, url: { type: 'string' }, mode: { type: 'string' } } as const;

export async function extractCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('extract', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, EXTRACT_HELP);
    return EXIT_OK;
  }
  if (values.config !== undefined)
    throw new UsageError(
      'extract is offline and reads no config; drop --config (it takes only --url, --mode, --json)',
    );
  if (positionals.length > 1) throw new UsageError(`expected one file, got ${positionals.length}`);
  const file = positionals[0];
  const bytes = await readInput(file, io);
  // The library's extract decides what the input is (binary, empty) and judges --mode and --url.
  const input = {
    bytes,
    name: file === undefined || file === '-' ? 'stdin' : file,
    ...(typeof values.url === 'string' ? { url: values.url } : {}),
    ...(typeof values.mode === 'string' ? { mode: values.mode as ExtractMode } : {}),
  };
  const content = await extractPage(input).catch((error: unknown) => {
    throw asUsageError(error, { mode: '--mode', url: '--url' }, values);
  });
  if (values.json) writeLine(io.stdout, JSON.stringify(content, null, 2));
  else writeLine(io.stdout, content.text);
  return EXIT_OK;
}

async function readInput(file: string | undefined, io: CliIo): Promise<Uint8Array> {
  if (file !== undefined && file !== '-') {
    let body: Uint8Array;
    try {
      body = await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new UsageError(`file not found: ${file}`);
      if (code === 'EISDIR') throw new UsageError(`${file} is a directory; give an HTML file`);
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    if (body.length === 0) throw new UsageError(`${file} is empty: give an HTML file`);
    return body;
  }
  if (io.stdin.isTTY)
    throw new UsageError(
      'no input: give an HTML file, or pipe HTML into stdin (periscope extract - < page.html)',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  const body = Buffer.concat(chunks);
  if (body.length === 0) throw new UsageError('stdin was empty: pipe an HTML page into it, or give a file');
  return body;
}
