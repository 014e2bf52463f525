import { readFile } from 'node:fs/promises';
import { renderContent } from '../../../content/render-content.ts';
import { PeriscopeError } from '../../../errors.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

export const EXTRACT_HELP = `Usage: periscope extract [file|-] [options]

Offline: read HTML from a file or stdin and print its main content. No network access.

Options:
  --url URL               the page's address, for resolving relative links (default http://localhost/)
  --mode markdown|text    output format (default markdown)
  --json                  print title, metadata and text as JSON
  -h, --help              this help`;

const FLAGS = { ...COMMON_FLAGS, url: { type: 'string' }, mode: { type: 'string' } } as const;

export async function extractCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('extract', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, EXTRACT_HELP);
    return EXIT_OK;
  }
  if (positionals.length > 1) throw new UsageError(`expected one file, got ${positionals.length}`);
  const mode = values.mode ?? 'markdown';
  if (mode !== 'markdown' && mode !== 'text')
    throw new UsageError(`--mode must be markdown or text, got '${mode}'`);
  const pageUrl = (values.url as string | undefined) ?? 'http://localhost/';
  if (!URL.canParse(pageUrl))
    throw new UsageError(`--url '${pageUrl}' is not a valid URL; give an absolute URL`);
  const body = await readInput(positionals[0], io);
  const content = await renderContent({ url: pageUrl, headers: { 'content-type': 'text/html' }, body, mode });
  if (content.text.trim() === '') throw new PeriscopeError('EMPTY_CONTENT', 'the input has no readable text');
  if (values.json) writeLine(io.stdout, JSON.stringify(content, null, 2));
  else writeLine(io.stdout, content.text);
  return EXIT_OK;
}

async function readInput(file: string | undefined, io: CliIo): Promise<Uint8Array> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new UsageError(`file not found: ${file}`);
      if (code === 'EISDIR') throw new UsageError(`${file} is a directory; give an HTML file`);
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
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
